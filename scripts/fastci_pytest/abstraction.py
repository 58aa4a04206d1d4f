"""Abstract values of function arguments (docs/formats/evidence-jsonl.md, "Abstract arguments").

Tensors are recognised by duck typing, never by importing torch: a value whose type comes from a
module named `torch...` and has `dtype` and `dim()` is a torch tensor; any other value whose type has
`dtype` and `shape` (or `ndim`) is an array of some other library and is abstracted the same way.
"""

import enum

MAX_EXACT_STRING = 32
MAX_DICT_ITEMS = 16  # keyword-argument dicts up to this size are spelled out
_SHORT_DTYPES = {
    "float32": "fp32", "float": "fp32", "float16": "fp16", "half": "fp16", "bfloat16": "bf16",
    "float64": "fp64", "double": "fp64",
}


def dtype_name(dtype):
    """Short dtype name: torch.bfloat16 -> bf16, numpy float32 -> fp32, int64 stays int64."""
    text = str(getattr(dtype, "name", None) or dtype)
    if text.startswith("torch."):
        text = text[len("torch."):]
    return _SHORT_DTYPES.get(text, text)


def int_bucket(value):
    """Powers-of-two bucket: int[0], int[1], int[2-3], int[4-7], ...; negatives mirrored."""
    if value == 0:
        return "int[0]"
    magnitude = abs(value)
    low = 1 << (magnitude.bit_length() - 1)
    high = (low << 1) - 1
    sign = "-" if value < 0 else ""
    if low == high:
        return "int[%s%d]" % (sign, low)
    return "int[%s%d-%s%d]" % (sign, low, sign, high)


def _torch_value(value, type_name):
    if type_name == "dtype":
        return "dtype[%s]" % dtype_name(value)
    if type_name == "device":
        return "device[%s]" % getattr(value, "type", value)
    dim = getattr(value, "dim", None)
    if callable(dim) and hasattr(value, "dtype"):
        device = getattr(value, "device", None)
        layout = str(getattr(value, "layout", "strided"))
        return "tensor[%s,%d,%s,%s]" % (
            dtype_name(value.dtype), dim(), getattr(device, "type", device or "cpu"),
            layout[len("torch."):] if layout.startswith("torch.") else layout)
    return type_name


def _array_value(value):
    """Arrays of other libraries (numpy, jax, ...) and array-like objects: same form as tensors."""
    ndim = getattr(value, "ndim", None)
    if ndim is None:
        ndim = len(value.shape)
    device = getattr(value, "device", "cpu")
    device = getattr(device, "type", device)
    layout = getattr(value, "layout", "strided")
    return "tensor[%s,%d,%s,%s]" % (dtype_name(value.dtype), int(ndim), device, layout)


def abstract_value(value, depth=0):
    """Canonical abstract text of one value (never raises)."""
    try:
        if value is None or value is True or value is False:
            return str(value)
        kind = type(value)
        if kind is int:
            return int_bucket(value)
        if kind is float:
            return "float"
        if kind is str:
            return value if len(value) <= MAX_EXACT_STRING else "str"
        module = kind.__module__ or ""
        if module == "torch" or module.startswith("torch."):
            return _torch_value(value, kind.__name__)
        if isinstance(value, enum.Enum):
            return "%s.%s" % (kind.__name__, value.name)
        if isinstance(value, bool):
            return str(bool(value))
        if isinstance(value, int):
            return int_bucket(int(value))
        if isinstance(value, float):
            return "float"
        if hasattr(value, "dtype") and (hasattr(value, "shape") or hasattr(value, "ndim")):
            return _array_value(value)
        if kind in (tuple, list) and depth == 0 and len(value) <= 4:
            inner = ",".join(abstract_value(item, depth + 1) for item in value)
            return "%s(%s)" % (kind.__name__, inner)
        return kind.__name__
    except Exception:  # a property that raises must not break the test under measurement
        return type(value).__name__


def argument_names(code):
    """Parameter names in code-object order: positional, keyword-only, *args, **kwargs."""
    count = code.co_argcount + code.co_kwonlyargcount
    flags = code.co_flags
    if flags & 0x04:  # CO_VARARGS
        count += 1
    if flags & 0x08:  # CO_VARKEYWORDS
        count += 1
    return code.co_varnames[:count]


def abstract_arguments(frame, names):
    """`name:value` pairs joined by `;` for the arguments a frame was called with."""
    values = frame.f_locals
    parts = []
    for name in names:
        if name in values:
            value = values[name]
            if type(value) is dict and len(value) <= MAX_DICT_ITEMS:
                items = sorted(value.items(), key=lambda item: str(item[0]))
                text = ",".join("%s=%s" % (key, abstract_value(item, 1)) for key, item in items)
                parts.append("%s:{%s}" % (name, text))
            else:
                parts.append("%s:%s" % (name, abstract_value(value)))
    return ";".join(parts)


def knob_text(value):
    """Workload knob value as a string: scalars exactly, torch dtypes by name, other objects by class."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return str(value)
    if isinstance(value, enum.Enum):
        return "%s.%s" % (type(value).__name__, value.name)
    module = type(value).__module__ or ""
    if module == "torch" and type(value).__name__ in ("dtype", "device"):
        return str(value)
    if isinstance(value, (tuple, list)) and len(value) <= 8:
        return "[%s]" % ",".join(knob_text(v) for v in value)
    return type(value).__name__
