"""minifw: a miniature transformer training framework (pure Python, no GPU)."""
from minifw.config import TransformerConfig
from minifw.model import GPTModel

__all__ = ["TransformerConfig", "GPTModel"]
