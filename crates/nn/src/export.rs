//! A network in plain [safetensors](https://github.com/huggingface/safetensors) with a JSON
//! description, for loading it in other programs (PyTorch, NumPy, ONNX builders, …).
//!
//! [`export_network`] gives
//!
//! * the **tensors**: every float tensor of the network (weights, biases, batch-norm scale,
//!   shift, running mean and variance), `F32`, little-endian, row-major, named by module
//!   path (`stem.weight`, `blocks.0.bn1.running_var`, `policy_fc.weight`, …), with the
//!   checkpoint's game and model configuration in the safetensors metadata;
//! * a **JSON description** ([`ExportedNetwork::description`]): the game and its
//!   configuration; the input `[B, C, H, W]` with the meaning of every plane and of rows and
//!   columns; the policy output `[B, A]` with the move of every action index; the value
//!   output `[B]` and its perspective; the architecture in order with the conventions a
//!   re-implementation needs (convolution weights `[out, in, kh, kw]`, linear weights
//!   `[in, out]` so `y = x·W + b`, batch-norm epsilon, flatten order, and for a block with
//!   global pooling the channel split, the pooled features' order and where the bias goes);
//!   and every tensor's name, shape and role.
//!
//! Both are derived from the network itself (tensor names and shapes are visited, not listed
//! by hand); the crate's tests rebuild the forward pass from the two files alone and compare it
//! with [`PolicyValueNet::predict`].
//!
//! The same network as an ONNX graph is [`crate::onnx`]'s.

use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::Tensor;
use serde_json::{json, Value};

use crate::{CheckpointHeader, Encode, NnError, PolicyValueNet};

/// The version of the JSON description's layout.
pub const DESCRIPTION_VERSION: u32 = 1;

/// One tensor of a network.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedTensor {
    /// Module path, e.g. `blocks.0.conv1.weight`.
    pub name: String,
    /// Shape, outermost dimension first.
    pub shape: Vec<usize>,
    /// Values, row-major.
    pub values: Vec<f32>,
}

/// Every float tensor of `net` (parameters and batch-norm running statistics) in the order
/// the network visits them, as it computes in inference (`net.valid()`).
///
/// # Errors
/// [`NnError::Backend`] if a tensor cannot be read back from the device.
pub fn network_tensors(net: &PolicyValueNet) -> Result<Vec<NamedTensor>, NnError> {
    struct Collect {
        stack: Vec<String>,
        out: Vec<NamedTensor>,
        error: Option<String>,
    }
    impl ModuleVisitor for Collect {
        fn enter_module(&mut self, name: &str, _container_type: &str) {
            self.stack.push(name.to_string());
        }
        fn exit_module(&mut self, _name: &str, _container_type: &str) {
            self.stack.pop();
        }
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            let t = param.val();
            let shape = t.dims().to_vec();
            match t.into_data().convert::<f32>().try_into_vec::<f32>() {
                Ok(values) => self.out.push(NamedTensor {
                    name: self.stack.join("."),
                    shape,
                    values,
                }),
                Err(e) => {
                    self.error
                        .get_or_insert(format!("reading {}: {e:?}", self.stack.join(".")));
                }
            }
        }
    }
    let mut c = Collect {
        stack: Vec::new(),
        out: Vec::new(),
        error: None,
    };
    net.valid().visit(&mut c);
    match c.error {
        Some(e) => Err(NnError::Backend(e)),
        None => Ok(c.out),
    }
}

/// A network ready to be written: the safetensors bytes and the JSON description.
#[derive(Clone, Debug)]
pub struct ExportedNetwork {
    /// A complete safetensors file.
    pub safetensors: Vec<u8>,
    /// The JSON description (see the [module docs](self)).
    pub description: Value,
}

fn role(name: &str) -> &'static str {
    let last = name.rsplit('.').next().unwrap_or_default();
    match last {
        "weight" if name.contains("fc") => "linear weight [in, out]: y = x W + b",
        "weight" => "convolution weight [out_channels, in_channels, kh, kw]",
        "bias" => "bias, one per output channel / feature",
        "gamma" => "batch-norm scale",
        "beta" => "batch-norm shift",
        "running_mean" => "batch-norm running mean (used in inference)",
        "running_var" => "batch-norm running variance (used in inference)",
        _ => "",
    }
}

