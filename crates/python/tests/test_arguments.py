"""Out-of-range numbers, planes that are not float32 or not finite, and the shapes of one
position: the cases a new user met (issue: `OverflowError: out of range integral type
conversion attempted` without the argument's name, NaN planes giving plausible numbers)."""

import numpy as np
import pytest

import alphazero as az
from conftest import REPO


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"simulations": -1}, "simulations"),
        ({"simulations": 0}, "simulations"),
        ({"simulations": 10**12}, "simulations"),
        ({"simulations": 10**30}, "simulations"),
        ({"time_ms": -5}, "time_ms"),
        ({"time_ms": 0}, "time_ms"),
        ({"time_ms": 10**12}, "time_ms"),
        ({"time_ms": -(10**40)}, "time_ms"),
        ({"seed": -1}, "seed"),
        ({"seed": 2**64}, "seed"),
    ],
)
def test_search_numbers_out_of_range_raise_value_error_naming_the_argument(kwargs, name):
    with pytest.raises(ValueError) as info:
        az.search(az.Game("connect4"), None, **kwargs)
    message = str(info.value)
    assert message.startswith(f"{name} must be between "), message
    assert f"got {next(iter(kwargs.values()))}" in message, message
    assert not isinstance(info.value, OverflowError)


def test_search_takes_the_extremes_of_its_ranges():
    game = az.Game("connect4")
    assert az.search(game, None, simulations=1).simulations == 1
    assert az.search(game, None, simulations=4, seed=2**64 - 1).simulations == 4


@pytest.mark.parametrize("call, name", [
    (lambda g: g.transform(-1), "sym"),
    (lambda g: g.transform(2**70), "sym"),
    (lambda g: g.transform(2), "sym"),
    (lambda g: g.action_to_move(-1), "action"),
    (lambda g: g.action_to_move(10**20), "action"),
    (lambda g: g.transform_action(-1, 0), "sym"),
    (lambda g: g.transform_action(0, -3), "action"),
    (lambda g: g.transform_action(0, 7), "action"),
])
def test_game_indexes_out_of_range_raise_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError) as info:
        call(az.Game("connect4"))
    message = str(info.value)
    assert message.startswith(f"{name} must be between 0 and "), message
    # The range comes with the reason: how many the game has.
    assert "connect4 has" in message, message


@pytest.mark.parametrize("kwargs, name", [
    ({"simulations": 1.5}, "simulations"),
    ({"time_ms": "100"}, "time_ms"),
    ({"seed": [1]}, "seed"),
])
def test_numbers_that_are_not_ints_raise_type_error_naming_the_argument(kwargs, name):
    with pytest.raises(TypeError, match=f"^{name} must be an int"):
        az.search(az.Game("connect4"), None, **kwargs)


def test_predict_refuses_non_finite_planes():
    net = az.Network(REPO / "models" / "connect4.azc")
    for bad in [np.nan, np.inf, -np.inf]:
        planes = az.Game("connect4", "4 4").planes()
        planes[0, 5, 3] = bad
        with pytest.raises(ValueError, match="not finite"):
            net.predict(planes)
        with pytest.raises(ValueError, match="not finite"):
            net.predict(np.stack([az.Game("connect4").planes(), planes]))


def test_predict_says_to_cast_planes_of_another_dtype_to_float32():
    net = az.Network(REPO / "models" / "connect4.azc")
    planes = az.Game("connect4", "4 4").planes()
    for dtype in [np.int64, np.float64, np.float16, np.bool_]:
        with pytest.raises(TypeError) as info:
            net.predict(planes.astype(dtype))
        message = str(info.value)
        assert "cast to float32" in message and np.dtype(dtype).name in message, message
        assert "\n" not in message, message
    with pytest.raises(TypeError, match="numpy.asarray"):
        net.predict(planes.tolist())
    # Cast, they give the float32 answer.
    logits, _ = net.predict(planes.astype(np.float64).astype(np.float32))
    np.testing.assert_array_equal(logits, net.predict(planes)[0])


def test_one_position_gives_both_outputs_without_the_batch_axis():
    net = az.Network(REPO / "models" / "connect4.azc")
    planes = az.Game("connect4", "4 4").planes()
    logits, value = net.predict(planes)
    assert logits.shape == (7,) and value.shape == () and value.dtype == np.float32
    batch_logits, values = net.predict(planes[None])
    assert batch_logits.shape == (1, 7) and values.shape == (1,)
    np.testing.assert_allclose(logits, batch_logits[0], atol=1e-6)
    assert float(value) == pytest.approx(float(values[0]), abs=1e-6)


def test_a_training_runs_folder_is_its_champion(training_run):
    net = az.Network(training_run)
    assert net.path.parent == training_run / "networks"
    assert net.path.name.startswith("champion-")


@pytest.mark.parametrize("cls", [az.Network, az.Evaluator])
def test_a_device_the_package_was_built_without_or_unknown_raises_value_error(cls):
    path = REPO / "models" / "connect4.azc"
    # The default package is built without the GPU features: each is refused naming the
    # feature to build with.
    for name, feature in [("wgpu", "wgpu"), ("wgpu:1", "wgpu"), ("cuda", "cuda")]:
        with pytest.raises(ValueError, match=f"--features {feature}"):
            cls(path, device=name)
    with pytest.raises(ValueError, match="unknown device"):
        cls(path, device="tpu")
    with pytest.raises(ValueError, match="--features wgpu"):
        cls.shipped("connect4", device="wgpu")
    on_cpu = cls(path, device="cpu")
    assert az.search(az.Game("connect4"), on_cpu, simulations=8).simulations == 8
