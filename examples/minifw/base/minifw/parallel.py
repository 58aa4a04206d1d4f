"""Tensor-parallel helpers."""


def split_along_last_dim(values, world_size):
    if len(values) % world_size:
        raise ValueError("size must be divisible by world_size")
    chunk = len(values) // world_size
    return [values[i * chunk:(i + 1) * chunk] for i in range(world_size)]


def gather_along_last_dim(parts):
    return [v for part in parts for v in part]


def scatter_to_sequence_parallel_region(values, world_size, sequence_parallel):
    if not sequence_parallel:
        return [values]
    return split_along_last_dim(values, world_size)