/// The network's input and outputs for game `G` under `config`, as the description's
/// `input` and `outputs` sections (and an ONNX file's metadata) give them: the input `planes`
/// `[B, C, H, W]` with the meaning of every plane and of rows and columns, the `policy` logits
/// `[B, A]` with the move of every action index, the `value` `[B]` and its perspective.
pub fn io_description<G: Encode>(config: &G::Config) -> (Value, Value) {
    let pos = G::new(config);
    let (h, w) = pos.board_shape();
    let c = G::num_planes(config);
    let a = pos.num_actions();
    let planes: Vec<Value> = G::plane_meanings(config)
        .into_iter()
        .enumerate()
        .map(|(i, meaning)| json!({"index": i, "meaning": meaning}))
        .collect();
    let actions: Vec<String> = (0..a)
        .map(|i| {
            pos.action_to_move(i)
                .map_or_else(String::new, |mv| pos.format_move(mv))
        })
        .collect();
    let input = json!({
        "name": "planes",
        "shape": ["B", c, h, w],
        "dtype": "float32",
        "layout": "NCHW, row-major: planes[b][c][row][column]",
        "perspective": "always from the side to move",
        "board": G::board_layout(),
        "planes": planes,
    });
    let outputs = json!({
        "policy": {
            "shape": ["B", a],
            "meaning": "unnormalised logits over the whole action space; mask illegal actions and take a softmax for move probabilities",
            "layout": G::policy_layout(),
            "actions": actions,
        },
        "value": {
            "shape": ["B"],
            "range": [-1.0, 1.0],
            "meaning": "expected result for the side to move: +1 win, 0 draw, -1 loss",
        },
    });
    (input, outputs)
}

