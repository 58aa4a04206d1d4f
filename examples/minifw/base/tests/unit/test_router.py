import pytest

from minifw.moe import TopKRouter, topk_routing


class TestTopKRouter:
    @pytest.mark.parametrize("k", [1, 2])
    def test_route_picks_largest(self, moe_config, k):
        moe_config.moe_router_topk = k
        experts, weights = TopKRouter(moe_config).route([0.1, 3.0, 2.0, -1.0])
        assert experts[0] == 1
        assert len(weights) == k

    def test_weights_normalised(self):
        _, weights = topk_routing([1.0, 1.0, 1.0], 2)
        assert abs(sum(weights) - 1.0) < 1e-9
