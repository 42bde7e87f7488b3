"""alphazero.load_records: self-play records of a short training run as the trainer's arrays."""

import re

import numpy as np
import pytest

import alphazero as az
from conftest import run_cli


def test_records_load_with_pi_rows_summing_to_one_and_z_matching_the_results(training_run):
    records = az.load_records(training_run)
    n = len(records)
    assert n > 0 and records.spec == "connect4"
    assert records.planes.shape == (n, 2, 6, 7) and records.planes.dtype == np.float32
    assert records.pi.shape == (n, 7) and records.z.shape == (n,)
    np.testing.assert_allclose(records.pi.sum(axis=1), 1.0, atol=2e-3)
    results = {g.id: g.result for g in records.games}
    truncated = {g.id for g in records.games if g.truncated}
    for i in range(n):
        game = int(records.game_id[i])
        first = 0.0 if game in truncated else results[game]
        expected = first if records.side_to_move[i] == 0 else -first
        assert records.z[i] == expected, f"row {i} of game {game}"


def test_records_agree_with_the_rules_and_the_command_line(training_run):
    records = az.load_records(training_run)
    # Every game replays to its recorded result (a game decided by the rules).
    for g in records.games:
        game = az.Game(records.spec, " ".join(g.moves))
        if g.resigned or g.truncated:
            continue
        assert game.is_over, g
        assert {0: 1, 1: -1, None: 0}[game.winner] == g.result
    # Each row is the position before its move, encoded as Game.planes() encodes it.
    by_id = {g.id: g for g in records.games}
    for i in range(len(records)):
        g = by_id[int(records.game_id[i])]
        game = az.Game(records.spec, " ".join(g.moves[: int(records.ply[i])]))
        assert np.array_equal(game.planes(), records.planes[i])
        assert game.side_to_move == records.side_to_move[i]
        assert game.move_to_action(records.moves[i]) == records.action[i]
        assert g.moves[int(records.ply[i])] == records.moves[i]
        assert records.pi[i][[game.move_to_action(m) for m in game.legal_moves()]].sum() == pytest.approx(records.pi[i].sum())
    # As many positions as `alphazero records list` counts training positions.
    listing = run_cli("records", "list", str(training_run))
    trained = int(re.search(r"(\d+) training positions", listing).group(1))
    games = int(re.search(r"(\d+) games", listing.splitlines()[-1]).group(1))
    assert len(records) == trained and len(records.games) == games
    fast = sum(len(g.moves) for g in records.games) - len(records)
    assert fast > 0, "the playout cap's fast moves are recorded but are no training positions"


def test_one_file_reads_as_the_folder_does(training_run):
    files = sorted((training_run / "records").glob("*.azr"))
    assert len(files) == 1
    one = az.load_records(files[0])
    folder = az.load_records(training_run / "records")
    assert np.array_equal(one.planes, folder.planes) and np.array_equal(one.pi, folder.pi)
    assert one.moves == folder.moves
