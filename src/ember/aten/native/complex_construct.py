"""torch.complex and torch.polar: a complex tensor from real parts, or from magnitudes
and angles.

Layer: aten/native (the functional overloads are CompositeExplicitAutograd and call the
out= kernels, which are CPU kernels over NumPy). In: two real tensors of one floating
dtype (broadcast against each other), an out= tensor of the matching complex dtype. Out:
the complex tensor, laid out as TensorIterator lays out a fresh output. Mirrors complex /
complex_out / polar / polar_out and complex_check_floating / complex_check_dtype of
ATen/native/TensorFactories.cpp, and complex_kernel / polar_kernel of
ATen/native/cpu/ComplexKernel.cpp (polar: abs * cos(angle) + i abs * sin(angle); its
dispatch list has no Half).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.dtypes import scalar_type_name
from ember._tensor import empty_tensor
from ember.aten.memory_overlap import check_tensor_iterator
from ember.aten.native import at
from ember.aten.structured import resize_output
from ember.aten.tensor_iterator import broadcast_shapes, output_strides
from ember.aten.ufunc_special import not_implemented_for

__all__ = ["complex", "complex_out", "polar", "polar_out"]

_FLOATING = (dtypes.float32, dtypes.float64, dtypes.float16)


def _check_floating(a, b) -> None:
    if a.dtype not in _FLOATING or b.dtype not in _FLOATING:
        raise RuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{scalar_type_name(a.dtype)} and {scalar_type_name(b.dtype)}"
        )


def _check_same(a, b) -> None:
    _check_floating(a, b)
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"Expected object of scalar type {scalar_type_name(a.dtype)} but got scalar type "
            f"{scalar_type_name(b.dtype)} for second argument"
        )


def _check_dtype(result, a, b) -> None:
    _check_same(a, b)
    expected = a.dtype.to_complex()
    if result.dtype is not expected:
        raise RuntimeError(
            f"Expected object of scalar type {scalar_type_name(expected)} but got scalar type "
            f"{scalar_type_name(result.dtype)} for argument 'out'"
        )


def _fresh(a, b, kernel=None):
    """The functional overload's output: TensorIterator's shape and layout for a, b (the
    checks of complex_out first: the dtypes, then the broadcast)."""
    _check_same(a, b)
    sizes = broadcast_shapes(a._sizes, b._sizes)
    if a.dtype is dtypes.float16:  # a complex32 result: no NumPy type holds it
        if kernel is not None:
            not_implemented_for(kernel, a.dtype)
        raise NotImplementedError(
            "ember cannot hold complex32 (ComplexHalf) tensors on cpu: NumPy has no such type"
        )
    strides = output_strides((a, b), sizes)
    return empty_tensor(sizes, a.dtype.to_complex(), a.device, strides)


def _iterate(result, a, b, kernel, formula):
    """The TensorIterator of complex_out / polar_out: overlap, shape, resize, compute."""
    _check_dtype(result, a, b)
    check_tensor_iterator(result, a, b)
    sizes = broadcast_shapes(a._sizes, b._sizes)
    if result._sizes != sizes:
        resize_output(result, sizes, output_strides((a, b), sizes))
    if kernel is not None and a.dtype is dtypes.float16:
        not_implemented_for(kernel, a.dtype)
    if result.numel():
        first, second = np.broadcast_arrays(a.ndarray(), b.ndarray())
        real_part, imag_part = formula(first, second)
        values = result.ndarray()
        values.real = real_part
        values.imag = imag_part
    return result


def complex_out(real, imag, out):
    return _iterate(out, real, imag, None, lambda a, b: (a, b))


def complex(real, imag):  # noqa: A001 (the operator's name)
    return at.complex_out(real, imag, _fresh(real, imag))


def _polar(magnitude, angle):
    """std::cos / std::sin of the angle's type (glibc rounds them correctly: computed in
    float64 and rounded once), times the magnitude in that type."""
    wide = angle.astype(np.float64)
    with np.errstate(all="ignore"):
        cos, sin = np.cos(wide).astype(angle.dtype), np.sin(wide).astype(angle.dtype)
        return magnitude * cos, magnitude * sin


def polar_out(abs, angle, out):  # noqa: A002 (the schema's names)
    return _iterate(out, abs, angle, "polar_cpu", _polar)


def polar(abs, angle):  # noqa: A002
    return at.polar_out(abs, angle, _fresh(abs, angle, "polar_cpu"))
