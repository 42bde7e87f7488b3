"""alphazero.Game: every game of the registry by its spec, its moves, outcome, FEN, symmetries
and input planes."""

import random

import numpy as np
import pytest

import alphazero as az

SPECS = ["gomoku:15:renju", "gomoku:9:standard", "gomoku:8", "xiangqi", "connect4"]
XIANGQI_START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


def random_game(spec: str, plies: int, rng: random.Random) -> az.Game:
    """A game of up to `plies` random legal moves (fewer when it ends)."""
    game = az.Game(spec)
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(rng.choice(moves))
    return game


def test_start_positions_of_every_game():
    assert az.GAMES == ["gomoku", "xiangqi", "connect4"]
    counts = {"gomoku:15:renju": 225, "gomoku:9:standard": 81, "gomoku:8": 64,
              "xiangqi": 44, "connect4": 7}
    shapes = {"gomoku:15:renju": (5, 15, 15), "gomoku:9:standard": (4, 9, 9),
              "gomoku:8": (4, 8, 8), "xiangqi": (18, 10, 9), "connect4": (2, 6, 7)}
    for spec in SPECS:
        game = az.Game(spec)
        assert len(game.legal_moves()) == counts[spec], spec
        assert game.side_to_move == 0 and game.ply == 0 and game.moves == []
        assert game.outcome is None and game.winner is None and not game.is_over
        assert game.planes_shape == shapes[spec]
        planes = game.planes()
        assert planes.shape == shapes[spec] and planes.dtype == np.float32
    assert az.Game("gomoku:8").spec == "gomoku:8:freestyle"
    assert az.Game("xiangqi").fen == XIANGQI_START
    assert az.Game("connect4").fen is None


def test_illegal_moves_raise_value_error_with_the_engines_message():
    game = az.Game("gomoku:15:freestyle", "h8")
    with pytest.raises(ValueError, match="illegal move h8: occupied"):
        game.play("h8")
    with pytest.raises(ValueError, match='cannot parse move "z99"'):
        game.play("z99")
    assert game.moves == ["h8"], "a refused move leaves the game unchanged"
    with pytest.raises(ValueError, match="illegal move"):
        az.Game("xiangqi").play("h0h9")


def test_play_undo_outcome_and_winner():
    game = az.Game("connect4", "4 5 4 5 4 5")
    assert game.side_to_move == 0
    game.play("4")
    assert game.outcome == "loss", "after a winning move the side to move has lost"
    assert game.winner == 0 and game.is_over and game.legal_moves() == []
    with pytest.raises(ValueError, match="over"):
        game.play("1")
    assert game.undo() == "4"
    assert game.outcome is None and game.side_to_move == 0
    assert az.Game("connect4").undo() is None


def test_positions_read_as_the_command_line_reads_them():
    game = az.Game("xiangqi", "h2e2 h9g7")
    assert game.moves == ["h2e2", "h9g7"] and game.side_to_move == 0
    again = az.Game("xiangqi", game.fen)
    assert again.legal_moves() == game.legal_moves()
    assert np.array_equal(again.planes(), game.planes())
    with pytest.raises(ValueError, match="looks like a FEN"):
        az.Game("gomoku", "8/8/8 w")
    assert az.Game("gomoku:9:renju", "e5 e6").moves == ["e5", "e6"]


def test_planes_are_from_the_side_to_move():
    game = az.Game("connect4", "4")
    planes = game.planes()
    # Plane 0 holds the side to move's discs: after one move, the opponent's disc is plane 1.
    assert planes[0].sum() == 0 and planes[1, 0, 3] == 1.0
    gomoku = az.Game("gomoku:15", "h8")
    assert gomoku.planes()[3].sum() == 0, "white to move: the colour plane is all zeros"


def test_actions_and_symmetries_commute_with_play():
    rng = random.Random(7)
    for spec in SPECS:
        game = random_game(spec, 6, rng)
        for sym in range(game.num_symmetries):
            image = game.transform(sym)
            assert len(image.moves) == len(game.moves)
            assert sorted(
                image.move_to_action(m) for m in image.legal_moves()
            ) == sorted(
                game.transform_action(sym, game.move_to_action(m)) for m in game.legal_moves()
            ), (spec, sym)
            for move in game.legal_moves()[:5]:
                action = game.move_to_action(move)
                assert game.action_to_move(action) == move
                moved = image.action_to_move(game.transform_action(sym, action))
                image.play(moved)
                image.undo()
        identity = game.transform(0)
        assert np.array_equal(identity.planes(), game.planes())
    mirrored = az.Game("connect4", "1").transform(1)
    assert mirrored.moves == ["7"]
    assert np.array_equal(mirrored.planes(), az.Game("connect4", "1").planes()[:, :, ::-1])


def test_random_games_end_with_an_outcome():
    rng = random.Random(1)
    for spec in ["gomoku:8", "connect4", "gomoku:9:renju"]:
        for _ in range(5):
            game = random_game(spec, 400, rng)
            assert game.is_over and game.legal_moves() == []
            assert game.outcome in ("win", "loss", "draw")
            copy = game.copy()
            assert copy.moves == game.moves and repr(copy) == repr(game)
