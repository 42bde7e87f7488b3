"""alphazero.search and alphazero.Network: the game's play search with a shipped network or
the uniform evaluator."""

import threading
import time

import numpy as np
import pytest

import alphazero as az
from conftest import REPO


def test_the_readme_example_searches_gomoku_and_xiangqi(monkeypatch):
    monkeypatch.chdir(REPO)
    gomoku = az.Game("gomoku:15:renju", "h8 h9 i8")
    result = az.search(gomoku, az.Network("models/gomoku-15x15-renju.azc"), simulations=200)
    assert result.move in gomoku.legal_moves()
    xiangqi = az.Game("xiangqi")
    result = az.search(xiangqi, az.Network("models/xiangqi.azc"), simulations=200)
    assert result.move in xiangqi.legal_moves()


def test_search_results_hold_the_move_visits_value_and_pv():
    game = az.Game("connect4", "4 4 4 4 3")
    net = az.Network(REPO / "models" / "connect4.azc")
    result = az.search(game, net, simulations=300, seed=3)
    assert result.simulations == 300
    assert set(result.visits) == set(game.legal_moves())
    assert sum(result.visits.values()) == pytest.approx(1.0, abs=1e-5)
    assert result.policy.shape == (7,) and result.policy.dtype == np.float32
    for move, share in result.visits.items():
        assert result.policy[game.move_to_action(move)] == share
    assert result.pv[0] == result.move and result.action == game.move_to_action(result.move)
    assert -1.0 <= result.value <= 1.0
    # The search is a function of the position, the budget and the seed.
    again = az.search(game, az.Network(REPO / "models" / "connect4.azc"), simulations=300, seed=3)
    assert again.visits == result.visits and again.pv == result.pv


def test_a_won_position_is_proven():
    game = az.Game("connect4", "4 5 4 5 4 5")
    result = az.search(game, simulations=50)
    assert result.move == "4" and result.proven == "win" and result.value == 1.0


def test_uniform_search_and_time_budget():
    game = az.Game("gomoku:9:freestyle")
    timed = az.search(game, time_ms=200)
    assert timed.move in game.legal_moves() and timed.simulations >= 1
    assert az.search(game, simulations=1).simulations == 1


def test_the_gil_is_released_while_searching():
    game = az.Game("gomoku:15")
    net = az.Network(REPO / "models" / "gomoku-15x15-freestyle.azc")
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    start = time.perf_counter()
    az.search(game, net, time_ms=500)
    done.set()
    counter.join()
    during = [t for t in ticks if start < t < start + 0.45]
    assert len(during) > 50, f"{len(during)} ticks of another thread during the search"


def test_networks_refuse_games_they_do_not_fit():
    net8 = az.Network(REPO / "models" / "gomoku-8x8-freestyle.azc")
    assert net8.spec == "gomoku:8:freestyle" and net8.input_shape == (4, 8, 8)
    with pytest.raises(ValueError, match="cannot search gomoku 15x15"):
        az.search(az.Game("gomoku:15"), net8, simulations=10)
    with pytest.raises(ValueError, match="cannot search xiangqi"):
        az.search(az.Game("xiangqi"), net8, simulations=10)
    with pytest.raises(ValueError, match="trained for connect4, not xiangqi"):
        az.Network(REPO / "models" / "connect4.azc", "xiangqi")
    renju = az.Network(REPO / "models" / "gomoku-15x15-freestyle.azc", "gomoku:15:renju")
    assert renju.spec == "gomoku:15:renju"


def test_a_freestyle_network_reads_the_renju_plane_with_zero_weights():
    free = az.Network(REPO / "models" / "gomoku-15x15-freestyle.azc")
    renju = az.Network(REPO / "models" / "gomoku-15x15-freestyle.azc", "gomoku:15:renju")
    # Black f8 g8 h6 h7: h8 is a double-three, which the fifth plane marks.
    moves = "f8 a1 g8 a3 h6 a5 h7 a13"
    planes = az.Game("gomoku:15:renju", moves).planes()
    assert planes.shape == (5, 15, 15) and planes[4][7][7] == 1.0
    logits5, values5 = renju.predict(planes)
    logits4, values4 = free.predict(az.Game("gomoku:15", moves).planes())
    np.testing.assert_allclose(logits5, logits4, atol=1e-4)
    np.testing.assert_allclose(values5, values4, atol=1e-5)


def test_predict_gives_the_networks_logits_and_values():
    net = az.Network(REPO / "models" / "connect4.azc")
    game = az.Game("connect4", "4 4")
    logits, values = net.predict(game.planes())
    # One position: both outputs without the batch axis.
    assert logits.shape == (7,) and values.shape == ()
    batch = np.stack([game.planes(), az.Game("connect4").planes()])
    logits2, values2 = net.predict(batch)
    assert logits2.shape == (2, 7) and values2.shape == (2,)
    np.testing.assert_allclose(logits2[0], logits, atol=1e-5)
    assert all(-1 <= v <= 1 for v in values2)


