"""The window functions: hann_window, hamming_window, blackman_window, bartlett_window,
kaiser_window (every overload: periodic, alpha, beta).

Layer: aten/native (CompositeExplicitAutograd: device-generic, through `at`). In: the window
length, the shape parameters and the factory options. Out: a 1-D window of the options'
dtype (the default dtype when none is given). Mirrors ATen/native/TensorFactories.cpp:
window_function_checks' messages, the arange-based formulas computed in the window's own
dtype with in-place ops, each double Scalar rounded first to a float16 / bfloat16
window's dtype (so such a window rounds where PyTorch's does), and a periodic
window as the first N of a symmetric window of N + 1. kaiser_window's values are
I0(beta * sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2 (kaiser_window_stub),
evaluated in double and rounded once to the dtype.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember.aten.native import at
from ember.aten.native.common import type_meta_name

__all__ = [
    "bartlett_window",
    "bartlett_window_periodic",
    "blackman_window",
    "blackman_window_periodic",
    "hamming_window",
    "hamming_window_periodic",
    "hamming_window_periodic_alpha",
    "hamming_window_periodic_alpha_beta",
    "hann_window",
    "hann_window_periodic",
    "kaiser_window",
    "kaiser_window_beta",
    "kaiser_window_periodic",
]


def _options_text(dtype, layout, device) -> str:
    """TensorOptions' printing, as the window checks show it."""
    dtype_text = (
        f"{type_meta_name(dtypes.get_default_dtype())} (default)"
        if dtype is None
        else type_meta_name(dtype)
    )
    layout_text = "Strided (default)" if layout is None else _layout_name(layout)
    device_text = "cpu" if device is None else str(device)
    return (
        f"TensorOptions(dtype={dtype_text}, device={device_text}, layout={layout_text}, "
        "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))"
    )


def _layout_name(layout) -> str:
    return {"strided": "Strided", "sparse_coo": "Sparse"}.get(
        str(layout).rsplit(".", 1)[-1], str(layout).rsplit(".", 1)[-1]
    )


def _checks(name, window_length, dtype, layout, device) -> None:
    """window_function_checks."""
    if layout is not None and layout is not strided and "sparse" in str(layout):
        raise RuntimeError(
            f"{name} is not implemented for sparse types, got: "
            f"{_options_text(dtype, layout, device)}"
        )
    real = dtypes.get_default_dtype() if dtype is None else dtype
    if not (real.is_floating_point or real.is_complex):
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: {_options_text(dtype, layout, device)}"
        )
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )


def _trivial(window_length, dtype, layout, device, pin_memory):
    """The empty window and the window of one (ones({1}))."""
    if window_length == 0:
        return at.empty_memory_format([0], dtype, layout, device, pin_memory, None)
    if window_length == 1:
        return at.ones([1], dtype, layout, device, pin_memory)
    return None


def _arange(n, dtype, layout, device, pin_memory):
    """native::arange with the options' dtype (the default dtype when none is given)."""
    dtype = dtypes.get_default_dtype() if dtype is None else dtype
    return at.arange(n, dtype, layout, device, pin_memory)


def _scalar(value: float, window) -> float:
    """A C++ double Scalar as the in-place op on the window uses it: rounded to a float16 /
    bfloat16 window's dtype first (it multiplies by float16(2 pi / (N - 1))): so PyTorch
    2.13's reduced-precision windows come out equal, value for value."""
    if window.dtype in (dtypes.float16, dtypes.bfloat16):
        return float(np.array(value, dtype=window.dtype.np_dtype))
    return value


def _periodic_cut(window, periodic: bool, window_length: int):
    return at.narrow(window, 0, 0, window_length - 1) if periodic else window


def hamming_window_periodic_alpha_beta(
    window_length, periodic, alpha, beta, dtype, layout, device, pin_memory, name="hamming_window"
):
    _checks(name, window_length, dtype, layout, device)
    trivial = _trivial(window_length, dtype, layout, device, pin_memory)
    if trivial is not None:
        return trivial
    if periodic:
        window_length += 1
    window = _arange(window_length, dtype, layout, device, pin_memory)
    at.mul__Scalar(window, _scalar(math.pi * 2.0 / float(window_length - 1), window))
    at.cos_(window)
    at.mul__Scalar(window, _scalar(-beta, window))
    at.add__Scalar(window, _scalar(alpha, window), 1)
    return _periodic_cut(window, periodic, window_length)


