import pytest

from minifw.config import TransformerConfig


@pytest.fixture
def config():
    return TransformerConfig()


@pytest.fixture
def moe_config(config):
    config.num_experts = 4
    return config
