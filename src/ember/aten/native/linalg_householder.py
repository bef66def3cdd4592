"""CPU kernels of the Householder routines: geqrf, linalg.householder_product (orgqr) and
ormqr.

Layer: aten/native. In: the schema's arguments (and the out tensors). Out: batched
column-major results as LAPACK writes them (tau contiguous). Mirrors BatchLinearAlgebra.cpp's
geqrf_out / geqrf_out_helper, linalg_householder_product_out / householder_product_out_helper
and ormqr_out / ormqr_out_helper: their checks and texts, the out= tensors used directly when
empty or already column-major of the right shape (else a temporary, resize_output and copy_),
and LAPACK's geqrf, orgqr / ungqr and ormqr / unmqr through SciPy, per matrix, with the
optimal workspace PyTorch queries.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember.aten.meta.linalg_decomp import f_contig_strides
from ember.aten.native import at
from ember.aten.native.linalg_cholesky import _copy_into, _f_contig
from ember.aten.native.linalg_decomp import _lapack, _not_implemented
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_impl
from ember.aten.structured import _can_cast

__all__ = [
    "geqrf", "geqrf_out", "linalg_householder_product", "linalg_householder_product_out",
    "orgqr", "orgqr_out", "ormqr", "ormqr_out",
]  # fmt: skip


def _name(dtype) -> str:
    return dtypes.scalar_type_name(dtype)


def _castable(name: str, out, self, label: str) -> None:
    """checkLinalgCompatibleDtype with an output's name."""
    if not _can_cast(self.dtype, out.dtype):
        raise RuntimeError(
            f"{name}: Expected {label} to be safely castable from {_name(self.dtype)} dtype, but "
            f"got {label} with dtype {_name(out.dtype)}"
        )


def _workspace(fn, *args, **kwargs) -> int:
    """LAPACK's workspace query (lwork = -1): the optimal size."""
    work = fn(*args, lwork=-1, **kwargs)[-2]
    return max(1, int(np.real(work[0])))


def _column_major(t, sizes) -> bool:
    return t.dim() >= 2 and t._sizes == tuple(sizes) and t._strides == f_contig_strides(t._sizes)


def _into(out, values, column_major: bool):
    """Write into `out` directly (resizing an empty one to the layout PyTorch gives it)."""
    if out.numel() == 0 and out._sizes != values.shape:
        strides = f_contig_strides(values.shape) if column_major else None
        resize_impl(out, values.shape, strides)
    if values.size:
        store(out, values)
    return out


# -- geqrf -----------------------------------------------------------------------------------


def _geqrf_values(self):
    if self.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    values = self.ndarray()
    batch, (m, n) = values.shape[:-2], values.shape[-2:]
    qr = np.empty(values.shape, dtype=values.dtype)
    tau = np.zeros(batch + (min(m, n),), dtype=values.dtype)
    _not_implemented("geqrf_cpu", self)
    if values.size:
        geqrf = _lapack("geqrf", values)
        lwork = _workspace(geqrf, np.asfortranarray(values[(0,) * len(batch)]))
        for index in np.ndindex(*batch):
            qr[index], tau[index], _, _ = geqrf(np.asfortranarray(values[index]), lwork=lwork)
    return qr, tau


def geqrf(self):
    qr, tau = _geqrf_values(self)
    return _f_contig(self, qr), _plain(self, tau)


def _plain(t, values):
    result = at.empty_memory_format(list(values.shape), t.dtype, strided, t.device, None, None)
    if values.size:
        store(result, values)
    return result


def geqrf_out(self, a, tau):
    if self.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _castable("torch.geqrf", a, self, "a")
    _castable("torch.geqrf", tau, self, "tau")
    qr, tau_values = _geqrf_values(self)
    copy = a.dtype is not self.dtype or tau.dtype is not self.dtype
    copy |= a.numel() != 0 and not _column_major(a, qr.shape)
    copy |= tau.numel() != 0 and (tau._sizes != tau_values.shape or not tau.is_contiguous())
    if copy:
        _copy_into(a, _f_contig(self, qr))
        _copy_into(tau, _plain(self, tau_values))
        return a, tau
    _into(a, qr, True)
    _into(tau, tau_values, False)
    return a, tau


# -- householder_product (orgqr) ------------------------------------------------------------

_HP = "torch.linalg.householder_product"


