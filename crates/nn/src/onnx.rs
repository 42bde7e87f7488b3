//! The policy-value network as an [ONNX](https://onnx.ai) model, for ONNX Runtime and the
//! other programs that run ONNX graphs (browsers, phones, TensorRT).
//!
//! [`export_onnx`] writes one self-contained `.onnx` file (ONNX IR version [`IR_VERSION`],
//! default-domain operator set [`OPSET`]):
//!
//! * input `planes` `[batch, C, H, W]` float32, the game's encoding
//!   ([`crate::Encode`]: from the side to move);
//! * output `policy` `[batch, A]`: unnormalised logits over the whole action space;
//! * output `value` `[batch]`: the expected result for the side to move, in [-1, 1].
//!
//! The graph is the inference network with every batch norm folded into the convolution
//! before it (`W' = W·s`, `b' = (b − μ)·s + β`, `s = γ/√(σ² + ε)`: the folding of the CPU
//! inference path, `crate::folded`, in the convolutions' own `[C_out, C_in, k, k]` layout),
//! so it computes what [`crate::FoldedNet`] computes: `Conv` (+ `Relu`, + `Add` for the
//! residual), global pooling as `Slice`, `GlobalAveragePool`, `GlobalMaxPool`, `Concat` and
//! `Gemm`, the heads as `Flatten` (NCHW order, as the network flattens) and `Gemm`.
//! Training-only auxiliary heads are left out.
//!
//! The model's `metadata_props` name the game (`game`, `game_spec`), the shapes and meanings
//! of the input and outputs (`input`, `outputs`: the JSON of
//! [`crate::export::io_description`], every plane's and every action's meaning included),
//! the network's configuration (`model`), where it came from (`source`, `training_step`).
//!
//! The protobuf messages are the subset of `onnx.proto` (ONNX's schema) this graph needs,
//! with ONNX's field numbers, encoded by `prost`.

use burn::module::Module;
use prost::Message;

use crate::folded::{dense, fold_batch_norm, plain_conv, Dense, FoldedOihw};
use crate::{CheckpointHeader, Encode, NnError, PolicyValueNet};

/// The ONNX IR version written (ONNX 1.10 and later; ONNX Runtime 1.10 and later read it).
pub const IR_VERSION: i64 = 8;
/// The version of the default ONNX operator set the graph uses.
pub const OPSET: i64 = 13;
/// The graph's input: the encoded positions `[batch, C, H, W]`.
pub const INPUT_NAME: &str = "planes";
/// The graph's policy output: logits `[batch, A]`.
pub const POLICY_NAME: &str = "policy";
/// The graph's value output: values `[batch]` from the side to move.
pub const VALUE_NAME: &str = "value";

