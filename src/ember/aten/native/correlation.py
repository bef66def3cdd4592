"""cov and corrcoef (CompositeImplicitAutograd), on scalar_tensor (fill_factories.py).

Layer: aten/native. In: the full schema argument list. Out: tensors computed by other
operators, in PyTorch's order, so a dispatch mode sees PyTorch's operator sequence and
autograd comes from those operators. Mirrors ATen/native/Correlation.cpp (with its
corner cases for a single observation, which zero the viewed input in place as
PyTorch's does) and scalar_tensor of ATen/native/TensorFactories.cpp.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember._c10.warning import torch_warn
from ember.aten.native import at

__all__ = ["cov", "corrcoef"]

_OBSERVATIONS_DIM = 1
_DOF_WARNING = (
    "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number "
    "of observations."
)


def _is_true(t) -> bool:
    """at::is_scalar_tensor_true: equal(t, t.new_ones({}))."""
    return at.equal(t, at.new_ones(t, [], t.dtype, strided, t.device, None))


def _is_integral(dtype) -> bool:
    """isIntegralType(t, /*includeBool=*/false)."""
    return not (dtype.is_floating_point or dtype.is_complex or dtype is dtypes.bool)


def _long_scalar(value, like):
    return at.scalar_tensor(value, dtypes.int64, strided, like.device, None)


def _check_weights(w, what: str, num_observations: int, integral: bool) -> None:
    if w.dim() > 1:
        raise RuntimeError(
            f"cov(): expected {what} to have one or fewer dimensions but got {what} with "
            f"{w.dim()} dimensions"
        )
    ok = _is_integral(w.dtype) if integral else w.dtype.is_floating_point
    if not ok:
        kind = "integral" if integral else "floating point"
        raise RuntimeError(
            f"cov(): expected {what} to have {kind} dtype but got {what} with "
            f"{dtypes.scalar_type_name(w.dtype)} dtype"
        )
    if w.numel() != num_observations:
        raise RuntimeError(
            f"cov(): expected {what} to have the same numel as there are observations in the "
            f"input but got {w.numel()} != {num_observations}"
        )
    if num_observations != 0 and not _is_true(at.ge_Scalar(at.min(w), 0)):
        raise RuntimeError(f"cov(): {what} cannot be negative")


def _norm_factor(w, w_sum, correction, fweights, aweights, num_observations, like):
    if w is None:
        return _long_scalar(num_observations - correction, like)
    if correction == 0:
        return w_sum
    if aweights is None:
        return at.sub_Scalar(w_sum, correction, 1)
    if fweights is None and num_observations == 1 and correction == 1:
        return _long_scalar(0, like)
    spread = at.sum(at.mul_Tensor(w, aweights), None)
    return at.sub_Tensor(w_sum, at.div_Tensor(at.mul_Scalar(spread, correction), w_sum), 1)


def cov(self, correction, fweights, aweights):
    if self.dim() > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{self.dim()} dimensions"
        )
    if self.dtype is dtypes.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = at.view(self, [1, -1]) if self.dim() < 2 else self
    num_observations = x._sizes[_OBSERVATIONS_DIM]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", num_observations, integral=True)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", num_observations, integral=False)
        w = aweights if w is None else at.mul_Tensor(w, aweights)
    w_sum = at.sum(w, None) if w is not None else _long_scalar(num_observations, x)
    if w is not None and not _is_true(at.ne_Scalar(w_sum, 0)):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    weighted = at.mul_Tensor(x, w) if w is not None else x
    avg = at.div_Tensor(at.sum_dim_IntList(weighted, [_OBSERVATIONS_DIM], False, None), w_sum)
    norm_factor = _norm_factor(w, w_sum, correction, fweights, aweights, num_observations, x)
    if _is_true(at.le_Scalar(norm_factor, 0)):
        torch_warn(_DOF_WARNING, "aten/src/ATen/native/Correlation.cpp:129")
        at.zero_(norm_factor)
    if num_observations == 1 and (fweights is None) != (aweights is None):
        at.zero_(x)
        if _is_integral(x.dtype):
            x = at._to_copy(x, dtypes.float32, None, None, None, False, None)
    else:
        x = at.sub_Tensor(x, at.unsqueeze(avg, 1), 1)
    right = at.mul_Tensor(x, w) if w is not None else x
    c = at.mm(x, at.conj(at.t(right)))
    return at.squeeze(at.true_divide_Tensor(c, norm_factor))


def corrcoef(self):
    if self.dim() > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{self.dim()} dimensions"
        )
    c = at.cov(self, 1, None, None)
    if c.dim() == 0:
        return at.div_Tensor(c, c)
    d = at.diagonal(c, 0, 0, 1)
    stddev = at.sqrt(at.real(d) if d.dtype.is_complex else d)
    c = at.div_Tensor(c, at.view(stddev, [-1, 1]))
    c = at.div_Tensor(c, at.view(stddev, [1, -1]))
    if c.dtype.is_complex:
        return at.complex(
            at.clamp(at.real(c), -1, 1),
            at.clamp(at.imag(c), -1, 1),
        )
    return at.clamp(c, -1, 1)