def test_shipped_networks_are_found_by_spec_and_by_other_boards():
    net = az.Network.shipped("gomoku:15:renju")
    assert net is not None and net.path.name == "gomoku-15x15-renju.azc"
    assert net.spec == "gomoku:15:renju" and net.input_shape[0] == 5
    # A rule with no network of its own plays with the freestyle one of its board.
    standard = az.Network.shipped("gomoku:15:standard")
    assert standard is not None and standard.path.name == "gomoku-15x15-freestyle.azc"
    # A board with no network of its own takes a size-independent one shipped for another
    # board, laid out for this board.
    other = az.Network.shipped("gomoku:12")
    assert other is not None and other.path.name == "gomoku-20x20-freestyle.azc"
    assert other.spec == "gomoku:12:freestyle" and other.input_shape[1:] == (12, 12)
    assert other.num_actions == 144


def test_ctrl_c_ends_a_long_search_with_keyboard_interrupt():
    # Regression: a signal handler never ran while Rust searched, so Ctrl-C was ignored
    # until the budget was spent.
    import os
    import signal

    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        az.search(az.Game("xiangqi"), None, time_ms=60_000)
    assert time.monotonic() - start < 10


def test_a_budget_the_memory_cannot_hold_is_refused():
    # Regression: simulations=2_000_000_000 grew the tree until the allocator aborted.
    with pytest.raises(ValueError, match="simulations must be between 1 and 10000000"):
        az.search(az.Game("connect4"), None, simulations=2_000_000_000)


def test_the_shipped_evaluator_is_what_the_programs_play_with():
    # 15×15 freestyle ships a fast evaluator distilled from its network: the programs play
    # it without --model, and so does Evaluator.shipped.
    fast = az.Evaluator.shipped("gomoku:15")
    assert fast is not None and fast.path.name == "gomoku-15x15-freestyle.azm"
    assert fast.spec == "gomoku:15:freestyle" and "Mixnet" in str(fast)
    game = az.Game("gomoku:15", "h8 i9 h9")
    result = az.search(game, fast, simulations=300, seed=1)
    assert result.move in game.legal_moves() and result.simulations == 300
    # Renju has its own, distilled from the renju network (never freestyle's evaluator).
    renju = az.Evaluator.shipped("gomoku:15:renju")
    assert renju is not None and renju.path.name == "gomoku-15x15-renju.azm"
    assert renju.spec == "gomoku:15:renju"
    # A board without a fast evaluator of its own takes its network.
    assert az.Evaluator.shipped("gomoku:8").path.name == "gomoku-8x8-freestyle.azc"
    # Standard differs from freestyle only in overlines: it takes freestyle's fast evaluator.
    assert az.Evaluator.shipped("gomoku:15:standard").path.name == "gomoku-15x15-freestyle.azm"
    assert az.Evaluator.shipped("xiangqi").path.name == "xiangqi.azc"


def test_a_mixnet_file_evaluates_any_gomoku_board_asked_for_and_nothing_else():
    path = REPO / "models" / "gomoku-15x15-freestyle.azm"
    on_9 = az.Evaluator(path, "gomoku:9:standard")
    assert on_9.spec == "gomoku:9:standard"
    assert az.search(az.Game("gomoku:9:standard"), on_9, simulations=50).simulations == 50
    with pytest.raises(ValueError, match=r"cannot search gomoku 15x15 freestyle: load it with game="):
        az.search(az.Game("gomoku:15"), on_9, simulations=10)
    with pytest.raises(ValueError, match="made for gomoku 15x15 freestyle, not xiangqi"):
        az.Evaluator(path, "xiangqi")
    with pytest.raises(ValueError, match=r"a fast evaluator file \(\.azm\), not a network: load it with alphazero.Evaluator"):
        az.Network(path)
    with pytest.raises(TypeError, match="network must be an alphazero.Network, an alphazero.Evaluator or None, got str"):
        az.search(az.Game("gomoku:15"), "models/gomoku-15x15-freestyle.azm", simulations=10)


def test_a_damaged_evaluator_file_is_a_clear_error(tmp_path):
    data = bytearray((REPO / "models" / "gomoku-15x15-freestyle.azm").read_bytes())
    data[len(data) // 2] ^= 1
    bad = tmp_path / "bad.azm"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        az.Evaluator(bad)
    with pytest.raises(OSError):
        az.Evaluator(tmp_path / "missing.azm")