/// `onnx.proto` messages, with ONNX's field numbers (`oneof` fields as optional fields, which
/// they are on the wire).
mod proto {
    /// `ModelProto`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ModelProto {
        #[prost(int64, tag = "1")]
        pub ir_version: i64,
        #[prost(string, tag = "2")]
        pub producer_name: String,
        #[prost(string, tag = "3")]
        pub producer_version: String,
        #[prost(string, tag = "4")]
        pub domain: String,
        #[prost(int64, tag = "5")]
        pub model_version: i64,
        #[prost(string, tag = "6")]
        pub doc_string: String,
        #[prost(message, optional, tag = "7")]
        pub graph: Option<GraphProto>,
        #[prost(message, repeated, tag = "8")]
        pub opset_import: Vec<OperatorSetIdProto>,
        #[prost(message, repeated, tag = "14")]
        pub metadata_props: Vec<StringStringEntryProto>,
    }

    /// `OperatorSetIdProto`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct OperatorSetIdProto {
        #[prost(string, tag = "1")]
        pub domain: String,
        #[prost(int64, tag = "2")]
        pub version: i64,
    }

    /// `StringStringEntryProto`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct StringStringEntryProto {
        #[prost(string, tag = "1")]
        pub key: String,
        #[prost(string, tag = "2")]
        pub value: String,
    }

    /// `GraphProto`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct GraphProto {
        #[prost(message, repeated, tag = "1")]
        pub node: Vec<NodeProto>,
        #[prost(string, tag = "2")]
        pub name: String,
        #[prost(message, repeated, tag = "5")]
        pub initializer: Vec<TensorProto>,
        #[prost(string, tag = "10")]
        pub doc_string: String,
        #[prost(message, repeated, tag = "11")]
        pub input: Vec<ValueInfoProto>,
        #[prost(message, repeated, tag = "12")]
        pub output: Vec<ValueInfoProto>,
    }

    /// `NodeProto`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NodeProto {
        #[prost(string, repeated, tag = "1")]
        pub input: Vec<String>,
        #[prost(string, repeated, tag = "2")]
        pub output: Vec<String>,
        #[prost(string, tag = "3")]
        pub name: String,
        #[prost(string, tag = "4")]
        pub op_type: String,
        #[prost(message, repeated, tag = "5")]
        pub attribute: Vec<AttributeProto>,
    }

    /// `AttributeProto` (the kinds this graph uses: an integer, integers).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct AttributeProto {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(int64, tag = "3")]
        pub i: i64,
        #[prost(int64, repeated, tag = "8")]
        pub ints: Vec<i64>,
        /// `AttributeProto.AttributeType`: 2 INT, 7 INTS.
        #[prost(int32, tag = "20")]
        pub r#type: i32,
    }

    /// `TensorProto` (data as little-endian `raw_data`).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorProto {
        #[prost(int64, repeated, tag = "1")]
        pub dims: Vec<i64>,
        /// `TensorProto.DataType`: 1 FLOAT, 7 INT64.
        #[prost(int32, tag = "2")]
        pub data_type: i32,
        #[prost(string, tag = "8")]
        pub name: String,
        #[prost(bytes = "vec", tag = "9")]
        pub raw_data: Vec<u8>,
    }

    /// `ValueInfoProto`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ValueInfoProto {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(message, optional, tag = "2")]
        pub r#type: Option<TypeProto>,
        #[prost(string, tag = "3")]
        pub doc_string: String,
    }

    /// `TypeProto` (its `tensor_type` case).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TypeProto {
        #[prost(message, optional, tag = "1")]
        pub tensor_type: Option<TensorTypeProto>,
    }

    /// `TypeProto.Tensor`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorTypeProto {
        #[prost(int32, tag = "1")]
        pub elem_type: i32,
        #[prost(message, optional, tag = "2")]
        pub shape: Option<TensorShapeProto>,
    }

    /// `TensorShapeProto`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorShapeProto {
        #[prost(message, repeated, tag = "1")]
        pub dim: Vec<Dimension>,
    }

    /// `TensorShapeProto.Dimension`: a size or a named (symbolic) size.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Dimension {
        #[prost(int64, optional, tag = "1")]
        pub dim_value: Option<i64>,
        #[prost(string, optional, tag = "2")]
        pub dim_param: Option<String>,
    }
}

use proto::*;

/// `TensorProto.DataType.FLOAT`.
const FLOAT: i32 = 1;
/// `TensorProto.DataType.INT64`.
const INT64: i32 = 7;
/// `AttributeProto.AttributeType.INT`.
const ATTRIBUTE_INT: i32 = 2;
/// `AttributeProto.AttributeType.INTS`.
const ATTRIBUTE_INTS: i32 = 7;
/// The symbolic batch dimension of the input and outputs.
const BATCH: &str = "batch";

fn int_attribute(name: &str, i: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        i,
        ints: Vec::new(),
        r#type: ATTRIBUTE_INT,
    }
}

fn ints_attribute(name: &str, ints: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        i: 0,
        ints: ints.to_vec(),
        r#type: ATTRIBUTE_INTS,
    }
}

