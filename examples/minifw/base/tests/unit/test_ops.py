import pytest

from minifw import ops


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_softmax_sums_to_one(dtype):
    probs = ops.round_to_dtype(ops.softmax([1.0, 2.0, 3.0]), dtype)
    assert abs(sum(probs) - 1.0) < 0.02


@pytest.mark.parametrize("x,expected", [(0.0, 0.0), (1.0, 0.841)])
def test_gelu(x, expected):
    assert abs(ops.gelu(x) - expected) < 1e-3


def test_layer_norm_is_centered():
    assert abs(sum(ops.layer_norm([1.0, 2.0, 3.0]))) < 1e-9
