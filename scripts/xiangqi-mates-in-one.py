#!/usr/bin/env python3
"""Xiangqi mate-in-one positions made and classified by Fairy-Stockfish (pyffish), never by
this project's code: `crates/xiangqi/tests/data/mates-ffish.tsv`, a yardstick of the UCCI
engine (tests/cli_protocols.rs) and a cross-check of our rules and mate search against
another engine's (crates/xiangqi/tests/tactics.rs).

Random games are played with Fairy-Stockfish's move generator (captures preferred half of the
time, so the boards open up); the first position of a game in which the side to move can end
the game at once is kept, with every move that does (checkmate, or a quiet move that leaves
the opponent without a legal move, which also wins in Xiangqi). Moves are ICCS (ranks 0-9).

    python3 -m venv /tmp/ffish && /tmp/ffish/bin/pip install pyffish
    /tmp/ffish/bin/python scripts/xiangqi-mates-in-one.py --positions 100 --seed 1 \\
        > crates/xiangqi/tests/data/mates-ffish.tsv
"""
import argparse
import random

import pyffish as sf

VARIANT = "xiangqi"


def iccs(uci: str) -> str:
    """Fairy-Stockfish's xiangqi coordinates (ranks 1-10) as ICCS (ranks 0-9)."""
    i = 1
    while uci[i].isdigit():
        i += 1
    src, dst = uci[:i], uci[i:]
    return f"{src[0]}{int(src[1:]) - 1}{dst[0]}{int(dst[1:]) - 1}"


def winning_moves(fen: str) -> list[str]:
    """The moves after which the opponent has no legal move (a win in Xiangqi)."""
    out = []
    for mv in sf.legal_moves(VARIANT, fen, []):
        if not sf.legal_moves(VARIANT, fen, [mv]):
            out.append(mv)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-plies", type=int, default=300)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    start = sf.start_fen(VARIANT)
    print("# Mate-in-one positions of Xiangqi made and classified by Fairy-Stockfish")
    print(f"# (pyffish {'.'.join(map(str, sf.version()))}), never by this project's code:")
    print(f"#   scripts/xiangqi-mates-in-one.py --positions {args.positions} --seed {args.seed}")
    print("# Columns (tab-separated) as crates/xiangqi/tests/data/mates.tsv: FEN; side to move;")
    print("# 1 (plies); every move that ends the game at once (ICCS: checkmate, or a move that")
    print("# leaves the opponent no legal move); the game and ply the position came from.")
    print("fen\tside\tplies\tmoves\tnote")
    found, game = 0, 0
    seen = set()
    while found < args.positions:
        game += 1
        # The game goes on from its current FEN (replaying a long move list from the start
        # at every ply is slow; repetition draws do not matter here).
        fen = start
        for ply in range(args.max_plies):
            legal = sf.legal_moves(VARIANT, fen, [])
            if not legal:
                break
            wins = winning_moves(fen)
            board = fen.split(" ")[0]
            if wins and board not in seen:
                seen.add(board)
                side = "red" if fen.split(" ")[1] == "w" else "black"
                # The counters are dropped: the position is what is tested.
                short = " ".join(fen.split(" ")[:2]) + " - - 0 1"
                ms = " ".join(sorted(iccs(m) for m in wins))
                print(f"{short}\t{side}\t1\t{ms}\tFairy-Stockfish random game {game}, ply {ply}")
                found += 1
                break
            captures = [m for m in legal if sf.is_capture(VARIANT, fen, [], m)]
            mv = rng.choice(captures) if captures and rng.random() < 0.5 else rng.choice(legal)
            fen = sf.get_fen(VARIANT, fen, [mv])


if __name__ == "__main__":
    main()
