"""Our CPU inference (`Network.predict`, the folded network) against ONNX Runtime on the same
network and the same planes, in one process: for each batch size, rounds that time one and
then the other (CPU seconds of this process over `calls` forward passes each) and report the
median over the rounds of ONNX Runtime's time / ours (above 1: ours is faster).

Both run on one thread (ONNX Runtime with intra- and inter-op threads 1); pin the process to
one core so that the two share it alike:

    pip install ./crates/python onnxruntime
    taskset -c 1 python scripts/inference-vs-onnxruntime.py models/xiangqi.azc --batches 1 8 16 32

Timings on a loaded machine are only meaningful as these ratios.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time

os.environ.setdefault("RAYON_NUM_THREADS", "1")

import numpy as np
import onnxruntime as ort

import alphazero as az


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


def cpu_seconds(f, calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        f()
    return time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="a checkpoint (.azc)")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 8, 16, 32])
    parser.add_argument("--rounds", type=int, default=7, help="alternations per batch size")
    parser.add_argument(
        "--seconds", type=float, default=0.5, help="about how long one side of a round runs"
    )
    args = parser.parse_args()

    net = az.Network(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        onnx_file = os.path.join(tmp, "net.onnx")
        net.export_onnx(onnx_file)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = ort.InferenceSession(
            onnx_file, sess_options=options, providers=["CPUExecutionProvider"]
        )
    print(f"{args.model}: {net.spec}, {net.size[0]}x{net.size[1]}, onnxruntime {ort.__version__}")
    all_planes = positions(net.spec, max(args.batches) * 4, seed=1)
    worst = 0.0
    for batch in args.batches:
        planes = np.ascontiguousarray(all_planes[:batch])
        logits, values = net.predict(planes)
        onnx_logits, onnx_values = session.run(None, {"planes": planes})
        worst = max(
            worst,
            float(np.abs(onnx_logits - logits).max()),
            float(np.abs(onnx_values - values).max()),
        )
        ours = lambda: net.predict(planes)  # noqa: E731
        theirs = lambda: session.run(None, {"planes": planes})  # noqa: E731
        # Calls per side so that one side of a round takes about `seconds`.
        once = max(cpu_seconds(ours, 20), cpu_seconds(theirs, 20)) / 20
        calls = max(1, int(args.seconds / max(once, 1e-6)))
        ratios = []
        for _ in range(args.rounds):
            t_ours = cpu_seconds(ours, calls)
            t_theirs = cpu_seconds(theirs, calls)
            ratios.append(t_theirs / t_ours)
        print(
            f"batch {batch:>3}: onnxruntime/ours {statistics.median(ratios):.2f}x "
            f"(rounds {' '.join(f'{r:.2f}' for r in ratios)}; {calls} calls a side)"
        )
        sys.stdout.flush()
    print(f"largest difference of logits or values: {worst:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