/// The network `net` of checkpoint `header` (trained for game `G` under `config`) as
/// safetensors plus description. `source` names the checkpoint in the description.
///
/// # Errors
/// [`NnError::Backend`] if a tensor cannot be read, [`NnError::InvalidConfig`] if safetensors
/// refuses the data (never for a network of this crate).
pub fn export_network<G: Encode>(
    net: &PolicyValueNet,
    header: &CheckpointHeader,
    config: &G::Config,
    source: &str,
) -> Result<ExportedNetwork, NnError> {
    // The training-only auxiliary heads are no part of the network other programs run.
    let net = &net.clone().without_aux_heads();
    let tensors = network_tensors(net)?;
    let m = &header.model.without_aux();
    let bytes: Vec<Vec<u8>> = tensors
        .iter()
        .map(|t| t.values.iter().flat_map(|v| v.to_le_bytes()).collect())
        .collect();
    let views = tensors
        .iter()
        .zip(&bytes)
        .map(|(t, b)| {
            safetensors::tensor::TensorView::new(safetensors::Dtype::F32, t.shape.clone(), b)
                .map(|v| (t.name.clone(), v))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| NnError::InvalidConfig(format!("safetensors: {e}")))?;
    let model_json =
        serde_json::to_string(m).map_err(|e| NnError::InvalidConfig(format!("model: {e}")))?;
    let metadata = std::collections::HashMap::from([
        ("game".to_string(), header.game.name().to_string()),
        ("game_config".to_string(), header.game.to_string()),
        ("model".to_string(), model_json),
        (
            "description".to_string(),
            "alphazero-rs policy-value network; see the .json file beside it".to_string(),
        ),
    ]);
    let safetensors = safetensors::serialize(views, Some(metadata))
        .map_err(|e| NnError::InvalidConfig(format!("safetensors: {e}")))?;

    let (input, outputs) = io_description::<G>(config);
    let eps = net.stem_bn.epsilon;
    let mut layers = vec![json!({
        "name": "stem", "op": "conv3x3 (padding 1, stride 1, bias) -> batch norm -> relu",
        "tensors": ["stem.weight", "stem.bias", "stem_bn.*"]
    })];
    for (b, block) in net.blocks.iter().enumerate() {
        match &block.pool_fc {
            None => layers.push(json!({
                "name": format!("blocks.{b}"),
                "op": "residual: y = relu(bn2(conv2(relu(bn1(conv1(x))))) + x); conv3x3 padding 1",
                "tensors": [format!("blocks.{b}.conv1.*"), format!("blocks.{b}.bn1.*"),
                            format!("blocks.{b}.conv2.*"), format!("blocks.{b}.bn2.*")]
            })),
            Some(fc) => {
                let [pooled_in, regular] = fc.weight.dims();
                let pooled = pooled_in / 2;
                layers.push(json!({
                    "name": format!("blocks.{b}"),
                    "op": format!(
                        "residual with global pooling (c_g = {pooled} pooled channels, {regular} \
                         regular): t = bn1(conv1(x)) [B, C, H, W]; r = t[:, :{regular}]; \
                         g = relu(t[:, {regular}:]); f = concat(mean of g over H and W, max of g \
                         over H and W) [B, {pooled_in}] (all means, then all maxima, by channel); \
                         bias = pool_fc(f) [B, {regular}]; \
                         y = relu(bn2(conv2(relu(r + bias[:, :, None, None]))) + x); \
                         conv3x3 padding 1, conv2 reads the {regular} regular channels"
                    ),
                    "global_pooling": {"pooled_channels": pooled, "regular_channels": regular},
                    "tensors": [format!("blocks.{b}.conv1.*"), format!("blocks.{b}.bn1.*"),
                                format!("blocks.{b}.pool_fc.*"),
                                format!("blocks.{b}.conv2.*"), format!("blocks.{b}.bn2.*")]
                }));
            }
        }
    }
    layers.push(match &m.policy_planes {
        None => json!({
            "name": "policy head",
            "op": "conv1x1 (bias) -> batch norm -> relu -> flatten [B, policy_channels * H * W] in (channel, row, column) order -> linear -> policy logits [B, A]",
            "tensors": ["policy_conv.*", "policy_bn.*", "policy_fc.*"]
        }),
        Some(p) => json!({
            "name": "policy head",
            "op": format!(
                "conv1x1 (bias) -> batch norm -> relu -> conv1x1 (bias) to {} planes -> flatten [B, {} * H * W] in (plane, row, column) order -> policy logits [B, A]: logit a is flat point model.policy_planes.index[a]",
                p.planes, p.planes
            ),
            "tensors": ["policy_conv.*", "policy_bn.*", "policy_out.*"]
        }),
    });
    layers.push(json!({
        "name": "value head",
        "op": match m.value_pool {
            None => "conv1x1 (bias) -> batch norm -> relu -> flatten [B, value_channels * H * W] -> linear -> relu -> linear -> tanh -> value [B]".to_string(),
            Some(crate::ValuePool::MeanMax) => format!(
                "conv1x1 (bias) -> batch norm -> relu -> v [B, value_channels, H, W]; features [B, 3 * value_channels] = (mean of each channel over H and W, that mean times (sqrt(H * W) - 14) / 10 = {}, max of each channel) -> linear -> relu -> linear -> tanh -> value [B]",
                crate::ValuePool::size_scale(m.board_height * m.board_width)
            ),
        },
        "tensors": ["value_conv.*", "value_bn.*", "value_fc1.*", "value_fc2.*"]
    }));
    let description = json!({
        "format": "alphazero-rs network export",
        "version": DESCRIPTION_VERSION,
        "source": {"checkpoint": source, "writer": header.writer, "training_step": header.step},
        "game": {"name": G::NAME, "config": header.game.to_string()},
        "input": input,
        "outputs": outputs,
        "architecture": {
            "model": m,
            "layers": layers,
            "conventions": {
                "conv2d weight": "[out_channels, in_channels, kernel_height, kernel_width], cross-correlation as in PyTorch",
                "linear weight": "[in_features, out_features]: y = x W + b (transpose for PyTorch nn.Linear)",
                "batch norm": "inference: y = gamma * (x - running_mean) / sqrt(running_var + epsilon) + beta, per channel",
                "batch_norm_epsilon": eps,
            },
        },
        "tensors": tensors.iter().map(|t| json!({
            "name": t.name, "shape": t.shape, "dtype": "F32", "role": role(&t.name)
        })).collect::<Vec<_>>(),
    });
    Ok(ExportedNetwork {
        safetensors,
        description,
    })
}