/// A float32 tensor value `name` of shape `dims`, a symbolic dimension as `None`.
fn value_info(name: &str, dims: &[Option<usize>], doc: &str) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| match d {
            Some(n) => Dimension {
                dim_value: Some(*n as i64),
                dim_param: None,
            },
            None => Dimension {
                dim_value: None,
                dim_param: Some(BATCH.into()),
            },
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: FLOAT,
                shape: Some(TensorShapeProto { dim }),
            }),
        }),
        doc_string: doc.into(),
    }
}

/// The graph under construction: nodes in order, initializers (weights and constant
/// operands), and a counter for the names of intermediate values.
#[derive(Default)]
struct Graph {
    nodes: Vec<NodeProto>,
    initializers: Vec<TensorProto>,
    values: usize,
}

impl Graph {
    /// A float32 initializer; returns its name.
    fn weight(&mut self, name: &str, dims: &[usize], values: &[f32]) -> String {
        debug_assert_eq!(dims.iter().product::<usize>(), values.len());
        self.initializers.push(TensorProto {
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type: FLOAT,
            name: name.into(),
            raw_data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        });
        name.into()
    }

    /// A one-dimensional int64 initializer (a shape, axes, slice bounds); returns its name.
    fn int64s(&mut self, name: &str, values: &[i64]) -> String {
        self.initializers.push(TensorProto {
            dims: vec![values.len() as i64],
            data_type: INT64,
            name: name.into(),
            raw_data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        });
        name.into()
    }

    /// Appends a node of `op` on `inputs`; its one output is named `output`, or gets a fresh
    /// name when `output` is `None`. Returns the output's name.
    fn node(
        &mut self,
        op: &str,
        inputs: &[&str],
        attributes: Vec<AttributeProto>,
        output: Option<&str>,
    ) -> String {
        self.values += 1;
        let out = output.map_or_else(|| format!("t{}", self.values), str::to_string);
        self.nodes.push(NodeProto {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![out.clone()],
            name: format!("{op}_{}", self.values),
            op_type: op.into(),
            attribute: attributes,
        });
        out
    }

    /// A folded convolution (stride 1, padding `k / 2`) of `x`, its weights named `name`.
    fn conv(&mut self, name: &str, conv: &FoldedOihw, x: &str) -> String {
        let k = conv.kernel;
        let w = self.weight(
            &format!("{name}.weight"),
            &[conv.cout, conv.cin, k, k],
            &conv.weight,
        );
        let b = self.weight(&format!("{name}.bias"), &[conv.cout], &conv.bias);
        let pad = (k / 2) as i64;
        self.node(
            "Conv",
            &[x, &w, &b],
            vec![
                ints_attribute("kernel_shape", &[k as i64, k as i64]),
                ints_attribute("pads", &[pad, pad, pad, pad]),
                ints_attribute("strides", &[1, 1]),
            ],
            None,
        )
    }

    /// `x · W + b` for `x` `[batch, D_in]` (`Gemm` without transposes).
    fn linear(&mut self, name: &str, dense: &Dense, x: &str) -> String {
        let w = self.weight(
            &format!("{name}.weight"),
            &[dense.din, dense.dout],
            &dense.weight,
        );
        let b = self.weight(&format!("{name}.bias"), &[dense.dout], &dense.bias);
        self.node("Gemm", &[x, &w, &b], Vec::new(), None)
    }

    fn relu(&mut self, x: &str) -> String {
        self.node("Relu", &[x], Vec::new(), None)
    }

    /// `[batch, …]` → `[batch, product of the rest]`.
    fn flatten(&mut self, x: &str) -> String {
        self.node("Flatten", &[x], vec![int_attribute("axis", 1)], None)
    }
}

