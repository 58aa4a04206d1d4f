from minifw import ops
from minifw.parallel import gather_along_last_dim, split_along_last_dim


class Attention:
    def __init__(self, config):
        self.config = config.validate()

    def scores(self, query, keys):
        return [sum(q * k for q, k in zip(query, key)) for key in keys]

    def forward(self, query, keys, values):
        weights = ops.softmax(self.scores(query, keys))
        out = [sum(w * v[i] for w, v in zip(weights, values)) for i in range(len(values[0]))]
        if self.config.tensor_model_parallel_size > 1:
            parts = split_along_last_dim(out, self.config.tensor_model_parallel_size)
            out = gather_along_last_dim(parts)
        return ops.round_to_dtype(out, self.config.dtype)
