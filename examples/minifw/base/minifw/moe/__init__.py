from .router import TopKRouter, topk_routing
from .layer import MoELayer
