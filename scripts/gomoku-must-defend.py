#!/usr/bin/env python3
"""Gomoku must-defend positions classified by Rapfi, never by this project's code, and the
measure of a Gomocup brain on them (freestyle, 15×15).

`make` reads games (PGN of `alphazero arena --pgn` or `alphazero records export`: the
project's own games) and keeps positions where the side to move must defend: Rapfi proves that
the opponent would win if it were the opponent's turn (a four, an open three, a VCF or VCT),
finds neither a forced win nor a forced loss for the side to move, and among the points near
the stones some moves lose and at most `--max-defence-share` of them do not. Every candidate
move (every empty point within two of a stone; a move farther away is a pass, which loses by
the definition of the threat) is played and the opponent's reply searched by Rapfi: a move
after which Rapfi finds a forced win for the opponent (`Eval +M…`) loses, any other is kept
as a defence. A forced win found by a small search (`--quick-nodes`) is as proven as one a
large search finds, so each candidate is searched small first and only the moves it does not
refute get the full `--nodes`. Fives and forced replies to a four are played out here by the
rules (Rapfi answers those without a search, so without an evaluation); a position where Rapfi
gives no evaluation is dropped.

`wins` keeps instead every position of the games where Rapfi proves a forced win for the side
to move (`Eval +M…`): the yardstick of the project's threat search (`alphazero bench tactics`).

`merge` joins the outputs of several `make` runs (side by side on several cores, or over
time), a position kept once. `measure` sends each position to a brain (`BOARD`, its stones as the brain's own and the
opponent's) and counts the moves that are among the position's defences.

    python3 scripts/gomoku-must-defend.py make --games games.pgn --rapfi /path/pbrain-rapfi \\
        --nodes 200000 --positions 100 --seed 1 > part-1.tsv
    python3 scripts/gomoku-must-defend.py make --games more.pgn … --seed 2 > part-2.tsv
    python3 scripts/gomoku-must-defend.py merge part-1.tsv part-2.tsv > must-defend.tsv
    python3 scripts/gomoku-must-defend.py measure --positions must-defend.tsv \\
        --brain "target/release/alphazero gomocup" --turn-ms 1000
    python3 scripts/gomoku-must-defend.py wins --games games.pgn --rapfi /path/pbrain-rapfi \\
        --nodes 200000 > rapfi-wins.tsv

The file is measurement data: never a training input.
"""
import argparse
import collections
import random
import re
import sys
import time

from engine_process import EngineProcess

SIZE = 15
DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))


def parse_pgn(path: str) -> list[list[tuple[int, int]]]:
    """The 15×15 freestyle games of a PGN file as (x, y) moves from the empty board: the
    project's PGN (`alphazero arena --pgn`, `alphazero records export`: moves as `h8`, x = file
    letter a.., y = rank − 1) or the match runner's (`match.py --pgn-out`: moves as `x,y`).
    A game starts at the first tag after a game's moves."""
    games, moves, ok, in_moves = [], [], True, False

    def close():
        if moves and ok:
            games.append(list(moves))

    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("["):
            if in_moves:
                close()
                moves, ok, in_moves = [], True, False
            if line.startswith("[Size "):
                ok = ok and line == f'[Size "{SIZE}"]'
            elif line.startswith("[Rule "):
                ok = ok and line == '[Rule "freestyle"]'
        elif line:
            in_moves = True
            text = re.sub(r"\{[^}]*\}", " ", line)
            for tok in text.split():
                m = re.fullmatch(r"([a-z])(\d+)", tok)
                if m:
                    moves.append((ord(m.group(1)) - ord("a"), int(m.group(2)) - 1))
                    continue
                m = re.fullmatch(r"(\d+),(\d+)", tok)
                if m:
                    moves.append((int(m.group(1)), int(m.group(2))))
    close()
    return games


def line_len(board: dict, x: int, y: int, colour: int, dx: int, dy: int) -> int:
    """Stones of `colour` in a row through (x, y) along (dx, dy), (x, y) counted as one."""
    n = 1
    for s in (1, -1):
        cx, cy = x + s * dx, y + s * dy
        while 0 <= cx < SIZE and 0 <= cy < SIZE and board.get((cx, cy)) == colour:
            n += 1
            cx, cy = cx + s * dx, cy + s * dy
    return n


def five_points(board: dict, colour: int) -> list[tuple[int, int]]:
    """Empty points where `colour` makes five or more (freestyle)."""
    return [
        (x, y)
        for x in range(SIZE)
        for y in range(SIZE)
        if (x, y) not in board
        and any(line_len(board, x, y, colour, dx, dy) >= 5 for dx, dy in DIRS)
    ]


