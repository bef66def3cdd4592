"""The torch.fft functions: fft, ifft, rfft, irfft, hfft, ihfft, their 2-d and n-d forms,
fftshift and ifftshift, as CompositeImplicitAutograd kernels over _fft_r2c, _fft_c2r and
_fft_c2c.

Layer: aten/native. In: the schema's arguments (n / s, dim, norm, out). Out: the transform,
computed through `at`, so autograd records FftR2CBackward0 & co. and a dispatch mode sees
PyTorch's operators. Mirrors ATen/native/SpectralOps.cpp (fft_r2c, fft_c2r, fft_c2c,
canonicalize_fft_shape_and_dim_args, resize_fft_input, norm_from_string, promote_type_fft,
the n-d implementations). ember has no conjugate bit: where PyTorch returns `x.conj()` (a
lazily conjugated view), ember computes conj_physical; and it pads a short signal with
cat (PyTorch: constant_pad_nd, which ember does not have).
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember.aten.native import at
from ember.aten.native.common import wrap_dim, wrap_dims

__all__ = [
    "fft_fft", "fft_ifft", "fft_rfft", "fft_irfft", "fft_hfft", "fft_ihfft",
    "fft_fft_out", "fft_ifft_out", "fft_rfft_out", "fft_irfft_out", "fft_hfft_out",
    "fft_ihfft_out", "fft_fft2", "fft_ifft2", "fft_rfft2", "fft_irfft2", "fft_hfft2",
    "fft_ihfft2", "fft_fft2_out", "fft_ifft2_out", "fft_rfft2_out", "fft_irfft2_out",
    "fft_hfft2_out", "fft_ihfft2_out", "fft_fftn", "fft_ifftn", "fft_rfftn", "fft_irfftn",
    "fft_hfftn", "fft_ihfftn", "fft_fftn_out", "fft_ifftn_out", "fft_rfftn_out",
    "fft_irfftn_out", "fft_hfftn_out", "fft_ihfftn_out", "fft_fftshift", "fft_ifftshift",
]  # fmt: skip

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2


def _norm(norm, forward: bool) -> int:
    """norm_from_string."""
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(t, require_complex: bool = False):
    """promote_tensor_fft: integers to the default dtype; float / double only on the CPU."""
    dtype = t.dtype
    if dtype.is_complex:
        return t
    if not dtype.is_floating_point:
        dtype = dtypes.get_default_dtype()
    if dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"Unsupported dtype {dtypes.scalar_type_name(dtype)}")
    if require_complex:
        dtype = dtype.to_complex()
    return t if dtype is t.dtype else at.to_dtype(t, dtype, False, False, None)


def _resize(x, dims, sizes):
    """resize_fft_input: slice long dims, zero-pad short ones (at their ends)."""
    pads = []
    for d, size in zip(dims, sizes):
        if size == -1:
            continue
        current = x.shape[d]
        if current > size:
            x = at.slice_Tensor(x, d, 0, size, 1)
        elif current < size:
            pads.append((d, size - current))
    for d, amount in pads:
        shape = list(x.shape)
        shape[d] = amount
        zeros = at.zeros(shape, x.dtype, strided, x.device, None)
        x = at.cat([x, zeros], d)
    return x


def _conj(t):
    return at.conj(t)  # a lazy conjugate, as PyTorch returns (the tensor itself when real)


def _check_n(n) -> None:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _c2c_maybe_out(out, x, dims, norm, forward):
    if out is not None:
        return at._fft_c2c_out(x, dims, norm, forward, out)
    return at._fft_c2c(x, dims, norm, forward)


def _c2r_maybe_out(out, x, dims, norm, last_dim_size):
    if out is not None:
        return at._fft_c2r_out(x, dims, norm, last_dim_size, out)
    return at._fft_c2r(x, dims, norm, last_dim_size)


def _r2c_maybe_out(out, x, dims, norm, onesided):
    if out is not None:
        return at._fft_r2c_out(x, dims, norm, onesided, out)
    return at._fft_r2c(x, dims, norm, onesided)


def _fft_c2c(name, out, x, n, dim, norm, forward):
    if not x.dtype.is_complex:
        raise RuntimeError(
            f"{name} expects a complex input tensor, but got {dtypes.scalar_type_name(x.dtype)}"
        )
    dim = wrap_dim(dim, x.dim(), False)
    size = x.shape[dim] if n is None else n
    _check_n(size)
    if n is not None:
        x = _resize(x, [dim], [size])
    return _c2c_maybe_out(out, x, [dim], _norm(norm, forward), forward)


def _fft_r2c(name, out, x, n, dim, norm, forward, onesided):
    if x.dtype.is_complex:
        raise RuntimeError(
            f"{name} expects a real input tensor, but got {dtypes.scalar_type_name(x.dtype)}"
        )
    if out is not None and not out.dtype.is_complex:
        raise RuntimeError(
            f"{name} expects a complex output tensor, but got {dtypes.scalar_type_name(out.dtype)}"
        )
    x = _promote(x)
    dim = wrap_dim(dim, x.dim(), False)
    size = x.shape[dim] if n is None else n
    _check_n(size)
    if n is not None:
        x = _resize(x, [dim], [size])
    mode = _norm(norm, forward)
    if out is not None and forward:
        return at._fft_r2c_out(x, [dim], mode, onesided, out)
    result = at._fft_r2c(x, [dim], mode, onesided)
    if forward:
        return result
    return at.conj_physical_out(result, out) if out is not None else _conj(result)


def _fft_c2r(name, out, x, n, dim, norm, forward):
    if out is not None and out.dtype.is_complex:
        raise RuntimeError(
            f"{name} expects a floating point output tensor, but got "
            f"{dtypes.scalar_type_name(out.dtype)}"
        )
    x = _promote(x, require_complex=True)
    dim = wrap_dim(dim, x.dim(), False)
    size = 2 * (x.shape[dim] - 1) if n is None else n
    _check_n(size)
    if n is not None:
        x = _resize(x, [dim], [size // 2 + 1])
    if forward:
        x = _conj(x)
    return _c2r_maybe_out(out, x, [dim], _norm(norm, forward), size)


def fft_fft(self, n, dim, norm):
    if self.dtype.is_complex:
        return _fft_c2c("fft", None, self, n, dim, norm, True)
    return _fft_r2c("fft", None, self, n, dim, norm, True, False)


def fft_fft_out(self, n, dim, norm, out):
    if self.dtype.is_complex:
        return _fft_c2c("fft", out, self, n, dim, norm, True)
    return _fft_r2c("fft", out, self, n, dim, norm, True, False)


def fft_ifft(self, n, dim, norm):
    if self.dtype.is_complex:
        return _fft_c2c("ifft", None, self, n, dim, norm, False)
    return _fft_r2c("ifft", None, self, n, dim, norm, False, False)


def fft_ifft_out(self, n, dim, norm, out):
    if self.dtype.is_complex:
        return _fft_c2c("ifft", out, self, n, dim, norm, False)
    return _fft_r2c("ifft", out, self, n, dim, norm, False, False)


def fft_rfft(self, n, dim, norm):
    return _fft_r2c("rfft", None, self, n, dim, norm, True, True)


def fft_rfft_out(self, n, dim, norm, out):
    return _fft_r2c("rfft", out, self, n, dim, norm, True, True)


def fft_irfft(self, n, dim, norm):
    return _fft_c2r("irfft", None, self, n, dim, norm, False)


def fft_irfft_out(self, n, dim, norm, out):
    return _fft_c2r("irfft", out, self, n, dim, norm, False)


def fft_hfft(self, n, dim, norm):
    return _fft_c2r("hfft", None, self, n, dim, norm, True)


def fft_hfft_out(self, n, dim, norm, out):
    return _fft_c2r("hfft", out, self, n, dim, norm, True)


def fft_ihfft(self, n, dim, norm):
    return _fft_r2c("ihfft", None, self, n, dim, norm, False, True)


def fft_ihfft_out(self, n, dim, norm, out):
    return _fft_r2c("ihfft", out, self, n, dim, norm, False, True)


# -- n-d transforms ---------------------------------------------------------------------------


def _shape_and_dims(x, s, dim):
    """canonicalize_fft_shape_and_dim_args."""
    ndim = x.dim()
    dims = None
    if dim is not None:
        dims = wrap_dims_fft(dim, ndim)
    if s is not None:
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."
            )
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    elif dims is None:
        dims, shape = list(range(ndim)), list(x.shape)
    else:
        shape = [x.shape[d] for d in dims]
    for n in shape:
        _check_n(n)
    return shape, dims


def wrap_dims_fft(dim, ndim: int) -> list:
    dims = [wrap_dim(d, ndim, False) for d in dim]
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    return dims


def _c2r_shape_and_dims(name, x, s, dim):
    """canonicalize_fft_c2r_shape_and_dim_args: the last dim's output size, and its input
    size n // 2 + 1."""
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    if s is None or s[-1] == -1:
        last = 2 * (x.shape[dims[-1]] - 1)
    else:
        last = shape[-1]
    _check_n(last)
    shape[-1] = last // 2 + 1
    return shape, dims, last


