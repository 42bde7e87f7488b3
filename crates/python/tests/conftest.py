"""Shared fixtures: the repository, the `alphazero` command and one short training run."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
MODELS = sorted((REPO / "models").glob("*.azc"))


def alphazero_bin() -> Path:
    """The `alphazero` command built from this repository (`$ALPHAZERO_BIN` when set)."""
    if os.environ.get("ALPHAZERO_BIN"):
        return Path(os.environ["ALPHAZERO_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "release" / "alphazero"


def run_cli(*args: str) -> str:
    """Runs `alphazero ARGS…`; its stdout (stderr is shown when it fails)."""
    done = subprocess.run(
        [str(alphazero_bin()), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"alphazero {' '.join(args)}: {done.stderr}"
    return done.stdout


# A Connect Four run of one iteration with a tiny network that has global pooling (3 blocks,
# the third pooled) and a pooled value head, and the playout cap on (its fast moves are
# recorded but not trained on).
TRAIN_SETTINGS = [
    "model.blocks=3",
    "model.channels=16",
    "model.value_hidden=8",
    "model.global_pooling=true",
    "model.value_head=pooled",
    "selfplay.games_per_iteration=12",
    "selfplay.parallel_games=12",
    "selfplay.simulations=16",
    "selfplay.playout_cap.fast_simulations=4",
    "train.batch_size=32",
    "train.steps_per_iteration=2",
    "gating.games=2",
    "gating.simulations=4",
    "eval.solver_every=0",
]


@pytest.fixture(scope="session")
def training_run(tmp_path_factory) -> Path:
    """The folder of a short Connect Four training run (records and networks)."""
    run = tmp_path_factory.mktemp("run") / "r"
    args = ["train", "--game", "connect4", "--run", str(run), "--iterations", "1", "--quiet"]
    for setting in TRAIN_SETTINGS:
        args += ["--set", setting]
    run_cli(*args)
    return run


@pytest.fixture(scope="session")
def conv_policy_run(tmp_path_factory) -> Path:
    """The folder of a one-iteration Xiangqi run whose tiny network has the convolutional
    policy head (`model.policy_head = "conv"`: 50 move-type planes)."""
    run = tmp_path_factory.mktemp("conv") / "r"
    args = ["train", "--game", "xiangqi", "--run", str(run), "--iterations", "1", "--quiet"]
    for setting in [
        "model.policy_head=conv",
        "model.blocks=1",
        "model.channels=8",
        "model.value_hidden=8",
        "selfplay.games_per_iteration=4",
        "selfplay.parallel_games=4",
        "selfplay.simulations=8",
        "selfplay.max_plies=30",
        "train.batch_size=32",
        "train.steps_per_iteration=2",
    ]:
        args += ["--set", setting]
    run_cli(*args)
    return run