def near(board: dict, dist: int = 2) -> list[tuple[int, int]]:
    """Empty points within `dist` (king moves) of a stone."""
    out = set()
    for sx, sy in board:
        for dx in range(-dist, dist + 1):
            for dy in range(-dist, dist + 1):
                p = (sx + dx, sy + dy)
                if 0 <= p[0] < SIZE and 0 <= p[1] < SIZE and p not in board:
                    out.add(p)
    return sorted(out)


class Brain(EngineProcess):
    """A Gomocup brain over its protocol."""

    what = "the brain"
    goodbye = "END"

    def __init__(self, cmd: str, turn_ms: int, infos: tuple = ()):
        super().__init__(cmd)
        self.send(f"START {SIZE}")
        self.read_until(lambda l: l == "OK")
        for info in (f"timeout_turn {turn_ms}", "timeout_match 0", "rule 0", *infos):
            self.send(f"INFO {info}")

    def think(
        self, board: dict, to_move: int, infos: tuple = ()
    ) -> tuple[tuple[int, int], list[str]]:
        """The brain's move with `to_move` (1 or 2) to play on `board`, and its messages;
        `infos` (`INFO` lines without the word) are sent first."""
        # Rapfi drops a command that arrives in the moment after it prints its move.
        time.sleep(0.06)
        for info in infos:
            self.send(f"INFO {info}")
        self.send("BOARD")
        for (x, y), c in board.items():
            self.send(f"{x},{y},{1 if c == to_move else 2}")
        self.send("DONE")
        lines = self.read_until(lambda l: re.fullmatch(r"\d+\s*,\s*\d+", l) is not None)
        x, y = (int(v) for v in lines[-1].split(","))
        return (x, y), lines[:-1]


def rapfi_eval(rapfi: Brain, board: dict, to_move: int, nodes: int):
    """`win`, `loss` or `other` for `to_move`: the rules for fives and forced blocks, else
    Rapfi's `Eval` (`+M…` win, `-M…` loss) searching `nodes` (`MAX_NODE`); None when Rapfi
    gives no evaluation."""
    other = 3 - to_move
    if five_points(board, to_move):
        return "win"
    threats = five_points(board, other)
    if len(threats) >= 2:
        return "loss"
    if len(threats) == 1:
        after = dict(board)
        after[threats[0]] = to_move
        reply = rapfi_eval(rapfi, after, other, nodes)
        return {"win": "loss", "loss": "win"}.get(reply, reply)
    _, lines = rapfi.think(board, to_move, (f"MAX_NODE {nodes}",))
    evals = [m.group(1) for l in lines for m in [re.search(r"Eval (\S+)", l)] if m]
    if not evals:
        return None
    ev = evals[-1]
    if ev.startswith("+M"):
        return "win"
    if ev.startswith("-M"):
        return "loss"
    return "other"


def fmt(points) -> str:
    return " ".join(f"{x},{y}" for x, y in points)


