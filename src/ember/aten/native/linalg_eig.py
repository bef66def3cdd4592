"""CPU kernels of the general eigendecomposition: linalg_eig, _linalg_eigvals, linalg_eigvals.out.

Layer: aten/native. In: the schema's arguments (and out tensors). Out: complex eigenvalues
and eigenvectors (batched column-major). Mirrors linalg_eig / linalg_eig_out /
linalg_eigvals_out of ATen/native/BatchLinearAlgebra.cpp: LAPACK's geev on each matrix
(NumPy's eig calls it), real input giving complex results of the matching precision, and
PyTorch's checks (square matrices, no infs or NaNs). LAPACK normalises each eigenvector to
unit norm with its largest component real; which of the two signs a real eigenvector gets
is the LAPACK build's (PyTorch's MKL and NumPy's OpenBLAS differ on some matrices).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember.aten.meta.linalg_decomp import f_contig_strides, square_check_inputs
from ember.aten.native import at
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_impl, resize_output

__all__ = ["linalg_eig", "linalg_eig_out", "_linalg_eigvals", "linalg_eigvals_out"]


def _complex_dtype(self):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {dtypes.scalar_type_name(self.dtype)}")
    if self.dtype in (dtypes.float16, dtypes.bfloat16):
        raise NotImplementedError(
            f"\"linalg_eig_out_cpu\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'"
        )
    return self.dtype if self.dtype.is_complex else self.dtype.to_complex()


def _eig(self, compute_v: bool):
    square_check_inputs(self, "linalg.eig")
    dtype = _complex_dtype(self)
    values = self.ndarray()
    if not np.isfinite(values).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    if values.size == 0:
        w = np.zeros(values.shape[:-1], dtype=dtype.np_dtype)
        return dtype, w, np.zeros(values.shape, dtype=dtype.np_dtype)
    if compute_v:
        w, v = np.linalg.eig(values)
        return dtype, w.astype(dtype.np_dtype), v.astype(dtype.np_dtype)
    return dtype, np.linalg.eigvals(values).astype(dtype.np_dtype), None


def _new(self, sizes, dtype, f_contig: bool):
    t = at.empty_memory_format([0], dtype, strided, self.device, None, None)
    sizes = tuple(sizes)
    resize_impl(t, sizes, f_contig_strides(sizes) if f_contig else None)
    return t


def linalg_eig(self):
    dtype, w, v = _eig(self, True)
    eigenvalues = _new(self, w.shape, dtype, False)
    eigenvectors = _new(self, v.shape, dtype, True)
    store(eigenvalues, w)
    store(eigenvectors, v)
    return eigenvalues, eigenvectors


def _check_out(out, dtype, name: str) -> None:
    if out.dtype is not dtype:
        raise RuntimeError(
            f"{name} doesn't match the dtype of the result: expected "
            f"{dtypes.scalar_type_name(dtype)} but got {dtypes.scalar_type_name(out.dtype)}"
        )


def linalg_eig_out(self, eigenvalues, eigenvectors):
    dtype, w, v = _eig(self, True)
    for out, values in ((eigenvalues, w), (eigenvectors, v)):
        _check_out(out, dtype, "torch.linalg.eig: Expected eigenvalues to be safely castable")
        resize_output(out, values.shape)
        store(out, values)
    return eigenvalues, eigenvectors


def _linalg_eigvals(self):
    dtype, w, _ = _eig(self, False)
    result = _new(self, w.shape, dtype, False)
    store(result, w)
    return result


def linalg_eigvals_out(self, out):
    dtype, w, _ = _eig(self, False)
    resize_output(out, w.shape)
    store(out, w)
    return out
