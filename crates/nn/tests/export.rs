//! Network export: the safetensors file holds exactly the checkpoint's tensors, the JSON
//! description parses and names every tensor with its shape, and the forward pass rebuilt from
//! the two files alone (plain Rust: convolutions, batch norm, linear layers as the description
//! says) gives the network's own outputs.

mod common;

use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
use alphazero_nn::export::{export_network, network_tensors};
use alphazero_nn::{
    default_device, load_checkpoint, save_checkpoint, Encode, ModelConfig, ModelPreset,
    PolicyValueNet, Trainer, TrainerConfig,
};
use alphazero_registry::GameSpec;
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::Tensor;
use common::{random_batch, random_position, temp_dir, Rng};
use serde_json::Value;
use std::collections::HashMap;

/// Every float tensor of the module by path (an independent visitor, not the export's).
fn tensors(net: &PolicyValueNet) -> HashMap<String, (Vec<usize>, Vec<f32>)> {
    struct V {
        stack: Vec<String>,
        out: HashMap<String, (Vec<usize>, Vec<f32>)>,
    }
    impl ModuleVisitor for V {
        fn enter_module(&mut self, name: &str, _: &str) {
            self.stack.push(name.to_string());
        }
        fn exit_module(&mut self, _: &str, _: &str) {
            self.stack.pop();
        }
        fn visit_float<const D: usize>(&mut self, p: &Param<Tensor<D>>) {
            let t = p.val();
            let shape = t.dims().to_vec();
            let v = t
                .into_data()
                .convert::<f32>()
                .try_into_vec::<f32>()
                .unwrap();
            self.out.insert(self.stack.join("."), (shape, v));
        }
    }
    let mut v = V {
        stack: Vec::new(),
        out: HashMap::new(),
    };
    net.valid().visit(&mut v);
    v.out
}

/// The exported file's tensors: name → (shape, values).
fn read_safetensors(bytes: &[u8]) -> HashMap<String, (Vec<usize>, Vec<f32>)> {
    let st = safetensors::SafeTensors::deserialize(bytes).expect("a safetensors file");
    st.tensors()
        .into_iter()
        .map(|(name, view)| {
            assert_eq!(view.dtype(), safetensors::Dtype::F32, "{name}");
            let values = view
                .data()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            (name, (view.shape().to_vec(), values))
        })
        .collect()
}

type Tensors = HashMap<String, (Vec<usize>, Vec<f32>)>;

fn get<'a>(t: &'a Tensors, name: &str) -> &'a (Vec<usize>, Vec<f32>) {
    t.get(name)
        .unwrap_or_else(|| panic!("tensor {name} missing"))
}

/// conv2d (cross-correlation), weight [out, in, k, k], padding k/2, bias; x is [C, H, W].
fn conv(t: &Tensors, name: &str, x: &[f32], h: usize, w: usize) -> Vec<f32> {
    let (shape, wt) = get(t, &format!("{name}.weight"));
    let (o, i, k) = (shape[0], shape[1], shape[2]);
    let bias = &get(t, &format!("{name}.bias")).1;
    let pad = (k / 2) as isize;
    let mut y = vec![0.0f32; o * h * w];
    for oc in 0..o {
        for r in 0..h {
            for c in 0..w {
                let mut s = bias[oc];
                for ic in 0..i {
                    for kr in 0..k {
                        for kc in 0..k {
                            let (rr, cc) = (
                                r as isize + kr as isize - pad,
                                c as isize + kc as isize - pad,
                            );
                            if rr < 0 || cc < 0 || rr >= h as isize || cc >= w as isize {
                                continue;
                            }
                            s += wt[((oc * i + ic) * k + kr) * k + kc]
                                * x[(ic * h + rr as usize) * w + cc as usize];
                        }
                    }
                }
                y[(oc * h + r) * w + c] = s;
            }
        }
    }
    y
}

fn batch_norm(t: &Tensors, name: &str, x: &mut [f32], hw: usize, eps: f64) {
    let g = &get(t, &format!("{name}.gamma")).1;
    let b = &get(t, &format!("{name}.beta")).1;
    let m = &get(t, &format!("{name}.running_mean")).1;
    let v = &get(t, &format!("{name}.running_var")).1;
    for (ch, plane) in x.chunks_mut(hw).enumerate() {
        let inv = 1.0 / (f64::from(v[ch]) + eps).sqrt() as f32;
        for e in plane {
            *e = g[ch] * (*e - m[ch]) * inv + b[ch];
        }
    }
}

fn relu(x: &mut [f32]) {
    x.iter_mut().for_each(|e| *e = e.max(0.0));
}

