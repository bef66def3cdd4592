"""Range and random factory kernels: arange, linspace, eye, rand, randn, randint, rand(n)_like,
randint_like.

Layer: aten/native. In: the full schema argument list (Scalars arrive as Python
numbers). Out: fresh tensors, filled on CPU, shaped only on Meta. Mirrors
ATen/native/RangeFactories.cpp (arange's size computation in the accumulate
type, linspace's two-sided formula), TensorFactories.cpp (eye, rand*, randint)
and the bound checks of ATen/native/DistributionTemplates.h. Random values
are PyTorch's (Note [Random values are PyTorch's] in distributions.py).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ember import random as _random
from ember._c10 import dtypes
from ember._c10.tensor_impl import shape_text
from ember._c10.warning import torch_warn
from ember.aten.memory_overlap import assert_no_internal_overlap
from ember.aten.native import at, distributions
from ember.aten.native.common import as_dtype
from ember.aten.native.factories import checked_value
from ember.aten.native.range_values import arange_values, linspace_values
from ember.aten.native.resize import resize_impl

__all__ = [
    "arange",
    "arange_start",
    "arange_start_step",
    "arange_out",
    "arange_start_out",
    "linspace",
    "linspace_out",
    "eye",
    "eye_m",
    "rand",
    "randn",
    "randint",
    "randint_low",
    "rand_generator",
    "randn_generator",
    "randint_generator",
    "randint_low_generator",
    "rand_like",
    "randn_like",
    "rand_out",
    "rand_generator_out",
    "randn_out",
    "randn_generator_out",
    "randint_out",
    "randint_low_out",
    "randint_generator_out",
    "randint_low_generator_out",
    "randint_like",
    "randint_like_generator",
    "randint_like_Tensor",
    "randint_like_Tensor_generator",
    "randint_like_low_dtype",
    "randint_like_low_generator_dtype",
]

_SCALAR_NAMES = dtypes._SCALAR_TYPE_NAMES


def _has_data(t) -> bool:
    return t.device.type != "meta" and t.numel() > 0


def _not_implemented(kernel: str, dtype) -> NotImplementedError:
    return NotImplementedError(
        f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(dtype)}'"
    )


def _cpp(value) -> str:
    """A number as C++'s ostream prints it (default precision 6)."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# -- arange ---------------------------------------------------------------------


def _is_integral(value) -> bool:
    return isinstance(value, (bool, int))


def arange(end, dtype, layout, device, pin_memory):
    return arange_start_step(0, end, 1, dtype, layout, device, pin_memory)


def arange_start(start, end, dtype, layout, device, pin_memory):
    return arange_start_step(start, end, 1, dtype, layout, device, pin_memory)


def arange_start_step(start, end, step, dtype, layout, device, pin_memory):
    if dtype is None and _is_integral(start) and _is_integral(end) and _is_integral(step):
        dtype = dtypes.int64
    result = at.empty_memory_format([0], dtype, layout, device, pin_memory, None)
    return at.arange_start_out(start, end, step, result)


def arange_out(end, out):
    return at.arange_start_out(0, end, 1, out)


def _acc_dtype(dtype):
    """at::acc_type<scalar_t, /*is_cuda=*/false>."""
    if dtype in (dtypes.float16, dtypes.bfloat16):
        return dtypes.float32
    if dtype.is_floating_point:
        return dtypes.float64
    return dtypes.int64


