import pytest

from minifw import GPTModel


@pytest.mark.parametrize("num_experts", [0, 4])
def test_forward_keeps_shape(config, num_experts):
    config.num_experts = num_experts
    assert len(GPTModel(config).forward([1.0, 2.0, 3.0, 4.0])) == 4