/// y = x W + b with W [in, out], as the description says.
fn linear(t: &Tensors, name: &str, x: &[f32]) -> Vec<f32> {
    let (shape, wt) = get(t, &format!("{name}.weight"));
    let (i, o) = (shape[0], shape[1]);
    assert_eq!(x.len(), i, "{name} input");
    let b = &get(t, &format!("{name}.bias")).1;
    (0..o)
        .map(|j| b[j] + (0..i).map(|k| x[k] * wt[k * o + j]).sum::<f32>())
        .collect()
}

/// The forward pass of one position from the exported tensors and the description only.
fn reference_forward(t: &Tensors, d: &Value, planes: &[f32]) -> (Vec<f32>, f32) {
    let shape = &d["input"]["shape"];
    let (h, w) = (
        shape[2].as_u64().unwrap() as usize,
        shape[3].as_u64().unwrap() as usize,
    );
    let eps = d["architecture"]["conventions"]["batch_norm_epsilon"]
        .as_f64()
        .unwrap();
    let blocks = d["architecture"]["model"]["residual_blocks"]
        .as_u64()
        .unwrap() as usize;
    let hw = h * w;
    let mut x = conv(t, "stem", planes, h, w);
    batch_norm(t, "stem_bn", &mut x, hw, eps);
    relu(&mut x);
    for b in 0..blocks {
        let mut y = conv(t, &format!("blocks.{b}.conv1"), &x, h, w);
        batch_norm(t, &format!("blocks.{b}.bn1"), &mut y, hw, eps);
        let pool_fc = format!("blocks.{b}.pool_fc");
        if t.contains_key(&format!("{pool_fc}.weight")) {
            // Global pooling as the description says: the last c_g channels pooled (ReLU,
            // then the means and the maxima over the board), a bias on the others.
            let pooling = &d["architecture"]["layers"][1 + b]["global_pooling"];
            let pooled = pooling["pooled_channels"].as_u64().unwrap() as usize;
            let regular = pooling["regular_channels"].as_u64().unwrap() as usize;
            let mut g = y[regular * hw..].to_vec();
            relu(&mut g);
            let mut features = vec![0.0f32; 2 * pooled];
            for (ch, plane) in g.chunks(hw).enumerate() {
                features[ch] = plane.iter().sum::<f32>() / hw as f32;
                features[pooled + ch] = plane.iter().fold(f32::MIN, |m, &v| m.max(v));
            }
            let bias = linear(t, &pool_fc, &features);
            y.truncate(regular * hw);
            for (plane, bb) in y.chunks_mut(hw).zip(&bias) {
                plane.iter_mut().for_each(|v| *v += bb);
            }
        }
        relu(&mut y);
        let mut y = conv(t, &format!("blocks.{b}.conv2"), &y, h, w);
        batch_norm(t, &format!("blocks.{b}.bn2"), &mut y, hw, eps);
        for (a, r) in y.iter_mut().zip(&x) {
            *a += r;
        }
        relu(&mut y);
        x = y;
    }
    let mut p = conv(t, "policy_conv", &x, h, w);
    batch_norm(t, "policy_bn", &mut p, hw, eps);
    relu(&mut p);
    let logits = linear(t, "policy_fc", &p);
    let mut v = conv(t, "value_conv", &x, h, w);
    batch_norm(t, "value_bn", &mut v, hw, eps);
    relu(&mut v);
    let mut v = linear(t, "value_fc1", &v);
    relu(&mut v);
    let v = linear(t, "value_fc2", &v)[0].tanh();
    (logits, v)
}

