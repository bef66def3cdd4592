"""The other in-place random kernels (cauchy_, exponential_, geometric_, log_normal_) and
normal with tensor mean or std.

Layer: aten/native. In: the full schema argument list. Out: `self` filled in
TensorIterator's order (memory order) with PyTorch's values for the generator's state,
after PyTorch's checks (a failed check changes nothing, the generator included); normal's
new tensors. Mirrors ATen/native/DistributionTemplates.h (the *_impl_ checks, normal_impl
and normal_out_impl), cpu/DistributionTemplates.h (the kernels: one value at a time
through a `<double>` distribution, then cast to the tensor's type),
core/DistributionsHelper.h and core/TransformationHelper.h.

Note [Distributions in double, one element at a time]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
These kernels draw one double uniform per element (two words: random64) and transform it
in double with the C library's log1p / log / tan / exp: Python's `math` functions are
those same libm calls, where NumPy's vectorised ones may differ in the last bit. Where
PyTorch's compiler fuses `a * b + c` (cauchy's `median + sigma * tan(.)`, normal's
`value * std + mean`), ember rounds once too (distributions.fma). The double is cast
to the tensor's type as C++ does: half and bfloat16 through float (c10::Half and
c10::BFloat16 are built from a float), integers truncated.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.memory_format import contiguous_format
from ember.aten.memory_overlap import assert_no_internal_overlap
from ember.aten.native import at, distributions
from ember.aten.native.common import type_meta_name
from ember.aten.native.ranges import _cpp, _generator, _has_data, _not_implemented
from ember.aten.native.resize import resize_output
from ember.aten.tensor_iterator import broadcast_shapes

__all__ = [
    "cauchy_",
    "exponential_",
    "geometric_",
    "log_normal_",
    "normal_Tensor_float",
    "normal_float_Tensor",
    "normal_Tensor_Tensor",
    "normal_Tensor_float_out",
    "normal_float_Tensor_out",
    "normal_Tensor_Tensor_out",
    "normal_float_float",
    "normal_float_float_out",
]

_FLOATING = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_REDUCED = (dtypes.float16, dtypes.bfloat16)


def _from_double(values: np.ndarray, dtype) -> np.ndarray:
    """static_cast<scalar_t>(double): half and bfloat16 by way of float."""
    with np.errstate(invalid="ignore", over="ignore"):
        if dtype in _REDUCED:
            return values.astype(np.float32).astype(dtype.np_dtype)
        return values.astype(dtype.np_dtype)


def _fill(self, draw) -> None:
    """The nullary TensorIterator: no internal overlap, then values in memory order."""
    assert_no_internal_overlap(self)
    values = draw(self.numel())
    distributions.write_in_memory_order(self, _from_double(values, self.dtype))


def _uniforms(generator, n: int) -> list:
    return distributions.uniform(_generator(generator), n, dtypes.float64).tolist()


# -- cauchy_ / exponential_ / geometric_ / log_normal_ --------------------------------------


def cauchy_(self, median, sigma, generator):
    """cauchy_impl_: median + sigma * tan(pi * (u - 0.5))."""
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_cpp(sigma)}")
    if self.dtype not in _FLOATING:
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {type_meta_name(self.dtype)}"
        )
    if _has_data(self):

        def draw(n):
            tangents = [math.tan(math.pi * (u - 0.5)) for u in _uniforms(generator, n)]
            return distributions.fma(np.array(tangents, np.float64), sigma, median)

        _fill(self, draw)
    return self


def exponential_(self, lambd, generator):
    """exponential_impl_: -1 / lambda * log1p(-u) (the CPU transformation)."""
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_cpp(lambd)}")
    if _has_data(self):
        assert_no_internal_overlap(self)
        if self.dtype not in _FLOATING:
            raise RuntimeError(
                "Exponential distribution is a continuous probability distribution. dtype "
                f"must be a floating point but you specified {dtypes.scalar_type_name(self.dtype)}"
            )
        scale = -1.0 / lambd
        _fill(self, lambda n: np.array([scale * math.log1p(-u) for u in _uniforms(generator, n)]))
    return self


def _geometric_value(u: float, log_q: float) -> float:
    ratio = (math.log(u) if u > 0.0 else -math.inf) / log_q
    return float(math.ceil(ratio)) if math.isfinite(ratio) else ratio


def _exp(value: float) -> float:
    """libm's exp, inf where it overflows (Python's math.exp raises instead)."""
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def geometric_(self, p, generator):
    """geometric_impl_: ceil(log(u) / log1p(-p)), any real type but bool."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_cpp(p)}")
    if self.dtype is dtypes.bool or self.dtype.is_complex:
        raise _not_implemented("geometric_cpu", self.dtype)
    if _has_data(self):
        log_q = math.log1p(-p)
        _fill(
            self,
            lambda n: np.array([_geometric_value(u, log_q) for u in _uniforms(generator, n)]),
        )
    return self


