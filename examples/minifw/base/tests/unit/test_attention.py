import pytest

from minifw.attention import Attention


@pytest.mark.parametrize("tp", [1, 2])
@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_attention_output_size(config, tp, dtype):
    config.tensor_model_parallel_size = tp
    config.dtype = dtype
    out = Attention(config).forward([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [3.0, 4.0]])
    assert len(out) == 2
