#!/usr/bin/env python3
"""Xiangqi material-winning positions classified by ElephantEye, never by this project's code,
and the measure of a UCCI engine on them.

`make` plays random games with Fairy-Stockfish's move generator (pyffish; captures preferred
half of the time, as scripts/xiangqi-mates-in-one.py) and, at random plies, keeps positions
where the side to move has one clearly material-winning move and no other: the material on the
board is about even (|balance| <= 1 on the scale R=9 H=4 C=4.5 A=2 E=2 P=1, kings not counted),
the side to move is not in check and has no mate (no move that leaves the opponent without a
legal move, no mate score in ElephantEye's search), and ElephantEye, at a fixed depth (a depth,
not a time, so a loaded machine gives the same answers), scores every legal move (the move
played, then `go depth D-1` from the opponent's side, negated): the best scores at least --win,
the winning moves are those within --tie of the best, every other move scores at least --gap
below the best and at most --rest, and each winning move followed by ElephantEye's line wins
at least --gain of material on the scale above (counted after an opponent's move: a move that
only saves a piece, or an attack ElephantEye likes, is no material win). ElephantEye's units
are its own: a rook is worth about 200-250, a horse or a cannon about 90-100, a pawn 10-40,
an advisor or elephant about 20 (its piece-square tables), so the default --win 150 is a
rook, or a horse or cannon with more to come, and --gap and --rest 100 are a horse or cannon.
Moves are ICCS (ranks 0-9), as ElephantEye and `alphazero ucci` read and print them.

`mates` keeps, from the same kind of random games (at most one position of each length a
game), mates in two and three moves of the side to move (3 and 5 plies; quiet moves allowed;
a side left without a legal move loses, checkmated or stalemated) with no shorter mate, and
every first move of such a mate: ElephantEye scores the root at --depth (a mate in at most
the longest length kept; no mate in one: no move leaves the opponent without a legal move),
then each move at --depth - 1; each move it scores as a mate at most 4 plies longer than the
root's (it stops at the first mate it finds, which may be longer) is searched exactly, every move
and every defence of Fairy-Stockfish's move generator (ElephantEye's move first, for speed),
for the shortest mate it forces. The position's length is the shortest of those.

`measure` sends each position to a UCCI engine (`position fen FEN`, `go movetime N`) and counts
the moves that are among the position's winning (or mating) moves, by length for a mates
file; with --eleeye it also gives ElephantEye's score of each missed move and the material it
wins with ElephantEye's line after it (the scale above; "mate" when ElephantEye finds that it
mates; for a mates file, the plies of ElephantEye's mate after the move, or its score).

    python3 -m venv /tmp/ffish && /tmp/ffish/bin/pip install pyffish
    /tmp/ffish/bin/python scripts/xiangqi-material.py make --eleeye /path/to/eleeye \\
        --depth 6 --positions 40 --seed 1 > material.tsv
    python3 scripts/xiangqi-material.py measure --positions material.tsv \\
        --engine "alphazero ucci --model models/xiangqi.azc" --movetime-ms 1000 \\
        --eleeye /path/to/eleeye
    /tmp/ffish/bin/python scripts/xiangqi-material.py mates --eleeye /path/to/eleeye \\
        --depth 7 --moves 2 3 --positions 30 --skip 30 --seed 1 > mates.tsv

The files are measurement data: never training input.
"""
import argparse
import os
import random
import sys

from engine_process import EngineProcess

VARIANT = "xiangqi"
VALUES = {"r": 9, "n": 4, "h": 4, "c": 4.5, "a": 2, "b": 2, "e": 2, "p": 1}
MATE = 9800  # ElephantEye: mate scores are 10000 less the plies (its WIN_VALUE is 9800)


def iccs(uci: str) -> str:
    """Fairy-Stockfish's xiangqi coordinates (ranks 1-10) as ICCS (ranks 0-9)."""
    i = 1
    while uci[i].isdigit():
        i += 1
    src, dst = uci[:i], uci[i:]
    return f"{src[0]}{int(src[1:]) - 1}{dst[0]}{int(dst[1:]) - 1}"