def log_normal_(self, mean, std, generator):
    """log_normal_impl_: exp of normal_distribution<double>(mean, std), one at a time."""
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_cpp(std)}")
    if self.dtype not in _FLOATING:
        raise _not_implemented("log_normal_cpu", self.dtype)
    if _has_data(self):

        def draw(n):
            gen = _generator(generator)
            normals = distributions.normal(gen, n, dtypes.float64, mean, std, fill=False)
            return np.array([_exp(v) for v in normals.tolist()], np.float64)

        _fill(self, draw)
    return self


# -- normal with a tensor mean or std ----------------------------------------------------


def _check_std(std) -> None:
    if std < 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_cpp(std)}")


def _check_std_tensor(std) -> None:
    """CHECK_NORMAL_TENSOR_STD."""
    if std.dtype.is_complex:
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if std.numel() and std.device.type != "meta" and not at.min(std).ndarray() >= 0:
        raise RuntimeError("normal expects all elements of std >= 0.0")


def normal_Tensor_float_out(mean, std, generator, out):
    _check_std(std)
    resize_output(out, broadcast_shapes(tuple(mean._sizes), tuple(out._sizes)))
    at.normal_(out, 0.0, std, generator)
    return at.add__Tensor(out, mean, 1)


def normal_float_Tensor_out(mean, std, generator, out):
    _check_std_tensor(std)
    mean_tensor = at.full([], mean, out.dtype, None, out.device, None)
    resize_output(out, broadcast_shapes((), tuple(std._sizes)))
    at.normal_(out, 0.0, 1.0, generator)
    return at.add__Tensor(at.mul__Tensor(out, std), mean_tensor, 1)


def normal_Tensor_Tensor_out(mean, std, generator, out):
    _check_std_tensor(std)
    resize_output(out, broadcast_shapes(tuple(mean._sizes), tuple(std._sizes)))
    at.normal_(out, 0.0, 1.0, generator)
    return at.add__Tensor(at.mul__Tensor(out, std), mean, 1)


def _empty_contiguous_like(t):
    return at.empty_like(t, None, None, None, None, contiguous_format)


def normal_Tensor_float(mean, std, generator):
    _check_std(std)
    return normal_Tensor_float_out(mean, std, generator, _empty_contiguous_like(mean))


def normal_float_Tensor(mean, std, generator):
    _check_std_tensor(std)
    return normal_float_Tensor_out(mean, std, generator, _empty_contiguous_like(std))


def normal_Tensor_Tensor(mean, std, generator):
    _check_std_tensor(std)
    shape = broadcast_shapes(tuple(mean._sizes), tuple(std._sizes))
    out = at.empty_memory_format(list(shape), mean.dtype, None, mean.device, None, None)
    return normal_Tensor_Tensor_out(mean, std, generator, out)


def normal_float_float(mean, std, size, generator, dtype, layout, device, pin_memory):
    """normal(mean, std, size): empty(size, options).normal_(mean, std)."""
    result = at.empty_memory_format(list(size), dtype, layout, device, pin_memory, None)
    return at.normal_(result, mean, std, generator)


def normal_float_float_out(mean, std, size, generator, out):
    """result.resize_(size).normal_(mean, std)."""
    at.resize_(out, list(size), None)
    return at.normal_(out, mean, std, generator)
