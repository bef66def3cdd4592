"""linalg_lstsq: least-squares solutions through LAPACK's drivers (gels, gelsy, gelsd, gelss).

Layer: aten/native. In: the schema's arguments (`self` is A, `b` the right-hand side).
Out: (solution, residuals, rank, singular_values). Mirrors ATen/native/BatchLinearAlgebra.cpp
(linalg_lstsq, linalg_lstsq_out and its checks, get_default_lstsq_driver: gelsy on CPU,
the residuals taken from rows n..m of LAPACK's solution buffer). The solution is the first
n rows of a batched column-major (max(m, n), k) buffer, as LAPACK writes it. SciPy calls the
same LAPACK routines; a different LAPACK build may round the last bits differently.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.linalg import lapack

from ember._c10 import dtypes
from ember._c10.tensor_impl import contiguous_strides
from ember.aten.native import at
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_impl, resize_output
from ember.aten.structured import _can_cast
from ember.aten.tensor_iterator import broadcast_shapes

__all__ = ["linalg_lstsq", "linalg_lstsq_out"]

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
_NAME = "torch.linalg.lstsq"


def linalg_lstsq(self, b, rcond, driver):
    real = self.dtype.to_real()
    outs = [
        at.empty_memory_format([0], dtype, None, self.device, None, None)
        for dtype in (self.dtype, real, dtypes.int64, real)
    ]
    return at.linalg_lstsq_out(self, b, rcond, driver, *outs)


def linalg_lstsq_out(self, b, rcond, driver, solution, residuals, rank, singular_values):
    m, n, k, batch, vector_case = _check_inputs(self, b)
    for out, dtype, name in (
        (solution, self.dtype, "solution"),
        (rank, dtypes.int64, "rank"),
        (residuals, self.dtype.to_real(), "solution"),  # sic: PyTorch's text names solution
        (singular_values, self.dtype.to_real(), "singular_values"),
    ):
        _check_out(out, self, dtype, name)
    driver = _driver(driver)
    if not (self.dtype.is_floating_point or self.dtype.is_complex) or self.dtype in (
        dtypes.float16,
        dtypes.bfloat16,
    ):
        raise RuntimeError("This function doesn't handle types other than float and double")
    values = _solve(self, b, m, n, k, batch, vector_case, rcond, driver)
    x, residual_values, rank_values, sv_values = values
    real = self.dtype.to_real()
    # outputs of other dtypes: torch computes into temporaries and copies into them
    exact = (solution.dtype is self.dtype and rank.dtype is dtypes.int64
             and residuals.dtype is real and singular_values.dtype is real)  # fmt: skip
    _write_solution(solution, x, batch, m, n, k, vector_case, exact)
    for out, result in ((residuals, residual_values), (rank, rank_values),
                        (singular_values, sv_values)):  # fmt: skip
        resize_output(out, result.shape)
        if result.size:
            store(out, result)
    return solution, residuals, rank, singular_values


def _check_inputs(self, b):
    if self.dim() < 2:
        raise RuntimeError(f"{_NAME}: input must have at least 2 dimensions.")
    if b.dim() < 1:
        raise RuntimeError(f"{_NAME}: other must have at least 1 dimension.")
    if self.dtype is not b.dtype:
        name = dtypes.scalar_type_name
        raise RuntimeError(
            f"{_NAME}: Expected input and other to have the same dtype, but got input's dtype "
            f"{name(self.dtype)} and other's dtype {name(b.dtype)}"
        )
    dim_diff = self.dim() - b.dim()
    if not 0 <= dim_diff <= 1:
        raise RuntimeError(
            f"{_NAME}: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1"
        )
    vector_case = dim_diff == 1
    b_sizes = b._sizes + (1,) if vector_case else b._sizes
    batch = broadcast_shapes(self._sizes[:-2], b_sizes[:-2])
    m, n = self._sizes[-2:]
    if m != b_sizes[-2]:
        which = "-1" if b.dim() == 1 else "-2"
        raise RuntimeError(f"{_NAME}: input.size(-2) should match other.size({which})")
    if b.device != self.device:
        raise RuntimeError(
            f"{_NAME}: Expected other and input tensors to be on the same device, but got "
            f"other on {b.device} and input on {self.device}"
        )
    return m, n, b_sizes[-1], batch, vector_case


def _check_out(out, self, dtype, name: str) -> None:
    if out.device != self.device:
        raise RuntimeError(
            f"{_NAME}: Expected {name} and input tensors to be on the same device, but got "
            f"{name} on {out.device} and input on {self.device}"
        )
    if not _can_cast(dtype, out.dtype):
        type_name = dtypes.scalar_type_name
        raise RuntimeError(
            f"{_NAME}: Expected {name} to be safely castable from {type_name(dtype)} dtype, "
            f"but got {name} with dtype {type_name(out.dtype)}"
        )


def _driver(driver) -> str:
    if driver is None:
        return "gelsy"  # get_default_lstsq_driver on CPU
    if driver not in _DRIVERS:
        raise RuntimeError(
            f"{_NAME}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    return driver


def _solve(self, b, m, n, k, batch, vector_case, rcond, driver):
    """LAPACK per matrix of the broadcast batch: the (max(m, n), k) buffers, the ranks and
    singular values the driver gives, and the residuals torch derives from the buffers."""
    compute = self.dtype.np_dtype
    real = self.dtype.to_real().np_dtype
    a_values = np.broadcast_to(self.ndarray(), batch + (m, n))
    b_values = b.ndarray()[..., None] if vector_case else b.ndarray()
    b_values = np.broadcast_to(b_values, batch + (m, k))
    if rcond is None:
        rcond = float(np.finfo(real).eps) * max(m, n)
    rows = max(m, n)
    buffers = np.zeros(batch + (rows, k), dtype=compute)
    ranks = np.zeros(batch, dtype=np.int64)
    singular = np.zeros(batch + (min(m, n),), dtype=real)
    sums = np.zeros(batch + (k,), dtype=real)
    for index in np.ndindex(*batch):
        buffers[index][:m] = b_values[index]
        if m == 0 or n == 0 or k == 0:  # LAPACK's quick return: gels zeros b, the rest keep it
            if driver == "gels":
                buffers[index] = 0
            rest = buffers[index][n:m]
            sums[index] = (rest * rest.conj()).real.sum(axis=0)
            continue
        a = np.array(a_values[index], dtype=compute, order="F")
        found = _lapack(a, buffers[index], driver, rcond)
        buffers[index], ranks[index], singular[index], residual = found
        if residual is not None and m > n:
            sums[index] = residual
    residuals = np.zeros((0,), dtype=real)
    if m > n and driver != "gelsy" and (driver == "gels" or bool(np.all(ranks == n))):
        residuals = sums
    rank_values = ranks if driver != "gels" else np.zeros((0,), dtype=np.int64)
    sv_values = singular if driver in ("gelsd", "gelss") else np.zeros((0,), dtype=real)
    return buffers, residuals, rank_values, sv_values


def _lapack(a, buffer, driver: str, rcond: float):
    """One matrix: the solution buffer (rows n..m hold what torch sums into residuals)."""
    m, n = a.shape
    b = np.array(buffer, order="F")
    if driver == "gels":
        gels, gels_lwork = lapack.get_lapack_funcs(("gels", "gels_lwork"), (a, b))
        work, info = gels_lwork(m, n, b.shape[1])
        _, x, info = gels(a, b, lwork=max(int(np.real(work)), 1))
        if info > 0:
            raise RuntimeError(
                f"{_NAME}: The least squares solution could not be computed because the input "
                f"matrix does not have full rank (error code: {info})."
            )
        rest = x[n:m]  # raw_residuals.pow_(2) (or times its conjugate), summed over rows
        return x, 0, 0, (rest * rest.conj()).real.sum(axis=0)
    if driver == "gelsy":
        gelsy, gelsy_lwork = lapack.get_lapack_funcs(("gelsy", "gelsy_lwork"), (a, b))
        work, info = gelsy_lwork(m, n, b.shape[1], rcond)
        pivots = np.zeros(n, dtype=np.int32)
        _, x, _, rank, info = gelsy(a, b, pivots, rcond, max(int(np.real(work)), 1))
        return x, rank, 0, None
    # gelsd / gelss through SciPy, which sums |rows n..m of the buffer|^2 when rank == n
    solution, residual, rank, singular = scipy.linalg.lstsq(
        a, b[:m], cond=rcond, lapack_driver=driver, check_finite=False
    )
    x = np.zeros_like(b)
    x[:n] = solution
    return x, rank, singular, residual if np.size(residual) else None


def _write_solution(solution, buffers, batch, m, n, k, vector_case, exact) -> None:
    """The first n rows of the batched column-major buffer; the vector case drops k."""
    rows = max(m, n)
    sizes = batch + (n,) if vector_case else batch + (n, k)
    if exact and solution.numel() == 0 and solution._sizes != sizes:
        # torch writes LAPACK's buffer into the empty tensor itself (batched column-major)
        buffer_sizes = batch + (rows, k)
        matrix = rows * k
        batch_strides = tuple(s * matrix for s in contiguous_strides(batch))
        resize_impl(solution, buffer_sizes, batch_strides + (1, rows))
        strides = batch_strides + ((1,) if vector_case else (1, rows))
        solution._set_sizes_strides(sizes, strides)
    else:
        resize_output(solution, sizes)
    values = buffers[..., :n, :]
    store(solution, values[..., 0] if vector_case else values)
