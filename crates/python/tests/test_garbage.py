"""Garbage to every entry point: each raises an ordinary Python exception (never a Rust panic,
which PyO3 raises as a BaseException that pytest.raises(Exception) does not catch)."""

import numpy as np
import pytest

import alphazero as az
from conftest import REPO

GARBAGE_TEXT = ["", " ", "\x00", "é", "🀄", "h8" * 5000, "a0i9", "-1", "99999999999999999999",
                "1/2/3/4", "rnbakabnr/9/9 w", "moves", "startpos moves zz", ":", "gomoku:"]
GARBAGE_VALUES = [None, 1.5, -1, 2**70, [], {}, b"h8", float("nan")]


def raises(call, *args, **kwargs):
    """Calls `call`; the exception it must raise (an `Exception`)."""
    with pytest.raises(Exception) as info:
        call(*args, **kwargs)
    return info.value


def test_game_construction():
    for text in GARBAGE_TEXT:
        assert isinstance(raises(az.Game, text), ValueError), repr(text)
    for value in GARBAGE_VALUES:
        raises(az.Game, value)
    for spec in ["gomoku:4", "gomoku:21", "gomoku:15:pro", "xiangqi:9", "connect4:7"]:
        assert isinstance(raises(az.Game, spec), ValueError), spec
    for spec in ["gomoku:15", "xiangqi", "connect4"]:
        for text in GARBAGE_TEXT[2:]:
            try:
                az.Game(spec, text)
            except ValueError:
                pass
        for value in GARBAGE_VALUES[1:]:
            raises(az.Game, spec, value)


def test_game_methods():
    for spec in ["gomoku:9:renju", "xiangqi", "connect4"]:
        game = az.Game(spec)
        for text in GARBAGE_TEXT:
            assert isinstance(raises(game.play, text), ValueError), (spec, repr(text))
            assert isinstance(raises(game.move_to_action, text), ValueError), (spec, repr(text))
        for value in GARBAGE_VALUES:
            raises(game.play, value)
            raises(game.transform, value)
        for bad in [game.num_actions, 2**40]:
            assert isinstance(raises(game.action_to_move, bad), ValueError)
            assert isinstance(raises(game.transform_action, 0, bad), ValueError)
        for bad in [game.num_symmetries, 1000]:
            assert isinstance(raises(game.transform, bad), ValueError)
            assert isinstance(raises(game.transform_action, bad, 0), ValueError)
        raises(game.action_to_move, -1)
        assert game.moves == [] and game.undo() is None


def test_network_and_search(tmp_path):
    not_a_checkpoint = tmp_path / "x.azc"
    not_a_checkpoint.write_bytes(b"AZCK" + b"\xff" * 100)
    empty = tmp_path / "empty.azc"
    empty.write_bytes(b"")
    assert isinstance(raises(az.Network, tmp_path / "missing.azc"), OSError)
    # A folder is a training run's folder (its champion); one without a champion says so.
    no_run = raises(az.Network, tmp_path)
    assert isinstance(no_run, ValueError) and "holds no champion network" in str(no_run)
    for path in [not_a_checkpoint, empty, REPO / "README.md"]:
        assert isinstance(raises(az.Network, path), ValueError), path
    for value in GARBAGE_VALUES:
        raises(az.Network, value)
    model = REPO / "models" / "connect4.azc"
    for spec in ["", "chess", "gomoku:15", "xiangqi"]:
        assert isinstance(raises(az.Network, model, spec), ValueError)
    for spec in GARBAGE_TEXT:
        raises(az.Network.shipped, spec)
        raises(az.Evaluator.shipped, spec)
    # Evaluators take the same files and the same garbage, with the same exceptions.
    assert isinstance(raises(az.Evaluator, tmp_path / "missing.azm"), OSError)
    truncated = tmp_path / "t.azm"
    truncated.write_bytes((REPO / "models" / "gomoku-15x15-freestyle.azm").read_bytes()[:50])
    for path in [not_a_checkpoint, empty, truncated, REPO / "README.md"]:
        assert isinstance(raises(az.Evaluator, path), ValueError), path
    for value in GARBAGE_VALUES:
        raises(az.Evaluator, value)
    for spec in ["", "chess", "gomoku:15", "xiangqi"]:
        assert isinstance(raises(az.Evaluator, model, spec), ValueError)
    for value in GARBAGE_VALUES[1:]:  # None is the uniform evaluator
        assert isinstance(raises(az.search, az.Game("connect4"), value, simulations=1), TypeError)
    net = az.Network(model)
    for planes in [np.zeros((3, 6, 7), np.float32), np.zeros((1, 2, 7, 6), np.float32),
                   np.zeros((2, 2, 2, 6, 7), np.float32), np.zeros(0, np.float32),
                   np.zeros((2, 6, 7), np.float64), [[1.0]], "planes", None]:
        raises(net.predict, planes)
    logits, values = net.predict(np.zeros((0, 2, 6, 7), np.float32))
    assert logits.shape == (0, 7) and values.shape == (0,)
    assert isinstance(raises(net.export_onnx, tmp_path / "missing" / "x.onnx"), OSError)
    raises(net.export_onnx, None)
    game = az.Game("connect4")
    # time_ms 2**63: a search that would never return.
    for kwargs in [{"simulations": 0}, {"time_ms": 0}, {"time_ms": 2**63}, {"simulations": -1},
                   {"simulations": 2**40}, {"seed": -1}, {"network": "connect4.azc"},
                   {"network": game}]:
        raises(az.search, game, **kwargs)
    for value in GARBAGE_VALUES:
        raises(az.search, value)
    over = az.Game("connect4", "4 5 4 5 4 5 4")
    result = az.search(over, net, simulations=10)
    assert result.move is None and result.pv == []


def test_load_records(tmp_path, training_run):
    good = next((training_run / "records").glob("*.azr")).read_bytes()
    cases = {
        "empty.azr": b"",
        "magic.azr": b"AZRC",
        "cut.azr": good[: len(good) // 2],
        "flipped.azr": good[:20] + bytes([good[20] ^ 0xFF]) + good[21:],
        "text.azr": b"not a record file at all",
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        assert isinstance(raises(az.load_records, path), ValueError), name
    assert isinstance(raises(az.load_records, tmp_path / "missing.azr"), OSError)
    empty_folder = tmp_path / "none"
    empty_folder.mkdir()
    assert isinstance(raises(az.load_records, empty_folder), ValueError)
    for value in GARBAGE_VALUES:
        raises(az.load_records, value)
