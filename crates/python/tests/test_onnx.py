"""ONNX export: the graph of every shipped network (and of networks with global pooling, a
pooled value head and a convolutional policy head) computes our inference's policy logits and values in ONNX
Runtime."""

import json
import random

import numpy as np
import onnxruntime as ort
import pytest

import alphazero as az
from conftest import MODELS, run_cli


def positions(spec: str, n: int, seed: int) -> np.ndarray:
    """`n` positions of random games (start positions included), their planes stacked."""
    rng = random.Random(seed)
    planes = []
    game = az.Game(spec)
    while len(planes) < n:
        planes.append(game.planes())
        moves = game.legal_moves()
        if not moves or rng.random() < 0.03:
            game = az.Game(spec)
        else:
            game.play(rng.choice(moves))
    return np.stack(planes)


def check_agreement(net: az.Network, onnx_file, seed: int):
    session = ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["planes"]
    assert [o.name for o in session.get_outputs()] == ["policy", "value"]
    assert session.get_inputs()[0].shape == ["batch", *net.input_shape]
    meta = session.get_modelmeta().custom_metadata_map
    assert meta["game_spec"] == net.spec
    assert json.loads(meta["input"])["shape"] == ["B", *net.input_shape]
    assert json.loads(meta["outputs"])["policy"]["shape"] == ["B", net.num_actions]
    planes = positions(net.spec, 100, seed)
    logits, values = net.predict(planes)
    onnx_logits, onnx_values = session.run(None, {"planes": planes})
    assert onnx_logits.shape == (100, net.num_actions) and onnx_values.shape == (100,)
    np.testing.assert_allclose(onnx_logits, logits, rtol=0, atol=1e-4)
    np.testing.assert_allclose(onnx_values, values, rtol=0, atol=1e-4)


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_every_shipped_network_agrees_with_its_onnx_graph(model, tmp_path):
    assert len(MODELS) >= 4
    net = az.Network(model)
    from_python = tmp_path / "python.onnx"
    net.export_onnx(from_python)
    from_cli = tmp_path / "cli.onnx"
    run_cli("export", str(model), "--out", str(from_cli))
    assert from_python.read_bytes() == from_cli.read_bytes()
    check_agreement(net, from_python, seed=len(net.spec))


def test_a_network_with_global_pooling_and_a_pooled_value_head_agrees_with_its_onnx_graph(
    training_run, tmp_path
):
    net = az.Network(training_run / "networks" / "champion-0001.azc")
    out = tmp_path / "pooled.onnx"
    net.export_onnx(out)
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    model = json.loads(session.get_modelmeta().custom_metadata_map["model"])
    assert model["global_pooling"] and model["value_pool"] == "MeanMax"
    assert model["value_channels"] == 8
    check_agreement(net, out, seed=5)


def test_a_network_with_a_conv_policy_head_agrees_with_its_onnx_graph(conv_policy_run, tmp_path):
    net = az.Network(conv_policy_run / "networks" / "champion-0001.azc")
    out = tmp_path / "conv.onnx"
    net.export_onnx(out)
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    model = json.loads(session.get_modelmeta().custom_metadata_map["model"])
    assert model["policy_planes"]["planes"] == 50
    check_agreement(net, out, seed=7)


def test_a_size_independent_network_loaded_for_another_board_predicts_and_exports_that_board(
    tmp_path,
):
    # Regression: `Network(…, game=…)` laid the search out for the board asked for but kept
    # the file's own board for `predict` and `export_onnx`, which then refused that board's
    # planes and wrote a graph of the other board.
    model = next(m for m in MODELS if m.name == "gomoku-20x20-freestyle.azc")
    net = az.Network(model, game="gomoku:12")
    assert net.spec == "gomoku:12:freestyle"
    assert net.input_shape[1:] == (12, 12) and net.num_actions == 144
    out = tmp_path / "g12.onnx"
    net.export_onnx(out)
    check_agreement(net, out, seed=12)
    # The same weights on their own board are another graph: no 12x12 planes there.
    own = az.Network(model)
    assert own.input_shape[1:] == (20, 20)
    with pytest.raises(ValueError, match="do not fit"):
        own.predict(az.Game("gomoku:12").planes())