def points(fen: str) -> dict[str, str]:
    """The pieces of the FEN's board by ICCS point (a0-i9)."""
    out = {}
    for r, row in enumerate(fen.split(" ")[0].split("/")):
        f = 0
        for c in row:
            if c.isdigit():
                f += int(c)
            else:
                out[f"{'abcdefghi'[f]}{9 - r}"] = c
                f += 1
    return out


def material(fen: str, moves: tuple = ()) -> float:
    """Material of the side to move less the opponent's (kings not counted), after `moves`
    (ICCS, played as they are: no check of their legality)."""
    board = points(fen)
    for mv in moves:
        board[mv[2:]] = board.pop(mv[:2])
    red = sum(VALUES.get(c.lower(), 0) for c in board.values() if c.isupper())
    black = sum(VALUES.get(c, 0) for c in board.values() if c.islower())
    return red - black if fen.split(" ")[1] == "w" else black - red


class Ucci(EngineProcess):
    """A UCCI engine over its protocol."""

    what = "the engine"
    goodbye = "quit"

    def __init__(self, cmd: str, options: tuple = ()):
        super().__init__(cmd)
        self.send("ucci")
        hello = self.read_until(lambda l: l == "ucciok")
        ids = {l.split()[1]: " ".join(l.split()[2:]) for l in hello if l.startswith("id ")}
        self.name = f"{ids.get('name', cmd)} {ids.get('version', '')}".strip()
        for opt in options:
            self.send(f"setoption {opt}")

    def go(self, fen: str, moves: list[str], limit: str):
        """The engine's move (None when it has none), and the score (None when it gives
        none), principal variation and depth of its last `info` for the position `fen` after
        `moves` (ICCS)."""
        self.send(f"position fen {fen}" + (" moves " + " ".join(moves) if moves else ""))
        self.send(f"go {limit}")
        lines = self.read_until(lambda l: l.startswith("bestmove") or l == "nobestmove")
        score, pv, depth = None, [], 0
        for line in lines:
            words = line.split()
            if words[:1] == ["info"] and "score" in words:
                score = int(words[words.index("score") + 1])
                pv = words[words.index("pv") + 1:] if "pv" in words else []
                depth = int(words[words.index("depth") + 1]) if "depth" in words else 0
        words = lines[-1].split()
        return (words[1] if words[0] == "bestmove" else None), score, pv, depth


def score_after(ee: Ucci, fen: str, mv: str, depth: int):
    """ElephantEye's score of the side to move's move `mv` (ICCS) at `fen`, from the mover's
    side, searching `depth` plies after it, and the line: `mv`, the forced replies followed,
    then ElephantEye's principal variation. A mate is 10000 less its plies from `fen` (its
    negative when the mover is mated), as ElephantEye scores it."""
    line, d = [mv], depth
    while True:
        reply, score, pv, reached = ee.go(fen, line, f"depth {d}")
        # ElephantEye stops after a shallow search when one move is forced (the only legal
        # one, or the only one not mated): the line goes on with it and the search from
        # after it. It stops at a mate too, whose score is final.
        if (reply is None or reached >= d or d <= 1
                or (score is not None and abs(score) >= MATE)):
            break
        line.append(reply)
        d -= 1
    if reply is None or score is None:  # no legal move after the line: a mate
        score = 10_000 - len(line) if len(line) % 2 == 1 else len(line) - 10_000
    else:
        if abs(score) >= MATE:  # plies from the line's end to plies from `fen`
            score += -len(line) if score > 0 else len(line)
        if len(line) % 2 == 1:
            score = -score  # the opponent's score
    return score, line + pv


