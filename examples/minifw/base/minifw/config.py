from dataclasses import dataclass


@dataclass
class TransformerConfig:
    num_layers: int = 2
    hidden_size: int = 8
    num_attention_heads: int = 2
    num_experts: int = 0
    moe_router_topk: int = 2
    tensor_model_parallel_size: int = 1
    sequence_parallel: bool = False
    dtype: str = "fp32"

    def validate(self):
        if self.hidden_size % self.num_attention_heads:
            raise ValueError("hidden_size must be divisible by num_attention_heads")
        if self.num_attention_heads % self.tensor_model_parallel_size:
            raise ValueError("num_attention_heads must be divisible by tensor_model_parallel_size")
        if self.num_experts and self.moe_router_topk > self.num_experts:
            raise ValueError("moe_router_topk must not exceed num_experts")
        return self