def hamming_window(window_length, dtype, layout, device, pin_memory):
    return hamming_window_periodic(window_length, True, dtype, layout, device, pin_memory)


def hamming_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    return hamming_window_periodic_alpha_beta(
        window_length, periodic, 0.54, 0.46, dtype, layout, device, pin_memory
    )


def hamming_window_periodic_alpha(
    window_length, periodic, alpha, dtype, layout, device, pin_memory
):
    return hamming_window_periodic_alpha_beta(
        window_length, periodic, alpha, 0.46, dtype, layout, device, pin_memory
    )


def hann_window(window_length, dtype, layout, device, pin_memory):
    return hann_window_periodic(window_length, True, dtype, layout, device, pin_memory)


def hann_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    _checks("hann_window", window_length, dtype, layout, device)
    return hamming_window_periodic_alpha_beta(
        window_length, periodic, 0.5, 0.5, dtype, layout, device, pin_memory
    )


def bartlett_window(window_length, dtype, layout, device, pin_memory):
    return bartlett_window_periodic(window_length, True, dtype, layout, device, pin_memory)


def bartlett_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    _checks("bartlett_window", window_length, dtype, layout, device)
    trivial = _trivial(window_length, dtype, layout, device, pin_memory)
    if trivial is not None:
        return trivial
    if periodic:
        window_length += 1
    window = _arange(window_length, dtype, layout, device, pin_memory)
    at.mul__Scalar(window, _scalar(2.0 / float(window_length - 1), window))
    first_half = ((window_length - 1) >> 1) + 1
    second = at.narrow(window, 0, first_half, window_length - first_half)
    at.mul__Scalar(second, -1)
    at.add__Scalar(second, 2, 1)
    return _periodic_cut(window, periodic, window_length)


def blackman_window(window_length, dtype, layout, device, pin_memory):
    return blackman_window_periodic(window_length, True, dtype, layout, device, pin_memory)


def blackman_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    _checks("blackman_window", window_length, dtype, layout, device)
    trivial = _trivial(window_length, dtype, layout, device, pin_memory)
    if trivial is not None:
        return trivial
    if periodic:
        window_length += 1
    window = _arange(window_length, dtype, layout, device, pin_memory)
    at.mul__Scalar(window, _scalar(math.pi / float(window_length - 1), window))
    first = at.mul__Scalar(at.cos_(at.mul_Scalar(window, 4)), _scalar(0.08, window))
    second = at.mul__Scalar(at.cos_(at.mul_Scalar(window, 2)), 0.5)
    window = at.add_Scalar(at.sub_Tensor(first, second, 1), _scalar(0.42, window), 1)
    return _periodic_cut(window, periodic, window_length)


def kaiser_window(window_length, dtype, layout, device, pin_memory):
    return kaiser_window_beta(window_length, True, 12.0, dtype, layout, device, pin_memory)


def kaiser_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    return kaiser_window_beta(window_length, periodic, 12.0, dtype, layout, device, pin_memory)


def kaiser_window_beta(window_length, periodic, beta, dtype, layout, device, pin_memory):
    _checks("kaiser_window", window_length, dtype, layout, device)
    if window_length == 0:
        return at.empty_memory_format([0], dtype, layout, device, pin_memory, None)
    if window_length == 1:
        return at.ones([1], dtype, layout, device, pin_memory)
    if periodic:
        window_length += 1
    initial = _arange(window_length, dtype, layout, device, pin_memory)
    window = at.empty_memory_format(
        [window_length], initial.dtype, layout, device, pin_memory, None
    )
    if window.device.type != "meta":
        a = (window_length - 1) / 2.0
        n = np.arange(window_length, dtype=np.float64)
        values = np.i0(beta * np.sqrt(1.0 - ((n - a) / a) ** 2)) / np.i0(beta)
        window.ndarray()[...] = values.astype(window.dtype.np_dtype)
    return _periodic_cut(window, periodic, window_length)