/// The ONNX model of `net` (checkpoint `header`, trained for game `G` under `config`), as the
/// bytes of an `.onnx` file (see the [module docs](self)). `source` names the checkpoint in
/// the metadata.
///
/// # Errors
/// [`NnError::Backend`] if a weight cannot be read from the device,
/// [`NnError::InvalidConfig`] if the network's tensors do not fit its configuration.
pub fn export_onnx<G: Encode>(
    net: &PolicyValueNet,
    header: &CheckpointHeader,
    config: &G::Config,
    source: &str,
) -> Result<Vec<u8>, NnError> {
    let net = net.clone().without_aux_heads().valid();
    let m = header.model.without_aux();
    m.validate()?;
    let (c, h, w, a) = (m.input_planes, m.board_height, m.board_width, m.num_actions);
    let mut g = Graph::default();

    let stem = g.conv(
        "stem",
        &fold_batch_norm(&net.stem, &net.stem_bn)?,
        INPUT_NAME,
    );
    let mut x = g.relu(&stem);
    for (i, block) in net.blocks.iter().enumerate() {
        let name = format!("blocks.{i}");
        let conv1 = fold_batch_norm(&block.conv1, &block.bn1)?;
        let t = g.conv(&format!("{name}.conv1"), &conv1, &x);
        let mid = match &block.pool_fc {
            None => g.relu(&t),
            Some(fc) => {
                let fc = dense(fc, None)?;
                let (pooled, regular) = (fc.din / 2, fc.dout);
                if pooled + regular != conv1.cout {
                    return Err(NnError::InvalidConfig(format!(
                        "{name}: global pooling of {pooled} + {regular} channels after a \
                         convolution of {}",
                        conv1.cout
                    )));
                }
                let axis = g.int64s(&format!("{name}.channel_axis"), &[1]);
                let zero = g.int64s(&format!("{name}.regular_start"), &[0]);
                let split = g.int64s(&format!("{name}.pooled_start"), &[regular as i64]);
                let end = g.int64s(&format!("{name}.pooled_end"), &[conv1.cout as i64]);
                let r = g.node("Slice", &[&t, &zero, &split, &axis], Vec::new(), None);
                let pooled_part = g.node("Slice", &[&t, &split, &end, &axis], Vec::new(), None);
                let pooled_relu = g.relu(&pooled_part);
                let mean = g.node("GlobalAveragePool", &[&pooled_relu], Vec::new(), None);
                let max = g.node("GlobalMaxPool", &[&pooled_relu], Vec::new(), None);
                // All means, then all maxima, by channel: the features' order in training.
                let features = g.node(
                    "Concat",
                    &[&mean, &max],
                    vec![int_attribute("axis", 1)],
                    None,
                );
                let features = g.flatten(&features);
                let bias = g.linear(&format!("{name}.pool_fc"), &fc, &features);
                let spatial = g.int64s(&format!("{name}.spatial_axes"), &[2, 3]);
                let bias = g.node("Unsqueeze", &[&bias, &spatial], Vec::new(), None);
                let sum = g.node("Add", &[&r, &bias], Vec::new(), None);
                g.relu(&sum)
            }
        };
        let conv2 = fold_batch_norm(&block.conv2, &block.bn2)?;
        let u = g.conv(&format!("{name}.conv2"), &conv2, &mid);
        let sum = g.node("Add", &[&u, &x], Vec::new(), None);
        x = g.relu(&sum);
    }

    let p = g.conv(
        "policy_conv",
        &fold_batch_norm(&net.policy_conv, &net.policy_bn)?,
        &x,
    );
    let p = g.relu(&p);
    match (&net.policy_fc, &net.policy_out, &m.policy_planes) {
        (Some(fc), None, None) => {
            let p = g.flatten(&p);
            let logits = g.linear("policy_fc", &dense(fc, None)?, &p);
            g.node("Identity", &[&logits], Vec::new(), Some(POLICY_NAME));
        }
        (None, Some(out), Some(planes)) => {
            // K planes, flattened as [B, K·H·W], and each action's point of them.
            let maps = g.conv("policy_out", &plain_conv(out)?, &p);
            let maps = g.flatten(&maps);
            let index: Vec<i64> = planes.index.iter().map(|&i| i64::from(i)).collect();
            let index = g.int64s("policy_index", &index);
            g.node(
                "Gather",
                &[&maps, &index],
                vec![int_attribute("axis", 1)],
                Some(POLICY_NAME),
            );
        }
        _ => {
            return Err(NnError::InvalidConfig(
                "the network's policy head is not the one its config names".into(),
            ))
        }
    }

    let v = g.conv(
        "value_conv",
        &fold_batch_norm(&net.value_conv, &net.value_bn)?,
        &x,
    );
    let v = g.relu(&v);
    let v = match m.value_pool {
        None => g.flatten(&v),
        Some(crate::ValuePool::MeanMax) => {
            let mean = g.node("GlobalAveragePool", &[&v], Vec::new(), None);
            let max = g.node("GlobalMaxPool", &[&v], Vec::new(), None);
            let hw = m.board_height * m.board_width;
            let scale = g.weight(
                "value_size_scale",
                &[1],
                &[crate::ValuePool::size_scale(hw)],
            );
            let scaled = g.node("Mul", &[&mean, &scale], Vec::new(), None);
            // The means, the scaled means, the maxima, by channel: the order in training.
            let features = g.node(
                "Concat",
                &[&mean, &scaled, &max],
                vec![int_attribute("axis", 1)],
                None,
            );
            g.flatten(&features)
        }
    };
    let v = g.linear("value_fc1", &dense(&net.value_fc1, None)?, &v);
    let v = g.relu(&v);
    let v = g.linear("value_fc2", &dense(&net.value_fc2, None)?, &v);
    let v = g.node("Tanh", &[&v], Vec::new(), None);
    let flat = g.int64s("value_shape", &[-1]);
    g.node("Reshape", &[&v, &flat], Vec::new(), Some(VALUE_NAME));

    let (input, outputs) = crate::export::io_description::<G>(config);
    let text = |v: &serde_json::Value| v.to_string();
    let model_json =
        serde_json::to_string(&m).map_err(|e| NnError::InvalidConfig(format!("model: {e}")))?;
    let metadata = [
        ("game", G::NAME.to_string()),
        ("game_spec", header.game.to_string()),
        ("input", text(&input)),
        ("outputs", text(&outputs)),
        ("model", model_json),
        ("source", source.to_string()),
        ("training_step", header.step.to_string()),
        ("writer", header.writer.clone()),
        (
            "folding",
            "every batch norm (inference mode, running statistics) is folded into the \
             convolution before it"
                .to_string(),
        ),
    ];
    let graph = GraphProto {
        node: g.nodes,
        name: format!("alphazero-rs {} policy-value network", header.game.words()),
        initializer: g.initializers,
        doc_string: format!(
            "{}: {} residual blocks of {} channels; input {INPUT_NAME} [batch, {c}, {h}, {w}] \
             from the side to move; outputs {POLICY_NAME} logits [batch, {a}] and {VALUE_NAME} \
             [batch] in [-1, 1] from the side to move",
            header.game.words(),
            m.residual_blocks,
            m.channels
        ),
        input: vec![value_info(
            INPUT_NAME,
            &[None, Some(c), Some(h), Some(w)],
            "encoded positions, NCHW, from the side to move (metadata `input`)",
        )],
        output: vec![
            value_info(
                POLICY_NAME,
                &[None, Some(a)],
                "unnormalised logits over the whole action space (metadata `outputs`)",
            ),
            value_info(
                VALUE_NAME,
                &[None],
                "expected result for the side to move: +1 win, 0 draw, -1 loss",
            ),
        ],
    };
    let model = ModelProto {
        ir_version: IR_VERSION,
        producer_name: "alphazero-rs".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        domain: String::new(),
        model_version: header.step as i64,
        doc_string: format!(
            "alphazero-rs policy-value network for {}",
            header.game.words()
        ),
        graph: Some(graph),
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: OPSET,
        }],
        metadata_props: metadata
            .into_iter()
            .map(|(key, value)| StringStringEntryProto {
                key: key.into(),
                value,
            })
            .collect(),
    };
    Ok(model.encode_to_vec())
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use alphazero_connect4::{Connect4, Connect4Config};
    use alphazero_registry::GameSpec;
    use burn::tensor::Device;

    use super::*;
    use crate::{GlobalPooling, ModelConfig};

    fn model(pooling: Option<GlobalPooling>) -> ModelProto {
        let config = ModelConfig::new(2, 6, 7, 7)
            .with_residual_blocks(3)
            .with_channels(16)
            .with_value_hidden(8)
            .with_global_pooling(pooling);
        let header = CheckpointHeader {
            game: GameSpec::Connect4,
            model: config.clone(),
            step: 12,
            train: None,
            param_ids: BTreeMap::new(),
            writer: "test".into(),
        };
        let net = config.init(&Device::flex());
        let bytes = export_onnx::<Connect4>(&net, &header, &Connect4Config, "c4.azc").unwrap();
        ModelProto::decode(bytes.as_slice()).expect("the bytes decode as an ONNX model")
    }

    /// ONNX runtimes need a topologically sorted graph whose every operand is defined:
    /// the input, a weight, or an earlier node's output; the named outputs are computed.
    fn check_well_formed(m: &ModelProto) -> Vec<String> {
        let g = m.graph.as_ref().unwrap();
        let mut defined: HashSet<&str> = g.initializer.iter().map(|t| t.name.as_str()).collect();
        defined.insert(INPUT_NAME);
        for node in &g.node {
            for input in &node.input {
                assert!(
                    defined.contains(input.as_str()),
                    "{} reads {input}",
                    node.name
                );
            }
            defined.extend(node.output.iter().map(String::as_str));
        }
        for out in [POLICY_NAME, VALUE_NAME] {
            assert!(defined.contains(out), "{out} is computed");
        }
        g.node.iter().map(|n| n.op_type.clone()).collect()
    }

    #[test]
    fn onnx_graphs_are_well_formed_with_named_io_and_the_game_in_their_metadata() {
        let plain = model(None);
        let ops = check_well_formed(&plain);
        assert_eq!(ops.iter().filter(|o| *o == "Conv").count(), 1 + 2 * 3 + 2);
        assert!(!ops.iter().any(|o| o == "GlobalMaxPool"));
        assert_eq!(
            (plain.ir_version, plain.opset_import[0].version),
            (IR_VERSION, OPSET)
        );
        let g = plain.graph.as_ref().unwrap();
        let dims = |v: &ValueInfoProto| -> Vec<String> {
            let t = v.r#type.as_ref().unwrap().tensor_type.as_ref().unwrap();
            t.shape
                .as_ref()
                .unwrap()
                .dim
                .iter()
                .map(|d| match (&d.dim_value, &d.dim_param) {
                    (Some(n), _) => n.to_string(),
                    (_, Some(p)) => p.clone(),
                    _ => "?".into(),
                })
                .collect()
        };
        assert_eq!(g.input[0].name, INPUT_NAME);
        assert_eq!(dims(&g.input[0]), ["batch", "2", "6", "7"]);
        assert_eq!(dims(&g.output[0]), ["batch", "7"]);
        assert_eq!(dims(&g.output[1]), ["batch"]);
        let meta: BTreeMap<&str, &str> = plain
            .metadata_props
            .iter()
            .map(|e| (e.key.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(meta["game_spec"], "connect4");
        assert_eq!(meta["training_step"], "12");
        let input: serde_json::Value = serde_json::from_str(meta["input"]).unwrap();
        assert_eq!(input["shape"], serde_json::json!(["B", 2, 6, 7]));
        // The third block pools: its bias comes from the means and maxima of 4 channels.
        let pooled = model(Some(GlobalPooling {
            blocks: vec![2],
            channels: 4,
        }));
        let ops = check_well_formed(&pooled);
        for op in ["GlobalAveragePool", "GlobalMaxPool", "Slice", "Unsqueeze"] {
            assert!(ops.iter().any(|o| o == op), "{op} in {ops:?}");
        }
        let fc = pooled.graph.as_ref().unwrap().initializer.iter();
        let fc = fc
            .filter(|t| t.name == "blocks.2.pool_fc.weight")
            .collect::<Vec<_>>();
        assert_eq!(fc[0].dims, [8, 12]);
    }
}
