"""Drives a Recorder without pytest (Python 3.9+), on the fixture package, for test_backends.py.

usage: backend_driver.py EVIDENCE_DIR FIXTURE_DIR BACKEND
"""

import sys

from fastci_pytest.recorder import Recorder


def main():
    directory, fixture, backend = sys.argv[1:4]
    settings = {"directory": directory, "repository_root": fixture, "sources": [fixture], "stack_depth": 3,
                "max_contexts": 8, "max_calls": 32, "backend": backend, "commit": "driver"}
    recorder = Recorder(settings, "pytest")
    recorder.start()
    from minitrain.arrays import Array
    from minitrain.layers import Block, TransformerConfig, linear
    for dtype in ("float32", "bfloat16"):
        recorder.begin_test("driver::%s" % dtype)
        for flag in (False, True):
            linear(Array(2, 4, dtype), Array(4, 4), sequence_parallel=flag)
        Block(TransformerConfig(num_layers=2, hidden_size=4)).forward(Array(2, 4, dtype))
        recorder.write_test_data(recorder.end_test())
    recorder.stop()
    print(recorder.close())


if __name__ == "__main__":
    main()
