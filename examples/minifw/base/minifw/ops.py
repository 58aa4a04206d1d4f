"""Numerical building blocks on plain lists."""
import math


def softmax(values):
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


def gelu(x):
    return 0.5 * x * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def layer_norm(values, eps=1e-5):
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / len(values)
    return [(v - mean) / math.sqrt(var + eps) for v in values]


def round_to_dtype(values, dtype):
    digits = {"fp32": 7, "bf16": 2, "fp16": 3}[dtype]
    return [round(v, digits) for v in values]