def _trunc_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def _check_bounds(start, end, step) -> tuple[float, float, float]:
    """arange_check_bounds (RangeUtils.h): validated in double precision (Scalar::to<double>,
    which refuses a complex number with an imaginary part); the three doubles."""
    d_start, d_end, d_step = (float(checked_value(v, dtypes.float64)) for v in (start, end, step))
    if d_step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(d_start) and math.isfinite(d_end)):
        raise RuntimeError(f"unsupported range: {_cpp(d_start)} -> {_cpp(d_end)}")
    if not ((d_step > 0 and d_end >= d_start) or (d_step < 0 and d_end <= d_start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    return d_start, d_end, d_step


def _accumulated(start, end, step, acc) -> tuple:
    return tuple(checked_value(v, acc).item() for v in (start, end, step))


def arange_start_out(start, end, step, out):
    dtype = out.dtype
    if dtype is dtypes.bool or dtype.is_complex or dtype in dtypes.BAREBONES_UNSIGNED:
        raise _not_implemented("arange_cpu", dtype)
    d_start, d_end, d_step = _check_bounds(start, end, step)
    acc = _acc_dtype(dtype)
    # compute_arange_size: int64 counts in its own type, the others in double, before the
    # kernel converts the bounds to the accumulate type
    if dtype is dtypes.int64:
        x_start, x_end, x_step = _accumulated(start, end, step, acc)
        if x_step == 0:  # a fractional step truncated to 0 (TORCH_CHECK_VALUE there)
            raise ValueError("step must be nonzero")
        sign = (x_step > 0) - (x_step < 0)
        size_d = float(_trunc_div(x_end - x_start + x_step - sign, x_step))
    else:
        size_d = math.ceil((d_end - d_start) / d_step)
    if not (0 <= size_d <= float(2**63 - 1)):
        raise RuntimeError("invalid size, possible overflow?")
    if dtype is not dtypes.int64:
        x_start, x_end, x_step = _accumulated(start, end, step, acc)
    size = int(size_d)
    numel = out.numel()
    if numel != size:
        if numel > 0:
            shape = shape_text(out._sizes)
            torch_warn(
                f"The number of elements in the out tensor of shape {shape} is {numel} which "
                f"does not match the computed number of elements {size}. Note that this may "
                "occur as a result of rounding error. The out tensor will be resized to a "
                f"tensor of shape ({size},).",
                "aten/src/ATen/native/RangeFactories.cpp:199",
            )
        resize_impl(out, (size,))
    assert_no_internal_overlap(out)  # the nullary TensorIterator writing it
    if _has_data(out):  # See Note [Vectorized range values]
        out.ndarray()[...] = arange_values(size, x_start, x_step, dtype.np_dtype, acc.np_dtype)
    return out


# -- linspace ---------------------------------------------------------------------


def linspace(start, end, steps, dtype, layout, device, pin_memory):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is None and (isinstance(start, complex) or isinstance(end, complex)):
        dtype = dtypes.get_default_complex_dtype()
    result = at.empty_memory_format([steps], dtype, layout, device, pin_memory, None)
    return at.linspace_out(start, end, steps, result)


def linspace_out(start, end, steps, out):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if out.numel() != steps:
        resize_impl(out, (steps,))
    assert_no_internal_overlap(out)  # the nullary TensorIterator writing it
    if steps == 1:
        return at.fill__Scalar(out, start)
    if not _has_data(out):
        return out
    dtype = out.dtype
    x_start = checked_value(start, dtype)
    x_end = checked_value(end, dtype)
    out.ndarray()[...] = linspace_values(steps, x_start, x_end, dtype.np_dtype)
    return out


# -- eye ------------------------------------------------------------------------------


def eye(n, dtype, layout, device, pin_memory):
    return eye_m(n, n, dtype, layout, device, pin_memory)


def eye_m(n, m, dtype, layout, device, pin_memory):
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    result = at.zeros([n, m], dtype, layout, device, pin_memory)
    if _has_data(result):
        np.fill_diagonal(result.ndarray(), 1)
    return result


# -- random ---------------------------------------------------------------------------


def _generator(generator=None):
    return generator if generator is not None else _random.default_generator


def _fill_uniform(t, generator=None):
    """uniform_(0, 1): floating and complex types only (a complex tensor as its real view)."""
    dtype = t.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise _not_implemented("check_uniform_bounds", dtype)
    if _has_data(t):
        real = dtype.to_real()
        count = t.numel() * (2 if dtype.is_complex else 1)
        values = distributions.uniform(_generator(generator), count, real)
        distributions.write_in_memory_order(t, values.view(dtype.np_dtype))
    return t


def _fill_normal(t, generator=None):
    """normal_(0, 1); a complex tensor as its real view, each part with variance 1/2."""
    dtype = t.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise _not_implemented("normal_kernel_cpu", dtype)
    if _has_data(t):
        real = dtype.to_real()
        count = t.numel() * (2 if dtype.is_complex else 1)
        std = 1 / math.sqrt(2) if dtype.is_complex else 1.0
        gen, fill = _generator(generator), t.is_contiguous()
        values = distributions.normal(gen, count, real, 0.0, std, fill=fill)
        distributions.write_in_memory_order(t, values.view(dtype.np_dtype))
    return t


def rand(size, dtype, layout, device, pin_memory):
    return _fill_uniform(at.empty_memory_format(size, dtype, layout, device, pin_memory, None))


def randn(size, dtype, layout, device, pin_memory):
    return _fill_normal(at.empty_memory_format(size, dtype, layout, device, pin_memory, None))


def rand_generator(size, generator, dtype, layout, device, pin_memory):
    result = at.empty_memory_format(size, dtype, layout, device, pin_memory, None)
    return _fill_uniform(result, generator)


def randn_generator(size, generator, dtype, layout, device, pin_memory):
    result = at.empty_memory_format(size, dtype, layout, device, pin_memory, None)
    return _fill_normal(result, generator)


def rand_like(self, dtype, layout, device, pin_memory, memory_format):
    return _fill_uniform(at.empty_like(self, dtype, layout, device, pin_memory, memory_format))


def randn_like(self, dtype, layout, device, pin_memory, memory_format):
    return _fill_normal(at.empty_like(self, dtype, layout, device, pin_memory, memory_format))


_BOUND_TYPE_NAMES = {
    dtypes.bool: "bool", dtypes.uint8: "unsigned char", dtypes.int8: "signed char",
    dtypes.int16: "short int", dtypes.int32: "int", dtypes.int64: "long int",
    dtypes.float16: "c10::Half",
}  # fmt: skip
FLOAT_MAX = {
    dtypes.float16: 65504.0, dtypes.bfloat16: 3.3895313892515355e38,
    dtypes.float32: 3.4028234663852886e38, dtypes.float64: 1.7976931348623157e308,
}  # fmt: skip
_FLOAT_DIGITS = {dtypes.float16: 11, dtypes.bfloat16: 8, dtypes.float32: 24, dtypes.float64: 53}
_FLOAT_NAMES = {
    dtypes.float16: "c10::Half", dtypes.bfloat16: "c10::BFloat16", dtypes.float32: "float",
    dtypes.float64: "double",
}  # fmt: skip


def check_from_to_in_range(low: int, to_inclusive: int, dtype) -> None:
    """check_from_to_in_range of DistributionTemplates.h: the bounds must be values of the
    dtype; a floating dtype warns beyond the integers it holds exactly."""
    if dtype.is_complex:
        raise RuntimeError(
            "check_random_bounds handles only integral, floating-point and boolean types"
        )
    if dtype in _FLOAT_DIGITS:
        maximum, name = FLOAT_MAX[dtype], _FLOAT_NAMES[dtype]
        minimum = -maximum
    elif dtype is dtypes.bool:
        minimum, maximum, name = 0, 1, "bool"
    else:
        info = np.iinfo(dtype.np_dtype)
        minimum, maximum, name = int(info.min), int(info.max), _BOUND_TYPE_NAMES[dtype]
    for value, what in ((low, "from"), (to_inclusive, "to - 1")):
        if not minimum <= value <= maximum:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    digits = _FLOAT_DIGITS.get(dtype)
    for value, what in ((low, "from"), (to_inclusive, "to - 1")) if digits else ():
        if not -(1 << digits) <= value <= (1 << digits):
            warnings.warn(
                f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                f"limitations {name} can support discrete uniform "
                "distribution only within this range. This warning will become an error "
                "in version 1.7 release, please fix the code in advance",
                UserWarning,
                stacklevel=3,
            )


def randint(high, size, dtype, layout, device, pin_memory):
    return randint_low(0, high, size, dtype, layout, device, pin_memory)


def randint_generator(high, size, generator, dtype, layout, device, pin_memory):
    return randint_low_generator(0, high, size, generator, dtype, layout, device, pin_memory)


def randint_low(low, high, size, dtype, layout, device, pin_memory):
    return randint_low_generator(low, high, size, None, dtype, layout, device, pin_memory)


def _cast_int(value: int, dtype) -> int | None:
    """static_cast<int64_t>(static_cast<scalar_t>(value)) for a floating dtype; None where the
    dtype overflows (the bound is then refused by check_from_to_in_range, as in PyTorch)."""
    with np.errstate(over="ignore"):
        cast = np.array(float(value)).astype(dtype.np_dtype).astype(np.float64)
    return int(cast) if np.isfinite(cast) else None


def update_from(low: int, dtype) -> int:
    """update_from (DistributionTemplates.h): a floating dtype that rounds `from + 1` below
    `from` moves `from` up to the next value it holds."""
    above = _cast_int(low + 1, dtype)
    if above is not None and above < low:
        low = above + (1 << (abs(low + 1).bit_length() - 1 - _FLOAT_DIGITS[dtype] + 1))
    return low


def update_to(high: int, dtype) -> int:
    """update_to: a floating dtype that rounds `to - 1` up to `to` or beyond moves `to` down."""
    below = _cast_int(high - 1, dtype)
    if below is not None and below >= high:
        high = below - (1 << (abs(high - 1).bit_length() - 1 - _FLOAT_DIGITS[dtype] + 1))
    return high


def _random_into(result, low, high, generator):
    """random_(low, high): the bounds checked against the result's dtype (a floating one
    moves them to values it holds first), then filled."""
    dtype = result.dtype
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    if dtype in _FLOAT_DIGITS:
        low, high = update_from(low, dtype), update_to(high, dtype)
        if low >= high:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                f"but got from={low} >= to={high}"
            )
    check_from_to_in_range(low, high - 1, dtype)
    if _has_data(result):
        values = distributions.random_from_to(_generator(generator), result.numel(), low, high)
        distributions.write_in_memory_order(result, values.astype(dtype.np_dtype))
    return result


def randint_low_generator(low, high, size, generator, dtype, layout, device, pin_memory):
    dtype = as_dtype(dtype, dtypes.int64)
    result = at.empty_memory_format(size, dtype, layout, device, pin_memory, None)
    return _random_into(result, low, high, generator)


# -- randint_like: empty_like, then random_(low, high) (TensorFactories.cpp) -----------------


def randint_like_low_generator_dtype(
    self, low, high, generator, dtype, layout, device, pin_memory, memory_format
):
    result = at.empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return _random_into(result, low, high, generator)


def randint_like_low_dtype(self, low, high, dtype, layout, device, pin_memory, memory_format):
    args = (dtype, layout, device, pin_memory, memory_format)
    return randint_like_low_generator_dtype(self, low, high, None, *args)


def randint_like_generator(self, high, generator, dtype, layout, device, pin_memory, memory_format):
    args = (dtype, layout, device, pin_memory, memory_format)
    return randint_like_low_generator_dtype(self, 0, high, generator, *args)


def randint_like(self, high, dtype, layout, device, pin_memory, memory_format):
    args = (dtype, layout, device, pin_memory, memory_format)
    return randint_like_low_generator_dtype(self, 0, high, None, *args)


def _scalar_high(high) -> int:
    """The Tensor overloads: `high` must be one CPU number (read as int64_t, truncated)."""
    if high.numel() != 1 or high.dim() != 0 or high.device.type != "cpu":
        raise RuntimeError("high must be a scalar tensor and on CPU")
    value = high.item()  # high.item<int64_t>()
    return int(value.real) if isinstance(value, complex) else int(value)


def randint_like_Tensor_generator(  # noqa: N802 (the kernel's name)
    self, high, generator, dtype, layout, device, pin_memory, memory_format
):
    args = (dtype, layout, device, pin_memory, memory_format)
    return randint_like_low_generator_dtype(self, 0, _scalar_high(high), generator, *args)


def randint_like_Tensor(self, high, dtype, layout, device, pin_memory, memory_format):  # noqa: N802
    args = (dtype, layout, device, pin_memory, memory_format)
    return randint_like_low_generator_dtype(self, 0, _scalar_high(high), None, *args)


# -- the out= overloads: `out` is resized, then filled (TensorFactories.cpp) -------------------


def rand_generator_out(size, generator, out):
    return _fill_uniform(at.resize_(out, size, None), generator)


def rand_out(size, out):
    return rand_generator_out(size, None, out)


def randn_generator_out(size, generator, out):
    return _fill_normal(at.resize_(out, size, None), generator)


def randn_out(size, out):
    return randn_generator_out(size, None, out)


def randint_low_generator_out(low, high, size, generator, out):
    return _random_into(at.resize_(out, size, None), low, high, generator)


def randint_low_out(low, high, size, out):
    return randint_low_generator_out(low, high, size, None, out)


def randint_generator_out(high, size, generator, out):
    return randint_low_generator_out(0, high, size, generator, out)


def randint_out(high, size, out):
    return randint_low_generator_out(0, high, size, None, out)
