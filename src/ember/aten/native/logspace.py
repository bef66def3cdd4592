"""torch.logspace: `steps` powers of `base` whose exponents run evenly from start to end.

Layer: aten/native (the functional overloads are CompositeExplicitAutograd; logspace.out
is the CPU and Meta kernel the others call). In: Python numbers (or 0-dim tensors, whose
item() is taken), steps, base, and the factory options or an out= tensor. Out: a 1-d
tensor. Mirrors logspace / logspace_out of ATen/native/RangeFactories.cpp and
TensorFactories.cpp: the exponent of element i is start + step * i below the halfway
point and end - step * (steps - i - 1) above it, step = (end - start) / (steps - 1) with
start and end first converted to the output's type; real types raise a double base to
double exponents, complex types compute in their own precision; one step is
base ** start, filled in.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.dtypes import scalar_type_name
from ember.aten.memory_overlap import assert_no_internal_overlap
from ember.aten.native import at
from ember.aten.native.common import type_meta_name
from ember.aten.native.factories import checked_value
from ember.aten.native.resize import resize_impl
from ember.aten.ufunc_special import not_implemented_for

__all__ = [
    "logspace",
    "logspace_Tensor_Tensor",
    "logspace_Tensor_Scalar",
    "logspace_Scalar_Tensor",
    "logspace_out",
    "logspace_Tensor_Tensor_out",
    "logspace_Tensor_Scalar_out",
    "logspace_Scalar_Tensor_out",
]

_SPLIT_ROUNDING = (dtypes.float16, dtypes.bfloat16)  # c10::Half(float(double))


def _check_steps(steps) -> None:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")


def _infer_dtype(start, end, dtype):
    """linspace_logspace_infer_options: a complex bound wants a complex dtype."""
    if isinstance(start, complex) or isinstance(end, complex):
        default = dtypes.get_default_complex_dtype()
        if dtype is None:
            return default
        if not dtype.is_complex:
            raise RuntimeError(
                f"torch.logspace(): inferred dtype {type_meta_name(default)} can't be safely "
                f"cast to passed dtype {scalar_type_name(dtype)}"
            )
    return dtype if dtype is not None else dtypes.get_default_dtype()


def logspace(start, end, steps, base, dtype, layout, device, pin_memory):
    _check_steps(steps)
    dtype = _infer_dtype(start, end, dtype)
    result = at.empty_memory_format([steps], dtype, layout, device, pin_memory, None)
    return at.logspace_out(start, end, steps, base, result)


def _zero_dim_text(start, end) -> str:
    parts = []
    if start is not None:
        parts.append(f"start with {start.dim()} dimension(s)")
    if end is not None:
        parts.append(f"end with {end.dim()} dimension(s)")
    return " and ".join(parts)


def _items(start, end):
    """The 0-dim tensors' values, or PyTorch's error naming the tensors given."""
    if (start is not None and start.dim() != 0) or (end is not None and end.dim() != 0):
        raise RuntimeError(
            "logspace only supports 0-dimensional start and end tensors, but got "
            f"{_zero_dim_text(start, end)}."
        )
    return start, end


def logspace_Tensor_Tensor(start, end, steps, base, dtype, layout, device, pin_memory):  # noqa: N802
    _items(start, end)
    return at.logspace(start.item(), end.item(), steps, base, dtype, layout, device, pin_memory)


def logspace_Tensor_Scalar(start, end, steps, base, dtype, layout, device, pin_memory):  # noqa: N802
    _items(start, None)
    return at.logspace(start.item(), end, steps, base, dtype, layout, device, pin_memory)


def logspace_Scalar_Tensor(start, end, steps, base, dtype, layout, device, pin_memory):  # noqa: N802
    _items(None, end)
    return at.logspace(start, end.item(), steps, base, dtype, layout, device, pin_memory)


def logspace_Tensor_Tensor_out(start, end, steps, base, out):  # noqa: N802
    _items(start, end)
    return at.logspace_out(start.item(), end.item(), steps, base, out)


def logspace_Tensor_Scalar_out(start, end, steps, base, out):  # noqa: N802
    _items(start, None)
    return at.logspace_out(start.item(), end, steps, base, out)


def logspace_Scalar_Tensor_out(start, end, steps, base, out):  # noqa: N802
    _items(None, end)
    return at.logspace_out(start, end.item(), steps, base, out)


def logspace_out(start, end, steps, base, out):
    _check_steps(steps)
    if out.numel() != steps:
        resize_impl(out, (steps,))
    if out.device.type == "meta":
        return out
    assert_no_internal_overlap(out)
    dtype = out.dtype
    if steps == 0:
        return out
    if steps == 1:
        return at.fill__Scalar(out, _first_power(start, base, dtype.is_complex))
    if dtype is dtypes.bool or dtype in dtypes.BAREBONES_UNSIGNED:
        not_implemented_for("logspace_cpu", dtype)
    out.ndarray()[...] = _values(start, end, steps, base, dtype)
    return out


def _first_power(start, base, is_complex):
    """std::pow(base, start) in double (or complex<double>): past the range, inf."""
    with np.errstate(all="ignore"):
        if not is_complex:
            return float(np.power(np.float64(base), checked_value(start, dtypes.float64)))
        exponent = complex(checked_value(start, dtypes.complex128))
        if base > 0:  # libstdc++'s pow(double, complex): polar(x ** re, im * log(x))
            magnitude = np.power(np.float64(base), exponent.real)
            angle = exponent.imag * np.log(np.float64(base))
            return complex(magnitude * np.cos(angle), magnitude * np.sin(angle))
        return complex(np.power(np.complex128(base), np.complex128(exponent)))


def _values(start, end, steps, base, dtype) -> np.ndarray:
    first = checked_value(start, dtype)
    last = checked_value(end, dtype)
    index = np.arange(steps)
    halfway = steps // 2
    with np.errstate(all="ignore"):
        if dtype.is_complex:
            kind = dtype.np_dtype.type
            step = (last - first) / kind(steps - 1)
            exponents = np.concatenate(
                [
                    first + step * index[:halfway].astype(kind),
                    last - step * (steps - index[halfway:] - 1).astype(kind),
                ]
            )
            return np.exp(exponents * np.log(kind(base))).astype(kind)  # cpow
        if dtype.is_floating_point:
            difference = float(last - first)  # in the type itself (half types round)
        else:  # C++ integer arithmetic: small types promote to int
            difference = float(int(last) - int(first))
        step = difference / (steps - 1)
        exponents = np.concatenate(
            [
                float(first) + step * index[:halfway],
                float(last) - step * (steps - index[halfway:] - 1),
            ]
        )
        values = np.power(float(base), exponents)
        if dtype in _SPLIT_ROUNDING:
            values = values.astype(np.float32)
        return values.astype(dtype.np_dtype)