def _householder_values(input, tau):  # noqa: A002
    if input.dim() < 2:
        raise RuntimeError(f"{_HP}: input must have at least 2 dimensions.")
    m, n = input._sizes[-2:]
    if m < n:
        raise RuntimeError(
            f"{_HP}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if n < (tau._sizes[-1] if tau.dim() else 1):
        raise RuntimeError(f"{_HP}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(
            f"{_HP}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {tau.dim()} and input.ndim is equal to {input.dim()}"
        )
    if input.dim() > 2 and tau._sizes[:-1] != input._sizes[:-2]:
        shown = "[" + ", ".join(str(s) for s in tau._sizes[:-1]) + "]"
        raise RuntimeError(
            f"{_HP}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{shown}"
        )
    if tau.dtype is not input.dtype:
        raise RuntimeError(
            f"{_HP}: tau dtype {_name(tau.dtype)} does not match input dtype {_name(input.dtype)}"
        )
    values, taus = input.ndarray(), tau.ndarray()
    q = np.empty(values.shape, dtype=values.dtype)
    _not_implemented("orgqr_cpu", input)
    if values.size:
        orgqr = _lapack("ungqr" if values.dtype.kind == "c" else "orgqr", values)
        batch = values.shape[:-2]
        first = (0,) * len(batch)
        lwork = _workspace(orgqr, np.asfortranarray(values[first]), taus[first])
        for index in np.ndindex(*batch):
            q[index], _, _ = orgqr(np.asfortranarray(values[index]), taus[index], lwork=lwork)
    return q


def linalg_householder_product(input, tau):  # noqa: A002
    return _f_contig(input, _householder_values(input, tau))


def linalg_householder_product_out(input, tau, out):  # noqa: A002
    q = _householder_values(input, tau)
    _castable(_HP, out, input, "result")
    copy = out.dtype is not input.dtype
    copy |= out.numel() != 0 and not _column_major(out, q.shape)
    if copy:
        return _copy_into(out, _f_contig(input, q))
    return _into(out, q, True)


def orgqr(self, input2):
    return at.linalg_householder_product(self, input2)


def orgqr_out(self, input2, out):
    return at.linalg_householder_product_out(self, input2, out)


# -- ormqr -----------------------------------------------------------------------------------

_ORMQR = "torch.ormqr"


def _ormqr_checks(input, tau, other, left) -> None:  # noqa: A002
    if input.dim() < 2:
        raise RuntimeError(f"{_ORMQR}: input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError(f"{_ORMQR}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other._sizes[side] != input._sizes[-2]:
        raise RuntimeError(f"{_ORMQR}: other.shape[{side}] must be equal to input.shape[-2]")
    k = tau._sizes[-1] if tau.dim() else 1
    if k != min(other._sizes[side], input._sizes[-1]):
        raise RuntimeError(
            f"{_ORMQR}: tau.shape[-1] must be equal to min(other.shape[-2], input.shape[-1])"
        )
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(
            f"{_ORMQR}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {tau.dim()} and input.ndim is equal to {input.dim()}"
        )
    if input.dim() != other.dim():
        raise RuntimeError(
            f"{_ORMQR}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {other.dim()} and input.ndim is equal to {input.dim()}"
        )
    if input.dim() > 2:
        batch = input._sizes[:-2]
        for t, label in ((tau, "tau"), (other, "other")):
            got = t._sizes[: t.dim() - (1 if t is tau else 2)]
            if got != batch:
                shown = "[" + ", ".join(str(s) for s in got) + "]"
                raise RuntimeError(
                    f"{_ORMQR}: Expected batch dimensions of {label} to be equal to "
                    f"input.shape[:-2], but got {shown}"
                )
    for t, label in ((tau, "tau"), (other, "other")):
        if t.dtype is not input.dtype:
            raise RuntimeError(
                f"{_ORMQR}: Expected input and {label} to have the same dtype, but input has "
                f"dtype{_name(input.dtype)} and {label} has dtype {_name(t.dtype)}"
            )


def _ormqr_values(input, tau, other, left, transpose):  # noqa: A002
    values, taus, c = input.ndarray(), tau.ndarray(), other.ndarray()
    result = np.empty(c.shape, dtype=c.dtype)
    _not_implemented("ormqr_cpu", input)
    if c.size == 0:
        return result
    complex_ = values.dtype.kind == "c"
    ormqr = _lapack("unmqr" if complex_ else "ormqr", values)
    side = "L" if left else "R"
    trans = ("C" if complex_ else "T") if transpose else "N"
    k = taus.shape[-1]
    batch = c.shape[:-2]
    for index in np.ndindex(*batch):
        a = np.asfortranarray(values[index][:, :k])
        cc = np.asfortranarray(c[index])
        if k == 0:
            result[index] = cc
            continue
        lwork = _workspace(ormqr, side, trans, a, taus[index], cc)
        result[index], _, _ = ormqr(side, trans, a, taus[index], cc, lwork)
    return result


def ormqr(self, input2, input3, left, transpose):
    _ormqr_checks(self, input2, input3, left)
    return _f_contig(self, _ormqr_values(self, input2, input3, left, transpose))


def ormqr_out(self, input2, input3, left, transpose, out):
    _ormqr_checks(self, input2, input3, left)
    if out.dtype is not self.dtype:
        raise RuntimeError(
            f"{_ORMQR}: Expected input and result to have the same dtype, but input has dtype"
            f"{_name(self.dtype)} and result has dtype {_name(out.dtype)}"
        )
    values = _ormqr_values(self, input2, input3, left, transpose)
    if out.numel() != 0 and not _column_major(out, values.shape):
        return _copy_into(out, _f_contig(self, values))
    return _into(out, values, True)