def make(args) -> None:
    rng = random.Random(args.seed)
    games, sources = [], []
    for path in args.games:
        for i, g in enumerate(parse_pgn(path)):
            games.append(g)
            sources.append(f"{path} game {i + 1}")
    # A node budget, not a time: the same answers on a loaded or an idle machine.
    rapfi = Brain(args.rapfi, 60_000, ("THREAD_NUM 1",))
    print("# Gomoku 15x15 freestyle must-defend positions classified by Rapfi (never by this")
    print("# project's code), from the project's own games (self-play records, arena games):")
    print(f"#   scripts/gomoku-must-defend.py make --games {' '.join(args.games)} "
          f"--nodes {args.nodes} --quick-nodes {args.quick_nodes} --max-defence-share "
          f"{args.max_defence_share} --order {args.order} --window {args.window} "
          f"--positions {args.positions} --per-game {args.per_game} --seed {args.seed}")
    print("# Columns (tab-separated): the moves from the empty board (x,y; black first, the side")
    print("# to move is the next colour); the side to move; every move within two points of a")
    print("# stone after which Rapfi finds no forced win for the opponent (the defences); how")
    print("# many candidate moves were tried; the file, game and ply the position came from.")
    print("moves\tside\tdefences\tcandidates\tnote")
    found = 0
    dropped = collections.Counter()
    order = list(range(len(games)))
    rng.shuffle(order)
    for done, gi in enumerate(order):
        if found >= args.positions:
            break
        if done and done % 10 == 0:
            why = ", ".join(f"{k} {v}" for k, v in sorted(dropped.items()))
            print(f"{done} of {len(games)} games read, {found} positions; dropped: {why}",
                  file=sys.stderr)
        moves = games[gi]
        plies = list(range(args.skip, len(moves)))
        rng.shuffle(plies)
        if args.order == "end":
            # A game is decided where the loser last failed to defend: the plies before its
            # end hold the threats, the random ones rarely (about one position in ten games).
            plies.sort(reverse=True)
        kept, open_plies = 0, 0
        for ply in plies:
            if kept >= args.per_game or found >= args.positions:
                break
            if args.order == "end" and args.window and open_plies >= args.window:
                break  # far enough before the game was decided: few threats are left there
            board = {mv: 1 if i % 2 == 0 else 2 for i, mv in enumerate(moves[:ply])}
            side = 1 if ply % 2 == 0 else 2
            if five_points(board, side) or five_points(board, 3 - side):
                dropped["a five"] += 1
                continue  # a five to make or to block at once: no test of defence
            own = rapfi_eval(rapfi, board, side, args.nodes)
            if own == "other":
                open_plies += 1
            else:
                # The side to move wins itself, or is lost whatever it does.
                dropped[f"decided ({own})" if own else "no evaluation"] += 1
                continue
            if rapfi_eval(rapfi, board, 3 - side, args.nodes) != "win":
                dropped["no threat"] += 1
                continue  # the opponent could not win if it moved now
            candidates = near(board)
            # A position where most moves defend tests little: dropped as soon as the
            # defences outnumber the share allowed, before their (full) searches are all run.
            most = int(args.max_defence_share * len(candidates))
            defences, tried, unknown = [], 0, False
            for mv in candidates:
                if len(defences) > most:
                    break
                after = dict(board)
                after[mv] = side
                tried += 1
                # A forced win Rapfi finds in a small search is as proven as one found in a
                # large one: the full budget goes only to the moves it did not refute.
                reply = "other"
                if args.quick_nodes:
                    reply = rapfi_eval(rapfi, after, 3 - side, args.quick_nodes)
                if reply != "win":
                    reply = rapfi_eval(rapfi, after, 3 - side, args.nodes)
                if reply is None:
                    unknown = True
                    break
                if reply != "win":
                    defences.append(mv)
            if unknown or not defences or len(defences) > most or len(defences) == tried:
                reason = "no evaluation" if unknown else "no defence" if not defences else \
                    f"over {args.max_defence_share:g} of the moves defend"
                dropped[reason] += 1
                continue
            print(f"{fmt(moves[:ply])}\t{'black' if side == 1 else 'white'}\t{fmt(defences)}"
                  f"\t{tried}\t{sources[gi]} ply {ply}", flush=True)
            found += 1
            kept += 1
            print(f"{found} positions ({len(defences)} defences of {tried})", file=sys.stderr)
    rapfi.close()


def wins(args) -> None:
    """Every position of the games (from ply `--skip`, no five to make or block) where Rapfi
    proves a forced win for the side to move (`Eval +M…` within `--nodes`): a yardstick for
    the project's own threat search, never a training input."""
    rapfi = Brain(args.rapfi, 60_000, ("THREAD_NUM 1",))
    print("# Gomoku 15x15 freestyle positions where Rapfi proves a forced win for the side to")
    print("# move (never this project's code), from the project's own games:")
    print(f"#   scripts/gomoku-must-defend.py wins --games {' '.join(args.games)} "
          f"--nodes {args.nodes} --skip {args.skip}")
    print("# Columns (tab-separated): the moves from the empty board (x,y; black first); the side")
    print("# to move; Rapfi's evaluation (+MN: a win in N plies); the file, game and ply.")
    print("moves\tside\teval\tnote")
    found = 0
    for path in args.games:
        for gi, moves in enumerate(parse_pgn(path)):
            for ply in range(args.skip, len(moves)):
                board = {mv: 1 if i % 2 == 0 else 2 for i, mv in enumerate(moves[:ply])}
                side = 1 if ply % 2 == 0 else 2
                if five_points(board, side) or five_points(board, 3 - side):
                    continue  # a five to make or to block: the rules decide, not a search
                _, lines = rapfi.think(board, side, (f"MAX_NODE {args.nodes}",))
                evals = [m.group(1) for l in lines for m in [re.search(r"Eval (\S+)", l)] if m]
                if evals and evals[-1].startswith("+M"):
                    print(f"{fmt(moves[:ply])}\t{'black' if side == 1 else 'white'}\t"
                          f"{evals[-1]}\t{path} game {gi + 1} ply {ply}", flush=True)
                    found += 1
    print(f"{found} positions", file=sys.stderr)
    rapfi.close()


