"""CPU kernels of the discrete Fourier transforms: _fft_r2c, _fft_c2r, _fft_c2c, and fftfreq.

Layer: aten/native. In: the schema's arguments (`dim` the transformed dims, `normalization`
PyTorch's fft_norm_mode: 0 none, 1 by 1/sqrt(n), 2 by 1/n, n the product of the signal
sizes). Out: a new contiguous tensor, or `out` resized and written. Mirrors
ATen/native/mkl/SpectralOps.cpp (_fft_r2c_mkl, _fft_c2r_mkl, _fft_c2c_mkl and their out=
forms, which compute into a temporary and copy) and fft_fftfreq / fft_rfftfreq of
ATen/native/SpectralOps.cpp. SciPy's pocketfft computes, in the input's own precision.
"""

from __future__ import annotations

import numpy as np
import scipy.fft

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember.aten.native import at
from ember.aten.native.common import wrap_dims
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_output

__all__ = [
    "_fft_r2c", "_fft_r2c_out", "_fft_c2r", "_fft_c2r_out", "_fft_c2c", "_fft_c2c_out",
    "fft_fftfreq", "fft_fftfreq_out", "fft_rfftfreq", "fft_rfftfreq_out",
]  # fmt: skip

# fft_norm_mode -> SciPy's norm= for a forward and for a backward transform
_FORWARD = {0: "backward", 1: "ortho", 2: "forward"}
_BACKWARD = {0: "forward", 1: "ortho", 2: "backward"}


def _check_dtype(self, kind: str) -> None:
    ok = (
        self.dtype in (dtypes.float32, dtypes.float64)
        if kind == "real"
        else self.dtype
        in (
            dtypes.complex64,
            dtypes.complex128,
        )
    )
    if not ok:
        raise RuntimeError(f"Unsupported dtype {dtypes.scalar_type_name(self.dtype)}")


def _new(self, values: np.ndarray, dtype):
    result = at.empty_memory_format(list(values.shape), dtype, strided, self.device, None, None)
    if values.size:
        store(result, values)
    return result


def _into(out, values: np.ndarray):
    resize_output(out, values.shape)
    if values.size:
        store(out, values)
    return out


def _r2c_values(self, dim, normalization, onesided):
    _check_dtype(self, "real")
    axes = wrap_dims(dim, self.dim())
    values = self.ndarray()
    if values.size == 0:
        sizes = list(values.shape)
        if onesided:
            sizes[axes[-1]] = sizes[axes[-1]] // 2 + 1
        return np.zeros(sizes, dtype=self.dtype.to_complex().np_dtype)
    norm = _FORWARD[normalization]
    if onesided:
        return scipy.fft.rfftn(values, axes=axes, norm=norm)
    return scipy.fft.fftn(values, axes=axes, norm=norm)


def _fft_r2c(self, dim, normalization, onesided):
    return _new(self, _r2c_values(self, dim, normalization, onesided), self.dtype.to_complex())


def _fft_r2c_out(self, dim, normalization, onesided, out):
    return _into(out, _r2c_values(self, dim, normalization, onesided))


def _c2c_values(self, dim, normalization, forward):
    _check_dtype(self, "complex")
    axes = wrap_dims(dim, self.dim())
    values = self.ndarray()
    if values.size == 0:
        return np.zeros(values.shape, dtype=values.dtype)
    if forward:
        return scipy.fft.fftn(values, axes=axes, norm=_FORWARD[normalization])
    return scipy.fft.ifftn(values, axes=axes, norm=_BACKWARD[normalization])


def _fft_c2c(self, dim, normalization, forward):
    return _new(self, _c2c_values(self, dim, normalization, forward), self.dtype)


def _fft_c2c_out(self, dim, normalization, forward, out):
    return _into(out, _c2c_values(self, dim, normalization, forward))


def _c2r_values(self, dim, normalization, last_dim_size):
    _check_dtype(self, "complex")
    axes = wrap_dims(dim, self.dim())
    values = self.ndarray()
    sizes = [values.shape[a] for a in axes[:-1]] + [last_dim_size]
    if values.size == 0:
        shape = list(values.shape)
        shape[axes[-1]] = last_dim_size
        return np.zeros(shape, dtype=self.dtype.to_real().np_dtype)
    return scipy.fft.irfftn(values, s=sizes, axes=axes, norm=_BACKWARD[normalization])


def _fft_c2r(self, dim, normalization, last_dim_size):
    values = _c2r_values(self, dim, normalization, last_dim_size)
    return _new(self, values, self.dtype.to_real())


def _fft_c2r_out(self, dim, normalization, last_dim_size, out):
    return _into(out, _c2r_values(self, dim, normalization, last_dim_size))


# -- fftfreq, rfftfreq ----------------------------------------------------------------------


def _check_freq_dtype(out, name: str) -> None:
    if not (out.dtype.is_floating_point or out.dtype.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")


def fft_fftfreq(n, d, dtype, layout, device, pin_memory):
    dtype = dtype if dtype is not None else dtypes.get_default_dtype()  # dtype_or_default
    result = at.arange(n, dtype, layout, device, pin_memory)
    return at.fft_fftfreq_out(n, d, result)


def fft_fftfreq_out(n, d, out):
    """[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n), in out's dtype."""
    _check_freq_dtype(out, "fftfreq")
    at.arange_out(n, out)
    right = at.slice_Tensor(out, 0, (n + 1) // 2, None, 1)
    at.arange_start_out(-(n // 2), 0, 1, right)
    return at.mul__Scalar(out, 1.0 / (n * d))


def fft_rfftfreq(n, d, dtype, layout, device, pin_memory):
    dtype = dtype if dtype is not None else dtypes.get_default_dtype()
    result = at.arange(n // 2 + 1, dtype, layout, device, pin_memory)
    return at.fft_rfftfreq_out(n, d, result)


def fft_rfftfreq_out(n, d, out):
    """[0, 1, ..., n // 2] / (d n), in out's dtype."""
    _check_freq_dtype(out, "rfftfreq")
    at.arange_out(n // 2 + 1, out)
    return at.mul__Scalar(out, 1.0 / (n * d))
