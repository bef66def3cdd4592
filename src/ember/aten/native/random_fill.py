"""The in-place random kernels: uniform_, normal_, random_, bernoulli_ (and bernoulli).

Layer: aten/native. In: the full schema argument list. Out: `self`, filled in
TensorIterator's order (memory order) with PyTorch's values for the generator's
state (Note [Random values are PyTorch's] in distributions.py), after PyTorch's
checks; a failed check changes nothing, the generator included. Mirrors
ATen/native/Distributions.cpp, DistributionTemplates.h and
cpu/DistributionTemplates.h.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember.aten.memory_overlap import assert_no_internal_overlap
from ember.aten.native import at, distributions
from ember.aten.native.ranges import (
    _FLOAT_DIGITS,
    _FLOAT_NAMES,
    FLOAT_MAX,
    _cpp,
    _generator,
    _has_data,
    _not_implemented,
    _random_into,
    check_from_to_in_range,
    update_from,
)
from ember.aten.native.resize import resize_impl

__all__ = [
    "uniform_",
    "normal_",
    "random_",
    "random__to",
    "random__from",
    "bernoulli",
    "bernoulli__float",
    "bernoulli__Tensor",
    "bernoulli_p",
    "bernoulli_out",
]

_INT64_MAX = (1 << 63) - 1
_FLOAT_LIMIT_NAMES = {
    dtypes.float16: "Half", dtypes.bfloat16: "BFloat16", dtypes.float32: "Float",
    dtypes.float64: "Double",
}  # fmt: skip


_write = distributions.write_in_memory_order


# -- uniform_ / normal_ ---------------------------------------------------------------------


def uniform_(self, low, high, generator):
    """uniform_impl_ and check_uniform_bounds; a complex tensor fills its real view."""
    dtype = self.dtype
    real = dtype.to_real() if dtype.is_complex else dtype
    if real not in _FLOAT_DIGITS:
        raise _not_implemented("check_uniform_bounds", dtype)
    maximum = FLOAT_MAX[real]
    name = _FLOAT_NAMES[real]
    for value, what in ((low, "from"), (high, "to")):
        if not -maximum <= value <= maximum:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    if low > high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_cpp(low)} > "
            f"to={_cpp(high)}"
        )
    if high - low > maximum:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{_FLOAT_LIMIT_NAMES[real]}>::max(), "
            f"but found to={_cpp(high)} and from={_cpp(low)} which result in to-from to "
            "exceed the limit"
        )
    if _has_data(self):
        assert_no_internal_overlap(self)
        count = self.numel() * (2 if dtype.is_complex else 1)
        values = distributions.uniform(_generator(generator), count, real, low, high)
        _write(self, values.view(dtype.np_dtype))
    return self


def normal_(self, mean, std, generator):
    """normal_impl_: std >= 0; a complex tensor fills its real view with std / sqrt(2)."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_cpp(std)}")
    dtype = self.dtype
    real = dtype.to_real() if dtype.is_complex else dtype
    if real not in _FLOAT_DIGITS:
        raise _not_implemented("normal_kernel_cpu", dtype)
    if _has_data(self):
        assert_no_internal_overlap(self)
        count = self.numel() * (2 if dtype.is_complex else 1)
        if dtype.is_complex:
            std = std / np.sqrt(2)
        gen = _generator(generator)
        contiguous = self.is_contiguous()
        values = distributions.normal(gen, count, real, mean, std, fill=contiguous)
        _write(self, values.view(dtype.np_dtype))
    return self


# -- random_ --------------------------------------------------------------------------------


def _random_from_to(self, low, range_, generator):
    if _has_data(self):
        assert_no_internal_overlap(self)
        values = distributions.random_from_to(
            _generator(generator), self.numel(), low, low + range_
        )
        _write(self, values.astype(self.dtype.np_dtype))
    return self