def merge(args) -> None:
    """One set from several `make` outputs: the first file's comments with every file's
    command line, then the rows, a position kept once."""
    comments, commands, rows, seen = [], [], [], set()
    for i, path in enumerate(args.files):
        for line in open(path, encoding="utf-8"):
            line = line.rstrip("\n")
            if line.startswith("#   scripts/"):
                commands.append(line)
            elif line.startswith("#"):
                if i == 0:
                    comments.append(line)
            elif line and not line.startswith("moves\t"):
                moves = line.split("\t")[0]
                if moves not in seen:
                    seen.add(moves)
                    rows.append(line)
    print("\n".join(comments[:2] + commands + comments[2:]))
    print("moves\tside\tdefences\tcandidates\tnote")
    for row in rows:
        print(row)
    print(f"{len(rows)} positions from {len(args.files)} files", file=sys.stderr)


def measure(args) -> None:
    rows = [l.rstrip("\n").split("\t") for l in open(args.positions, encoding="utf-8")
            if not l.startswith("#") and not l.startswith("moves\t")]
    brain = Brain(args.brain, args.turn_ms)
    good, failed = 0, []
    for i, row in enumerate(rows):
        moves = [tuple(int(v) for v in m.split(",")) for m in row[0].split()]
        side = 1 if row[1] == "black" else 2
        defences = {tuple(int(v) for v in m.split(",")) for m in row[2].split()}
        board = {mv: 1 if j % 2 == 0 else 2 for j, mv in enumerate(moves)}
        mv, _ = brain.think(board, side)
        if mv in defences:
            good += 1
        else:
            failed.append((i + 1, mv, row[4]))
    brain.close()
    n = len(rows)
    print(f"{good}/{n} positions defended ({100.0 * good / max(n, 1):.1f}%)")
    for i, mv, note in failed:
        print(f"  row {i} ({note}): played {mv[0]},{mv[1]}, not a defence")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make", help="classify positions of games with Rapfi")
    mk.add_argument("--games", required=True, nargs="+",
                    help="PGN files of 15x15 freestyle games (`alphazero arena --pgn`, "
                    "`alphazero records export`)")
    mk.add_argument("--rapfi", required=True, help="the pbrain-rapfi command")
    mk.add_argument("--nodes", type=int, default=200_000, help="Rapfi's nodes per query")
    mk.add_argument("--quick-nodes", type=int, default=20_000,
                    help="nodes of a first search of each candidate move (0: none); only the "
                    "moves it finds no forced win against get the full --nodes")
    mk.add_argument("--order", choices=("end", "random"), default="end",
                    help="the plies of a game tried: from its last backwards, or at random")
    mk.add_argument("--window", type=int, default=10,
                    help="with --order end, the undecided plies tried before the game moves on "
                    "(0: every ply)")
    mk.add_argument("--max-defence-share", type=float, default=0.5,
                    help="keep a position only when at most this share of its candidate "
                    "moves defend")
    mk.add_argument("--positions", type=int, default=100)
    mk.add_argument("--per-game", type=int, default=2)
    mk.add_argument("--skip", type=int, default=6, help="plies of each game not used")
    mk.add_argument("--seed", type=int, default=1)
    wn = sub.add_parser("wins", help="positions where Rapfi proves a win for the side to move")
    wn.add_argument("--games", required=True, nargs="+", help="PGN files of 15x15 freestyle games")
    wn.add_argument("--rapfi", required=True, help="the pbrain-rapfi command")
    wn.add_argument("--nodes", type=int, default=200_000, help="Rapfi's nodes per position")
    wn.add_argument("--skip", type=int, default=4, help="plies of each game not used")
    mg = sub.add_parser("merge", help="one set from several `make` outputs (to stdout)")
    mg.add_argument("files", nargs="+")
    ms = sub.add_parser("measure", help="a brain's moves on the positions")
    ms.add_argument("--positions", required=True)
    ms.add_argument("--brain", required=True, help="the brain's command line")
    ms.add_argument("--turn-ms", type=int, default=1000)
    args = ap.parse_args()
    {"make": make, "wins": wins, "merge": merge, "measure": measure}[args.cmd](args)


if __name__ == "__main__":
    main()
