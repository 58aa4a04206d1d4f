from minifw import ops
from minifw.attention import Attention
from minifw.moe import MoELayer


class MLP:
    def __init__(self, config):
        self.config = config

    def forward(self, hidden):
        return [ops.gelu(h) for h in hidden]


class GPTModel:
    def __init__(self, config):
        self.config = config.validate()
        self.attention = Attention(config)
        self.mlp = MoELayer(config) if config.num_experts else MLP(config)

    def forward(self, tokens):
        hidden = ops.layer_norm(tokens)
        for _ in range(self.config.num_layers):
            hidden = self.attention.forward(hidden, [hidden], [hidden])
            hidden = self.mlp.forward(hidden)
        return hidden
