"""Abstract argument values (docs/formats/evidence-jsonl.md): generic path, and real torch where installed."""

import enum
import sys

import pytest

from fastci_pytest.abstraction import abstract_arguments, abstract_value, argument_names, int_bucket, knob_text


class Mode(enum.Enum):
    TRAIN = 1
    EVAL = 2


class FakeDevice:
    type = "xpu"


class DuckArray:
    """Not torch, not numpy: anything with dtype and shape is abstracted like a tensor."""

    def __init__(self, dtype, shape):
        self.dtype = dtype
        self.shape = shape
        self.device = FakeDevice()


class Exploding:
    @property
    def dtype(self):
        raise RuntimeError("lazy tensor not materialised")

    shape = (1,)


@pytest.mark.parametrize("value,text", [
    (0, "int[0]"), (1, "int[1]"), (2, "int[2-3]"), (3, "int[2-3]"), (4, "int[4-7]"), (1000, "int[512-1023]"),
    (1024, "int[1024-2047]"), (-5, "int[-4--7]"),
])
def test_ints_are_bucketed_by_powers_of_two(value, text):
    assert int_bucket(value) == text
    assert abstract_value(value) == text


def test_scalars_flags_and_strings():
    assert abstract_value(True) == "True" and abstract_value(False) == "False"
    assert abstract_value(None) == "None"
    assert abstract_value(0.5) == "float"
    assert abstract_value("gelu") == "gelu"
    assert abstract_value("x" * 33) == "str"
    assert abstract_value(Mode.EVAL) == "Mode.EVAL"


def test_duck_typed_arrays_and_containers():
    assert abstract_value(DuckArray("bfloat16", (2, 3, 4))) == "tensor[bf16,3,xpu,strided]"
    assert abstract_value(DuckArray("float16", (8,))) == "tensor[fp16,1,xpu,strided]"
    assert abstract_value((1, 64)) == "tuple(int[1],int[64-127])"
    assert abstract_value([1, 2, 3, 4, 5]) == "list"
    assert abstract_value(object()) == "object"
    assert abstract_value(Exploding()) == "Exploding"  # a raising property must not break the test


def test_arguments_in_parameter_order_with_varargs_and_kwargs():
    def layer(x, scale, *rest, flag=False, **options):
        return sys._getframe()

    frame = layer(DuckArray("float32", (2, 2)), 3, "a", flag=True, mode=Mode.TRAIN, size=7)
    # code-object order: positional, keyword-only, *args, **kwargs
    assert abstract_arguments(frame, argument_names(layer.__code__)) == (
        "x:tensor[fp32,2,xpu,strided];scale:int[2-3];flag:True;rest:tuple(a);options:{mode=Mode.TRAIN,size=int[4-7]}")


def test_knob_text():
    assert knob_text(8) == "8" and knob_text(True) == "True" and knob_text("bf16") == "bf16"
    assert knob_text(Mode.TRAIN) == "Mode.TRAIN" and knob_text([1, 2]) == "[1,2]" and knob_text(object()) == "object"


def test_real_torch_tensors():
    torch = pytest.importorskip("torch")
    assert abstract_value(torch.zeros(2, 3, dtype=torch.bfloat16)) == "tensor[bf16,2,cpu,strided]"
    assert abstract_value(torch.zeros(4)) == "tensor[fp32,1,cpu,strided]"
    assert abstract_value(torch.nn.Parameter(torch.zeros(2, 2, dtype=torch.float16))) == "tensor[fp16,2,cpu,strided]"
    assert abstract_value(torch.zeros(2, 2).to_sparse()) == "tensor[fp32,2,cpu,sparse_coo]"
    assert abstract_value(torch.float16) == "dtype[fp16]"
    assert abstract_value(torch.device("cpu")) == "device[cpu]"
    assert knob_text(torch.bfloat16) == "torch.bfloat16"