/// Trains a tiny network of game `G` a few steps (so the batch-norm statistics are not the
/// initial ones), saves and reloads it, exports it, and checks the export.
fn check_export<G: Encode>(config: &G::Config, name: &str, global_pooling: bool) {
    let device = default_device();
    let mut mc = ModelConfig::for_game::<G>(ModelPreset::Tiny, config).with_residual_blocks(2);
    if global_pooling {
        mc = mc.with_default_global_pooling();
        assert!(mc.global_pooling.is_some());
    }
    let mut trainer = Trainer::new(&mc, TrainerConfig::default(), &device).expect("trainer");
    let mut rng = Rng(7 + name.len() as u64);
    for _ in 0..3 {
        let b = random_batch(&mc, 16, &mut rng);
        trainer.train_step(&b).expect("step");
    }
    let dir = temp_dir(&format!("export-{name}"));
    let path = dir.join("net.azc");
    save_checkpoint(&path, &GameSpec::of::<G>(config), &trainer).expect("save");
    let ck = load_checkpoint(&path, G::NAME, &device).expect("load");
    let ex = export_network::<G>(&ck.model, &ck.header, config, "net.azc").expect("export");

    // The safetensors file holds exactly the checkpoint's tensors, bit for bit.
    let file = read_safetensors(&ex.safetensors);
    let want = tensors(&ck.model);
    assert_eq!(file.len(), want.len(), "{name}: tensor count");
    for (k, (shape, values)) in &want {
        let (fs, fv) = file
            .get(k)
            .unwrap_or_else(|| panic!("{name}: {k} not exported"));
        assert_eq!(fs, shape, "{name}: {k} shape");
        assert!(
            fv.iter()
                .zip(values)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{name}: {k} values differ"
        );
    }
    assert_eq!(
        want.keys().any(|k| k.contains(".pool_fc.")),
        global_pooling,
        "{name}: global pooling layers exported exactly when the network has them"
    );
    assert!(
        want.keys().any(|k| k.ends_with("running_var")),
        "running statistics exported"
    );
    assert!(
        want.iter()
            .filter(|(k, _)| k.ends_with("running_mean"))
            .any(|(_, (_, v))| v.iter().any(|&x| x != 0.0)),
        "{name}: the training steps moved the running means"
    );
    let export_order: Vec<String> = network_tensors(&ck.model)
        .expect("tensors")
        .into_iter()
        .map(|t| t.name)
        .collect();

    // The description parses, names every tensor with its shape, and gives the encoding.
    let text = serde_json::to_vec_pretty(&ex.description).expect("json");
    let d: Value = serde_json::from_slice(&text).expect("the description parses");
    let listed: Vec<&Value> = d["tensors"].as_array().expect("tensors").iter().collect();
    let names: Vec<String> = listed
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, export_order, "{name}: every tensor, in order");
    for t in &listed {
        let n = t["name"].as_str().unwrap();
        let shape: Vec<usize> = t["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(shape, file[n].0, "{name}: {n} shape in the description");
        assert!(
            !t["role"].as_str().unwrap().is_empty(),
            "{name}: {n} has a role"
        );
    }
    let pos = G::new(config);
    let (h, w) = pos.board_shape();
    assert_eq!(
        d["input"]["shape"],
        serde_json::json!(["B", G::num_planes(config), h, w]),
        "{name}: input shape"
    );
    assert_eq!(
        d["input"]["planes"].as_array().unwrap().len(),
        G::num_planes(config)
    );
    let actions = d["outputs"]["policy"]["actions"].as_array().unwrap();
    assert_eq!(actions.len(), pos.num_actions());
    for (i, a) in actions.iter().enumerate().step_by(37) {
        let mv = pos
            .parse_move(a.as_str().unwrap())
            .expect("an action's move parses");
        assert_eq!(pos.move_to_action(mv), i, "{name}: action {i}");
    }
    assert_eq!(d["game"]["name"], G::NAME);
    assert_eq!(d["outputs"]["value"]["shape"], serde_json::json!(["B"]));

    // The forward pass rebuilt from the files alone gives the network's outputs.
    for k in 0..3 {
        let p: G = random_position(config, 3 + 5 * k, &mut rng);
        let mut planes = vec![0.0; G::input_len(config)];
        p.encode(0, &mut planes);
        let (logits, values) = ck.model.predict(&mc, &planes, &device).expect("predict");
        let (rl, rv) = reference_forward(&file, &d, &planes);
        let dl = logits
            .iter()
            .zip(&rl)
            .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
        assert!(dl < 1e-3, "{name}: policy logits differ by {dl}");
        assert!(
            (values[0] - rv).abs() < 1e-4,
            "{name}: value {} vs {rv}",
            values[0]
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn exported_networks_match_the_checkpoint_and_their_description() {
    check_export::<Gomoku>(&GomokuConfig::new(7, Rule::Renju).unwrap(), "gomoku", false);
    check_export::<Xiangqi>(&XiangqiConfig::default(), "xiangqi", false);
    check_export::<Connect4>(&Connect4Config, "connect4", false);
}

/// A network with global pooling exports its pooling layers, and the description says
/// enough (channel split, feature order, where the bias goes) to rebuild its forward pass.
#[test]
fn exported_networks_with_global_pooling_match_their_description() {
    check_export::<Gomoku>(
        &GomokuConfig::new(7, Rule::Renju).unwrap(),
        "gomoku-pooled",
        true,
    );
    check_export::<Connect4>(&Connect4Config, "connect4-pooled", true);
}
