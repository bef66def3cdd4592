"""randperm: a random permutation of 0..n-1, drawn as PyTorch's CPU kernel draws it.

Layer: aten/native. In: the schema's arguments. Out: a fresh tensor (randperm,
randperm.generator) or `out` resized to [n]. Mirrors ATen/native/TensorFactories.cpp
(randperm's empty + randperm_out, randperm_out_cpu, randperm_cpu and
check_supported_max_int_with_precision). The words come from the generator's
mt19937 engine, PyTorch's own stream (Note [Random values are PyTorch's] in
distributions.py), so a seed gives PyTorch's permutation.
"""

from __future__ import annotations

import numpy as np

from ember import random as _random
from ember._c10 import dtypes
from ember.aten.native import at
from ember.aten.native.common import as_dtype
from ember.aten.native.factories import checked_value

__all__ = ["randperm", "randperm_generator", "randperm_out", "randperm_generator_out"]

# randperm_cpu draws `random() % (n - i)` below this n, the 64-bit inside-out shuffle above
_SMALL_N = 0xFFFF_FFFF // 20
# check_supported_max_int_with_precision: the largest n each floating type holds exactly
_FLOAT_LIMITS = {
    dtypes.float16: ((1 << 11) + 1, "2049"),
    dtypes.float32: ((1 << 24) + 1, "2^24+1"),
    dtypes.float64: ((1 << 53) + 1, "2^53+1"),
}
_FLOAT_NAMES = {dtypes.float16: "Half", dtypes.float32: "Float", dtypes.float64: "Double"}
# AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16)
_SUPPORTED = frozenset(
    (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
    + (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
)


def randperm(n, dtype, layout, device, pin_memory):
    return randperm_generator(n, None, dtype, layout, device, pin_memory)


def randperm_generator(n, generator, dtype, layout, device, pin_memory):
    dtype = as_dtype(dtype, dtypes.int64)
    result = at.empty_memory_format([n], dtype, layout, device, pin_memory, None)
    return at.randperm_generator_out(n, generator, result)


def randperm_out(n, out):
    return at.randperm_generator_out(n, None, out)


def randperm_generator_out(n, generator, out):
    """randperm_out_cpu: checks, resize_ to [n], then the shuffle in out's dtype."""
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    if generator is not None and generator.device != out.device:
        raise RuntimeError(
            f"Expected a '{out.device}' generator device but found '{generator.device}'"
        )
    _check_supported_max_int_with_precision(n, out.dtype)
    at.resize_(out, [n], None)
    if out.dtype not in _SUPPORTED:
        raise NotImplementedError(
            f"\"randperm\" not implemented for '{dtypes.scalar_type_name(out.dtype)}'"
        )
    if out.device.type != "meta" and n > 0:
        generator = generator if generator is not None else _random.default_generator
        out.ndarray()[...] = _permutation(n, generator).astype(out.dtype.np_dtype)
    return out


def _check_supported_max_int_with_precision(n: int, dtype) -> None:
    checked_value(n - 1 if n > 0 else n, dtype)  # at::scalar_tensor(n - 1, options)
    limit = _FLOAT_LIMITS.get(dtype)
    if limit is not None and n > limit[0]:
        raise RuntimeError(f"n cannot be greater than {limit[1]} for {_FLOAT_NAMES[dtype]} type.")


def _permutation(n: int, generator) -> np.ndarray:
    """randperm_cpu's two shuffles, word for word."""
    result = list(range(n))
    if n < _SMALL_N:
        # swap i with i + random() % (n - i), for i < n - 1
        words = generator.engine.random(n - 1).tolist()
        for i, word in enumerate(words):
            z = i + word % (n - i)
            result[i], result[z] = result[z], result[i]
        return np.array(result, dtype=np.int64)
    # inside-out Fisher-Yates on random64() = (first word << 32) | second word
    words = generator.engine.random(2 * n).tolist()
    for i in range(n):
        z = ((words[2 * i] << 32) | words[2 * i + 1]) % (i + 1)
        result[i] = result[z]
        result[z] = i
    return np.array(result, dtype=np.int64)