def _fftn(x, s, dim, norm, out, forward):
    shape, dims = _shape_and_dims(x, s, dim)
    x = _promote(x, require_complex=True)
    x = _resize(x, dims, shape)
    return _c2c_maybe_out(out, x, dims, _norm(norm, forward), forward)


def _rfftn(x, s, dim, norm, out):
    if x.dtype.is_complex:
        raise RuntimeError(
            f"rfftn expects a real-valued input tensor, but got {dtypes.scalar_type_name(x.dtype)}"
        )
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize(_promote(x), dims, shape)
    return _r2c_maybe_out(out, x, dims, _norm(norm, True), True)


def _irfftn(x, s, dim, norm, out):
    shape, dims, last = _c2r_shape_and_dims("irfftn", x, s, dim)
    x = _resize(_promote(x, require_complex=True), dims, shape)
    return _c2r_maybe_out(out, x, dims, _norm(norm, False), last)


def _hfftn(x, s, dim, norm, out):
    shape, dims, last = _c2r_shape_and_dims("hfftn", x, s, dim)
    x = _resize(_promote(x, require_complex=True), dims, shape)
    mode = _norm(norm, True)
    tmp = at._fft_c2c(x, dims[:-1], mode, True) if len(dims) > 1 else x
    return _c2r_maybe_out(out, _conj(tmp), [dims[-1]], mode, last)