def move_scores(ee: Ucci, fen: str, legal: list[str], depth: int):
    """ElephantEye's score of each legal move (ICCS) for the side to move and the material
    balance after the move and ElephantEye's line; None when a move mates (the opponent is
    left without a legal move, or ElephantEye finds a mate)."""
    out = {}
    for mv in legal:
        score, line = score_after(ee, fen, mv, depth)
        if score >= MATE:
            return None
        # Counted after an opponent's move: the side's last capture may be taken back.
        out[mv] = (score, material(fen, line[: len(line) // 2 * 2]))
    return out


def classify(ee: Ucci, fen: str, legal: list[str], args):
    """The winning moves (ICCS), the best and the next score and the material won, or None
    when the position does not qualify (see the module's documentation)."""
    ee.send("setoption newgame")
    # A cheap filter first: the best move's score from one search.
    _, root, _, _ = ee.go(fen, [], f"depth {args.depth}")
    if root is None or not args.win <= root < MATE:
        return None
    scores = move_scores(ee, fen, [iccs(m) for m in legal], args.depth - 1)
    if not scores:
        return None
    best = max(s for s, _ in scores.values())
    wins = sorted(m for m, (s, _) in scores.items() if s >= best - args.tie)
    nxt = max((s for s, _ in scores.values() if s < best - args.tie), default=-MATE)
    gain = min(scores[m][1] for m in wins) - material(fen)
    if best < args.win or nxt > min(best - args.gap, args.rest) or gain < args.gain:
        return None
    return wins, best, nxt, gain


def make(args) -> None:
    import pyffish as sf

    rng = random.Random(args.seed)
    ee = Ucci(args.eleeye, ("usebook false",))
    start = sf.start_fen(VARIANT)
    print("# Xiangqi positions with one clearly material-winning move, classified by "
          f"{ee.name} (never")
    print("# by this project's code) in random games of Fairy-Stockfish (pyffish "
          f"{'.'.join(map(str, sf.version()))}):")
    print(f"#   scripts/xiangqi-material.py make --depth {args.depth} --win {args.win} "
          f"--gap {args.gap} --tie {args.tie} --rest {args.rest} --gain {args.gain:g} "
          f"--balance {args.balance:g} --positions {args.positions} --per-game "
          f"{args.per_game} --sample {args.sample:g} --skip {args.skip} --seed {args.seed}")
    print("# Measurement data, never training input. Columns (tab-separated): FEN (side to move")
    print("# 'w' red, 'b' black); the winning moves (ICCS, within --tie of the best); ElephantEye's")
    print("# score of the best move (its units: a rook about 200-250, a horse or cannon 90-100);")
    print("# its score of the best other move; the material balance for the side to move")
    print("# (R=9 H=4 C=4.5 A=2 E=2 P=1); the least material the winning moves win with")
    print("# ElephantEye's line; the game and ply the position came from.")
    print("fen\tmoves\tscore\tnext\tbalance\tgain\tnote")
    found, game, tried = 0, 0, 0
    seen = set()
    while found < args.positions:
        game += 1
        kept = 0
        for ply, fen, legal, sample in random_game(sf, rng, start, args):
            if found >= args.positions:
                break
            board = fen.split(" ")[0]
            if (sample and ply >= args.skip and kept < args.per_game and board not in seen
                    and len(legal) > 1 and abs(material(fen)) <= args.balance
                    and not sf.gives_check(VARIANT, fen, [])
                    and all(sf.legal_moves(VARIANT, fen, [m]) for m in legal)):
                seen.add(board)
                tried += 1
                # The counters are dropped: the position is what is tested.
                short = " ".join(fen.split(" ")[:2]) + " - - 0 1"
                row = classify(ee, short, legal, args)
                if row:
                    wins, best, nxt, gain = row
                    print(f"{short}\t{' '.join(wins)}\t{best}\t{nxt}\t{material(fen):g}\t"
                          f"{gain:g}\trandom game {game}, ply {ply}", flush=True)
                    found += 1
                    kept += 1
                    print(f"{found} positions ({tried} tried, game {game})", file=sys.stderr)
    ee.close()


def fs(mv: str) -> str:
    """An ICCS move as Fairy-Stockfish's xiangqi coordinates (ranks 1-10)."""
    return f"{mv[0]}{int(mv[1]) + 1}{mv[2]}{int(mv[3]) + 1}"


def replies(sf, fen: str, line: list[str]) -> list[str]:
    """The legal moves (ICCS) after `line` (ICCS), by Fairy-Stockfish's move generator."""
    return [iccs(m) for m in sf.legal_moves(VARIANT, fen, [fs(m) for m in line])]


def mates_within(sf, ee: Ucci, fen: str, line: list[str], left: int) -> bool:
    """Whether the attacker, to move after `line`, mates within `left` plies whatever the
    defender replies. ElephantEye searches `left` + 1 plies: no mate after the full depth is
    a no; its move, when it scores a mate in time, is followed over every defence. Where its
    answer is no proof (it stopped at a longer mate, or at a forced move, or its move does not
    hold), every other legal move is tried (Fairy-Stockfish's move generator)."""
    mv, score, _, reached = ee.go(fen, line, f"depth {left + 1}")
    if mv is None:
        return False
    mate = score is not None and score >= MATE
    if not mate and reached >= left + 1:
        return False
    if all_defences_lose(sf, ee, fen, line + [mv], left - 1):
        return True
    return any(all_defences_lose(sf, ee, fen, line + [m], left - 1)
               for m in replies(sf, fen, line) if m != mv)


def all_defences_lose(sf, ee: Ucci, fen: str, line: list[str], left: int) -> bool:
    """Whether the defender, to move after `line`, has no legal move, or every reply lets the
    attacker mate within `left` - 1 more plies (mates_within)."""
    defences = replies(sf, fen, line)
    if not defences:
        return True
    if left < 2:
        return False
    # ElephantEye's defence first: it refutes a move that does not mate, mostly.
    best, _, _, _ = ee.go(fen, line, f"depth {left + 1}")
    defences = [best] + [r for r in defences if r != best] if best in defences else defences
    return all(mates_within(sf, ee, fen, line + [r], left - 1) for r in defences)


def mating_moves(sf, ee: Ucci, fen: str, legal: list[str], depth: int, most: int):
    """The shortest mate of the side to move (plies) and every first move of such a mate
    (ICCS), or None when ElephantEye at `depth` scores no mate in `most` plies or fewer at
    the root, or none of the moves it scores as a mate (at `depth` - 1, up to 4 plies longer
    than the root's) mates in time by the exact search (all_defences_lose)."""
    ee.send("setoption newgame")
    _, root, _, _ = ee.go(fen, [], f"depth {depth}")
    if root is None or root < 10_000 - most:
        return None
    plies = 10_000 - root
    shown = {}
    for mv in legal:
        score, _ = score_after(ee, fen, mv, depth - 1)
        # ElephantEye may score a longer mate than the shortest (it stops at the first mate it
        # finds, and a quiet last move shows a ply later): mates up to 4 plies longer are tried.
        if score >= 10_000 - plies - 4 and all_defences_lose(sf, ee, fen, [mv], plies - 1):
            shown[mv] = plies
            while shown[mv] > 3 and all_defences_lose(sf, ee, fen, [mv], shown[mv] - 3):
                shown[mv] -= 2
    if not shown:
        return None
    plies = min(shown.values())
    return plies, sorted(m for m, n in shown.items() if n == plies)


def random_game(sf, rng, start: str, args):
    """One random game of Fairy-Stockfish's move generator from `start`, captures preferred half
    of the time: yields (ply, FEN, legal moves, whether to sample this position) before each
    move, then plays it; at most --max-plies plies, until no legal move is left."""
    fen = start
    for ply in range(args.max_plies):
        legal = sf.legal_moves(VARIANT, fen, [])
        if not legal:
            return
        sample = rng.random() < args.sample
        taken = points(fen)  # a legal move to an occupied point is a capture
        captures = [m for m in legal if iccs(m)[2:] in taken]
        pick = rng.choice(captures) if captures and rng.random() < 0.5 else rng.choice(legal)
        yield ply, fen, legal, sample
        fen = sf.get_fen(VARIANT, fen, [pick])


def make_mates(args) -> None:
    import pyffish as sf

    rng = random.Random(args.seed)
    ee = Ucci(args.eleeye, ("usebook false",))
    start = sf.start_fen(VARIANT)
    wanted = {2 * n - 1: args.positions for n in args.moves}
    print(f"# Xiangqi mates in {' and '.join(map(str, args.moves))} moves of the attacker, "
          f"classified by {ee.name} (never by")
    print("# this project's code) in random games of Fairy-Stockfish (pyffish "
          f"{'.'.join(map(str, sf.version()))}):")
    print(f"#   scripts/xiangqi-material.py mates --depth {args.depth} --moves "
          f"{' '.join(map(str, args.moves))} --positions {args.positions} --sample "
          f"{args.sample:g} --skip {args.skip} --seed {args.seed}")
    print("# Measurement data, never training input. Columns (tab-separated) as mates.tsv:")
    print("# FEN; side to move; the plies of the shortest mate, quiet moves allowed (3: mate in")
    print("# two, 5: mate in three; no position has a shorter one); every first move of such a")
    print("# mate (ICCS); the game and ply the position came from. ElephantEye (no book) scores")
    print("# the root at --depth and each move at --depth - 1; each move it scores as a mate")
    print("# (at most 4 plies longer than the root's, as it stops at the first mate it finds) is")
    print("# searched exactly over Fairy-Stockfish's legal moves, every defence, to a position")
    print("# where the defender has no legal move (a loss in Xiangqi, checkmate or stalemate).")
    print("fen\tside\tplies\tmoves\tnote")
    game, tried = 0, 0
    seen = set()
    while any(wanted.values()):
        game += 1
        kept = set()
        for ply, fen, legal, sample in random_game(sf, rng, start, args):
            board = fen.split(" ")[0]
            # No mate in one (no move that leaves the opponent without a legal move).
            if (sample and ply >= args.skip and board not in seen and len(legal) > 1
                    and all(sf.legal_moves(VARIANT, fen, [m]) for m in legal)):
                seen.add(board)
                tried += 1
                short = " ".join(fen.split(" ")[:2]) + " - - 0 1"
                row = mating_moves(sf, ee, short, [iccs(m) for m in legal], args.depth,
                                   max(p for p, n in wanted.items() if n))
                if row and wanted.get(row[0]) and row[0] not in kept:
                    plies, moves = row
                    side = "red" if fen.split(" ")[1] == "w" else "black"
                    print(f"{short}\t{side}\t{plies}\t{' '.join(moves)}\t"
                          f"random game {game}, ply {ply}", flush=True)
                    wanted[plies] -= 1
                    kept.add(plies)
                    print(f"{wanted} to find ({tried} tried, game {game})", file=sys.stderr)
            if all(p in kept for p, n in wanted.items() if n):
                break  # this game gives no more
    ee.close()


def measure(args) -> None:
    lines = [l.rstrip("\n").split("\t") for l in open(args.positions, encoding="utf-8")
             if not l.startswith("#")]
    head, rows = lines[0], lines[1:]
    col = {name: i for i, name in enumerate(head)}
    mates = "plies" in col  # a mates file (mates): the hits by length too
    engine = Ucci(args.engine)
    good, missed, by_plies = 0, [], {}
    for i, row in enumerate(rows):
        mv, _, _, _ = engine.go(row[0], [], f"movetime {args.movetime_ms}")
        hit = mv in row[col["moves"]].split()
        good += hit
        if mates:
            n = by_plies.setdefault(int(row[col["plies"]]), [0, 0])
            n[0] += hit
            n[1] += 1
        if not hit:
            missed.append((i + 1, mv, row))
    engine.close()
    n = len(rows)
    print(f"{good}/{n} positions ({100.0 * good / max(n, 1):.1f}%)")
    for plies, (hits, total) in sorted(by_plies.items()):
        print(f"  mates in {(plies + 1) // 2} ({plies} plies): {hits}/{total}")
    ee = Ucci(args.eleeye, ("usebook false",)) if args.eleeye else None
    for i, mv, row in missed:
        note = ""
        if ee and mv and mates:
            score, _ = score_after(ee, row[0], mv, args.depth - 1)
            note = (f" (ElephantEye: mates in {10_000 - score} plies)" if score >= MATE
                    else f" (ElephantEye {score})")
        elif ee and mv:
            scores = move_scores(ee, row[0], [mv], args.depth - 1)
            score, after = scores[mv] if scores else ("mate", None)
            note = f" (ElephantEye {score}"
            note += f", material {after - material(row[0]):+g})" if scores else ")"
        if mates:
            print(f"  row {i} ({row[-1]}): played {mv}{note}; mating in {row[col['plies']]} "
                  f"plies {row[col['moves']]}")
        else:
            print(f"  row {i} ({row[-1]}): played {mv}{note}; winning {row[1]} ({row[2]}, "
                  f"next {row[3]}, material {row[5]:s})")
    if ee:
        ee.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make", help="classify positions of random games with ElephantEye")
    mk.add_argument("--eleeye", default=os.environ.get("ELEEYE", "eleeye"),
                    help="ElephantEye's command (default: $ELEEYE, else eleeye on the PATH)")
    mk.add_argument("--depth", type=int, default=6, help="ElephantEye's depth at the root")
    mk.add_argument("--win", type=int, default=150, help="least score of the best move")
    mk.add_argument("--gap", type=int, default=100, help="least gap to every other move")
    mk.add_argument("--tie", type=int, default=50, help="moves this close to the best also win")
    mk.add_argument("--rest", type=int, default=100, help="most score of every other move")
    mk.add_argument("--gain", type=float, default=3, help="least material won by each winning "
                    "move and ElephantEye's line after it")
    mk.add_argument("--balance", type=float, default=1, help="most material balance")
    mk.add_argument("--positions", type=int, default=40)
    mk.add_argument("--per-game", type=int, default=1)
    mk.add_argument("--sample", type=float, default=0.2, help="share of the plies tried")
    mk.add_argument("--skip", type=int, default=10, help="plies of each game not used")
    mk.add_argument("--max-plies", type=int, default=200)
    mk.add_argument("--seed", type=int, default=1)
    mt = sub.add_parser("mates", help="mates in two and three classified by ElephantEye")
    mt.add_argument("--eleeye", default=os.environ.get("ELEEYE", "eleeye"),
                    help="ElephantEye's command (default: $ELEEYE, else eleeye on the PATH)")
    mt.add_argument("--depth", type=int, default=8, help="ElephantEye's depth at the root")
    mt.add_argument("--moves", type=int, nargs="+", default=[2, 3],
                    help="the lengths kept, in moves of the attacker (a mate in N: 2N-1 plies)")
    mt.add_argument("--positions", type=int, default=30, help="positions of each length")
    mt.add_argument("--sample", type=float, default=0.2, help="share of the plies tried")
    mt.add_argument("--skip", type=int, default=10, help="plies of each game not used")
    mt.add_argument("--max-plies", type=int, default=200)
    mt.add_argument("--seed", type=int, default=1)
    ms = sub.add_parser("measure", help="a UCCI engine's moves on the positions")
    ms.add_argument("--positions", required=True)
    ms.add_argument("--engine", default="alphazero ucci",
                    help="the engine's command line (a --model in it chooses the network)")
    ms.add_argument("--movetime-ms", type=int, default=1000)
    ms.add_argument("--eleeye", help="ElephantEye's command: score each missed move")
    ms.add_argument("--depth", type=int, default=6, help="as make's --depth (mates: 8)")
    args = ap.parse_args()
    {"make": make, "mates": make_mates, "measure": measure}[args.cmd](args)


if __name__ == "__main__":
    main()
