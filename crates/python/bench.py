"""Search speed from Python against the command line's, on the same positions: a benchmark,
not a test.

    python crates/python/bench.py [--sims 1600] [--repeats 3]

For each position, the Python figure is `alphazero.search` alone (the network loaded before
the clock starts, a fresh one per repetition so that no evaluation is cached from the last);
the command line's is `alphazero analyze --sims N` minus `alphazero analyze --sims 1` (start,
network loading and printing cancel out). Both run the game's play search with the shipped
network on the CPU, so they should agree: Python adds one call, not a per-simulation cost.
Prints simulations per second, the best of the repetitions.

Measured on the 2-core development VM (shared: load average 6.5 while it ran), --sims 1600,
best of 3:

    position                            python sims/s  cli sims/s
    gomoku:15:freestyle h8 h9 i8                2,394       2,379
    xiangqi start                              11,664      12,477
    connect4 4 4 3                             37,167      37,826

(docs/python.md#speed)
"""

import argparse
import os
import subprocess
import time
from pathlib import Path

import alphazero as az

REPO = Path(__file__).resolve().parents[2]
POSITIONS = [
    ("gomoku:15:freestyle", "h8 h9 i8", "models/gomoku-15x15-freestyle.azc"),
    ("xiangqi", "", "models/xiangqi.azc"),
    ("connect4", "4 4 3", "models/connect4.azc"),
]


def alphazero_bin() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return Path(os.environ.get("ALPHAZERO_BIN", target / "release" / "alphazero"))


def python_rate(spec: str, position: str, model: str, sims: int) -> float:
    game = az.Game(spec, position)
    net = az.Network(REPO / model, spec)
    start = time.perf_counter()
    result = az.search(game, net, simulations=sims)
    return result.simulations / (time.perf_counter() - start)


def cli_seconds(spec: str, position: str, model: str, sims: int) -> float:
    name, *options = spec.split(":")
    args = [str(alphazero_bin()), "analyze", "--game", name, "--sims", str(sims),
            "--model", str(REPO / model), "--device", "cpu"]
    if options:
        args += ["--size", options[0], "--rule", options[1]]
    if position:
        args += ["--position", position]
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sims", type=int, default=1600)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'position':<34} {'python sims/s':>14} {'cli sims/s':>11}")
    for spec, position, model in POSITIONS:
        py = max(python_rate(spec, position, model, args.sims) for _ in range(args.repeats))
        cli = max(
            (args.sims - 1)
            / (cli_seconds(spec, position, model, args.sims)
               - cli_seconds(spec, position, model, 1))
            for _ in range(args.repeats)
        )
        label = f"{spec} {position or 'start'}"
        print(f"{label:<34} {py:>14,.0f} {cli:>11,.0f}")


if __name__ == "__main__":
    main()