def _ihfftn(x, s, dim, norm, out):
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = _resize(_promote(x), dims, shape)
    mode = _norm(norm, False)
    tmp = at._fft_r2c(x, [dims[-1]], mode, True)
    if len(dims) == 1:
        return at.conj_physical_out(tmp, out) if out is not None else _conj(tmp)
    tmp = at.conj_physical(tmp)
    return _c2c_maybe_out(out, tmp, dims[:-1], mode, False)


def fft_fftn(self, s, dim, norm):
    return _fftn(self, s, dim, norm, None, True)


def fft_fftn_out(self, s, dim, norm, out):
    return _fftn(self, s, dim, norm, out, True)


def fft_ifftn(self, s, dim, norm):
    return _fftn(self, s, dim, norm, None, False)


def fft_ifftn_out(self, s, dim, norm, out):
    return _fftn(self, s, dim, norm, out, False)


def fft_rfftn(self, s, dim, norm):
    return _rfftn(self, s, dim, norm, None)


def fft_rfftn_out(self, s, dim, norm, out):
    return _rfftn(self, s, dim, norm, out)


def fft_irfftn(self, s, dim, norm):
    return _irfftn(self, s, dim, norm, None)


def fft_irfftn_out(self, s, dim, norm, out):
    return _irfftn(self, s, dim, norm, out)


def fft_hfftn(self, s, dim, norm):
    return _hfftn(self, s, dim, norm, None)


def fft_hfftn_out(self, s, dim, norm, out):
    return _hfftn(self, s, dim, norm, out)


def fft_ihfftn(self, s, dim, norm):
    return _ihfftn(self, s, dim, norm, None)


def fft_ihfftn_out(self, s, dim, norm, out):
    return _ihfftn(self, s, dim, norm, out)


fft_fft2, fft_fft2_out = fft_fftn, fft_fftn_out
fft_ifft2, fft_ifft2_out = fft_ifftn, fft_ifftn_out
fft_rfft2, fft_rfft2_out = fft_rfftn, fft_rfftn_out
fft_irfft2, fft_irfft2_out = fft_irfftn, fft_irfftn_out
fft_hfft2, fft_hfft2_out = fft_hfftn, fft_hfftn_out
fft_ihfft2, fft_ihfft2_out = fft_ihfftn, fft_ihfftn_out


# -- fftshift, ifftshift -----------------------------------------------------------------------


def _all_dims(x, dim):
    return wrap_dims(dim, x.dim()) if dim is not None else list(range(x.dim()))


def fft_fftshift(self, dim):
    dims = _all_dims(self, dim)
    return at.roll(self, [self.shape[d] // 2 for d in dims], dims)


def fft_ifftshift(self, dim):
    dims = _all_dims(self, dim)
    return at.roll(self, [(self.shape[d] + 1) // 2 for d in dims], dims)