def random__from(self, low, high, generator):
    """random_from_to_impl: [from, to), or [from, the dtype's largest] when to is None."""
    dtype = self.dtype
    if dtype.is_complex:
        raise RuntimeError(
            "random_from_to_impl handles only integral, floating-point and boolean types"
        )
    if high is not None:
        if _has_data(self):
            assert_no_internal_overlap(self)
        return _random_into(self, low, high, generator)
    if dtype in _FLOAT_DIGITS:
        to_inclusive = min(1 << _FLOAT_DIGITS[dtype], _INT64_MAX)
        low = update_from(low, dtype)
        if low >= to_inclusive:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                f"casted to dtype, but got from={low} > to_inc={to_inclusive}"
            )
    elif dtype is dtypes.bool:
        to_inclusive = 1
    else:
        to_inclusive = int(np.iinfo(dtype.np_dtype).max)
    if low == -(1 << 63):
        raise NotImplementedError("ember: random_ over the whole 64-bit range is not supported")
    check_from_to_in_range(low, to_inclusive, dtype)
    return _random_from_to(self, low, to_inclusive - low + 1, generator)


def random__to(self, high, generator):
    return random__from(self, 0, high, generator)


def random_(self, generator):
    """random_kernel: a word (two for 64-bit types) modulo the dtype's span of integers."""
    dtype = self.dtype
    if dtype.is_complex:
        raise _not_implemented("random_kernel_cpu", dtype)
    if _has_data(self):
        assert_no_internal_overlap(self)
        gen = _generator(generator)
        n = self.numel()
        wide = dtype in (dtypes.int64, dtypes.float64)
        words = gen.engine.random64(n) if wide else gen.engine.random(n)
        if dtype is dtypes.bool:
            values = (words & np.uint64(1)).astype(bool)
        elif dtype in _FLOAT_DIGITS:
            values = words % np.uint64((1 << _FLOAT_DIGITS[dtype]) + 1)
        else:
            values = words % np.uint64(int(np.iinfo(dtype.np_dtype).max) + 1)
        _write(self, values.astype(dtype.np_dtype))
    return self


# -- bernoulli ------------------------------------------------------------------------------


def bernoulli__float(self, p, generator):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_cpp(p)}")
    if self.dtype.is_complex:
        raise _not_implemented("bernoulli_scalar_cpu_", self.dtype)
    if _has_data(self):
        assert_no_internal_overlap(self)
        draws = distributions.bernoulli(_generator(generator), self.numel(), p)
        _write(self, draws.astype(self.dtype.np_dtype))
    return self


def bernoulli__Tensor(self, p, generator):
    """bernoulli_tensor_cpu_kernel: p expanded to self; a double p compares a double
    uniform, any other floating p a float one."""
    if not (p.dtype.is_floating_point):
        raise _not_implemented("bernoulli_tensor_cpu_p_", p.dtype)
    if self.dtype.is_complex:
        raise _not_implemented("bernoulli_tensor_cpu_self_", self.dtype)
    expanded = at.expand(p, list(self._sizes), False)
    if _has_data(self):
        assert_no_internal_overlap(self)
        probabilities = _memory_order_of(expanded, self)
        if not ((probabilities >= 0) & (probabilities <= 1)).all():
            raise RuntimeError(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                "message be improved?  If so, please report an enhancement request to PyTorch.)"
            )
        gen = _generator(generator)
        kind = dtypes.float64 if p.dtype is dtypes.float64 else dtypes.float32
        uniforms = distributions.uniform(gen, self.numel(), kind)
        _write(self, (uniforms < probabilities.astype(kind.np_dtype)).astype(self.dtype.np_dtype))
    return self


def _memory_order_of(t, like) -> np.ndarray:
    """t's elements (t has like's shape) in like's memory order, flattened."""
    return np.ascontiguousarray(t.ndarray().transpose(distributions.memory_order(like))).reshape(-1)


def bernoulli(self, generator):
    result = at.empty_like(self, None, None, None, None, None)
    return at.bernoulli__Tensor(result, self, generator)


def bernoulli_out(self, generator, out):
    """bernoulli_out_impl: out is resized to self's shape (resize_, no warning), then
    draws with self as p."""
    resize_impl(out, tuple(self._sizes))
    return bernoulli__Tensor(out, self, generator)


def bernoulli_p(self, p, generator):
    result = at.empty_like(self, None, None, None, None, None)
    return at.bernoulli__float(result, p, generator)
