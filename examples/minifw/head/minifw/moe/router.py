from minifw import ops


def topk_routing(logits, k):
    """Indices and normalised weights of the k largest logits."""
    order = sorted(range(len(logits)), key=lambda i: logits[i], reverse=True)
    chosen = sorted(order[:k])  # stable expert order for all-to-all
    weights = ops.softmax([logits[i] for i in chosen])
    return chosen, weights


class TopKRouter:
    def __init__(self, config):
        self.config = config.validate()
        self.k = config.moe_router_topk

    def route(self, logits):
        return topk_routing(logits, self.k)
