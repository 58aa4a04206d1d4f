from minifw.parallel import gather_along_last_dim, scatter_to_sequence_parallel_region, split_along_last_dim


def test_split_then_gather_round_trips():
    assert gather_along_last_dim(split_along_last_dim([1, 2, 3, 4], 2)) == [1, 2, 3, 4]


def test_sequence_parallel_scatter():
    assert scatter_to_sequence_parallel_region([1, 2], 2, True) == [[1], [2]]
    assert scatter_to_sequence_parallel_region([1, 2], 2, False) == [[1, 2]]
