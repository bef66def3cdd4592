"""Unary float operators on NumPy's routines: exp2, sinc, the inverse hyperbolic functions,
sgn, signbit, isposinf / isneginf, logit, nan_to_num, and the composites built on
operators (deg2rad, rad2deg, square, positive, isinf, isfinite, isreal, mvlgamma,
polygamma_, the arc* / absolute / negative aliases).

Layer: aten/native (structured CPU kernels take (meta, self, ..., out); the others the full
schema-ordered arguments). Out: tensors. Mirrors ATen/native/UnaryOps.cpp and the kernels
of ATen/native/cpu/UnaryOpsKernel.cpp (exp2_kernel, sinc_kernel, sgn_kernel,
signbit_kernel, logit_kernel, nan_to_num_kernel), computing half types in float32.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ember._c10 import dtypes
from ember.aten import ufunc
from ember.aten.binding import scalar_to_tensor
from ember.aten.meta.pointwise_unary import unary_float_op, unary_op
from ember.aten.native import at
from ember.aten.native.unary_math import (
    check_dtype,
    computes,
    float_kernel,
    functional,
    inplace,
    operand_values,
    out_variant,
)
from ember.aten.ufunc_loops import quiet, store

__all__ = [
    "exp2_out",
    "sinc_out",
    "asinh_out",
    "acosh_out",
    "atanh_out",
    "sgn_out",
    "signbit_out",
    "isposinf_out",
    "isneginf_out",
    "logit",
    "logit_",
    "logit_out",
    "nan_to_num",
    "nan_to_num_",
    "nan_to_num_out",
    "deg2rad",
    "deg2rad_",
    "deg2rad_out",
    "rad2deg",
    "rad2deg_",
    "rad2deg_out",
    "square",
    "square_",
    "square_out",
    "positive",
    "isinf",
    "isfinite",
    "isreal",
    "mvlgamma",
    "mvlgamma_",
    "mvlgamma_out",
    "polygamma_",
]

exp2_out = float_kernel("exp2", np.exp2, complex_ok=True)
asinh_out = float_kernel("asinh_cpu", np.arcsinh, complex_ok=True)
acosh_out = float_kernel("acosh_cpu", np.arccosh, complex_ok=True)
atanh_out = float_kernel("atanh_cpu", np.arctanh, complex_ok=True)


def _sinc(x):
    """sinc_kernel: 1 at zero, else sin(pi x) / (pi x) in opmath."""
    product = x.dtype.type(np.pi) * x
    with np.errstate(all="ignore"):
        return np.where(x == 0, x.dtype.type(1), np.sin(product) / product)


sinc_out = float_kernel("sinc_cpu", _sinc, complex_ok=True)


@quiet
def sgn_out(meta, self, out) -> None:
    """sgn_kernel: z / |z| (0 at zero) for complex inputs, sign otherwise."""
    if not meta.compute_dtype.is_complex:
        ufunc.sign(meta, self, out)
        return
    z = self.ndarray()
    magnitude = np.abs(z)
    store(out, np.where(magnitude == 0, 0, z / np.where(magnitude == 0, 1, magnitude)), meta)


@quiet
def signbit_out(meta, self, out) -> None:
    values = self.ndarray()
    if meta.compute_dtype is dtypes.bool or values.dtype.kind == "u":
        out.ndarray()[...] = False
    elif meta.compute_dtype.is_floating_point:
        np.copyto(out.ndarray(), np.signbit(operand_values(meta, self)))
    else:
        np.copyto(out.ndarray(), values < 0)


def _infinity(sign: float):
    @quiet
    def run(meta, self, out) -> None:
        if not meta.compute_dtype.is_floating_point:  # integers and bool are finite
            out.ndarray()[...] = False
            return
        np.copyto(out.ndarray(), operand_values(meta, self) == sign)

    return run


isposinf_out = _infinity(math.inf)
isneginf_out = _infinity(-math.inf)


# -- logit -------------------------------------------------------------------------------


def _logit_kernel(meta, self, eps, out) -> None:
    check_dtype("logit_cpu", meta.compute_dtype)
    _logit_formula(meta, self, eps, out)


@quiet
def _logit_formula(meta, self, eps, out) -> None:
    x = operand_values(meta, self)
    if eps is not None and eps >= 0:  # logit_kernel clamps to [eps, 1 - eps] in scalar_t
        scalar = meta.compute_dtype.np_dtype
        low = np.asarray(eps).astype(scalar).astype(x.dtype)
        high = (1 - np.asarray(eps).astype(scalar)).astype(scalar).astype(x.dtype)
        x = np.where(x < low, low, np.where(x > high, high, x))
    if x.dtype != meta.compute_dtype.np_dtype:  # half types: each c10::Half operation rounds
        scalar = meta.compute_dtype.np_dtype
        ratio = (x / (1 - x).astype(scalar).astype(x.dtype)).astype(scalar).astype(x.dtype)
        store(out, np.log(ratio), meta)
        return
    store(out, np.log(x / (1 - x)), meta)


def logit(self, eps=None):
    return functional(unary_float_op, _logit_kernel, self, eps)


def logit_(self, eps=None):
    return inplace(unary_float_op, _logit_kernel, self, eps)


def logit_out(self, eps, out):
    return out_variant(unary_float_op, _logit_kernel, self, eps, out)


# -- nan_to_num ----------------------------------------------------------------------------


def _replacements(dtype, nan, posinf, neginf):
    info = ml_dtypes.finfo(dtype)  # NumPy's finfo, and bfloat16's
    return (
        0.0 if nan is None else nan,
        float(info.max) if posinf is None else posinf,
        float(info.min) if neginf is None else neginf,
    )


def _nan_to_num_values(x, nan, posinf, neginf):
    nan, posinf, neginf = (
        np.asarray(v).astype(x.dtype) for v in _replacements(x.dtype, nan, posinf, neginf)
    )
    return np.where(
        np.isnan(x), nan, np.where(x == np.inf, posinf, np.where(x == -np.inf, neginf, x))
    )


@quiet
def nan_to_num_out(self, nan, posinf, neginf, out):
    if out.dtype is not self.dtype:
        raise RuntimeError(
            f"nan_to_num: dtype of out: {dtypes.scalar_type_name(out.dtype)} should be same as "
            f"input: {dtypes.scalar_type_name(self.dtype)}"
        )
    dtype = self.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        at.resize_(out, list(self.shape), None)
        return at.copy_(out, self, False)
    meta = unary_op(self)
    if out is self:
        meta.check_read_write(out)
    meta.resize_outputs(out)
    if not computes(out):
        return out
    values = self.ndarray()
    if dtype.is_complex:
        real_dtype = values.real.dtype
        parts = [
            _nan_to_num_values(part.astype(real_dtype), nan, posinf, neginf)
            for part in (values.real, values.imag)
        ]
        np.copyto(out.ndarray(), parts[0] + 1j * parts[1], casting="unsafe")
        return out
    np.copyto(out.ndarray(), _nan_to_num_values(values, nan, posinf, neginf))
    return out


def nan_to_num(self, nan=None, posinf=None, neginf=None):
    result = at.empty_like(self, None, None, None, None, None)
    return at.nan_to_num_out(self, nan, posinf, neginf, result)


def nan_to_num_(self, nan=None, posinf=None, neginf=None):
    return at.nan_to_num_out(self, nan, posinf, neginf, self)


# -- composites ------------------------------------------------------------------------------


def _angle_check(self, name: str) -> None:
    if self.dtype.is_complex:
        raise RuntimeError(f"{name} is not supported for complex tensors.")


def _as_float(self):
    if self.dtype.is_floating_point:
        return self
    return at._to_copy(self, dtypes.get_default_dtype(), None, None, None, False, None)


_RAD_PER_DEG = math.pi / 180
_DEG_PER_RAD = 180 / math.pi


def deg2rad(self):
    _angle_check(self, "deg2rad")
    return at.mul_Scalar(_as_float(self), _RAD_PER_DEG)


def deg2rad_(self):
    _angle_check(self, "deg2rad")
    return at.mul__Scalar(self, _RAD_PER_DEG)


def deg2rad_out(self, out):
    _angle_check(self, "deg2rad")
    return at.mul_out(_as_float(self), scalar_to_tensor(_RAD_PER_DEG), out)


def rad2deg(self):
    _angle_check(self, "rad2deg")
    return at.mul_Scalar(_as_float(self), _DEG_PER_RAD)


def rad2deg_(self):
    _angle_check(self, "rad2deg")
    return at.mul__Scalar(self, _DEG_PER_RAD)


def rad2deg_out(self, out):
    _angle_check(self, "rad2deg")
    return at.mul_out(_as_float(self), scalar_to_tensor(_DEG_PER_RAD), out)


def square(self):
    return at.pow_Tensor_Scalar(self, 2)


def square_(self):
    return at.pow__Scalar(self, 2)


def square_out(self, out):
    return at.pow_Tensor_Scalar_out(self, 2, out)


def positive(self):
    if self.dtype is dtypes.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


_REAL_OF = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}


def _parts(self):
    """A complex tensor's (real, imag) pairs along a new last dimension (view_as_real)."""
    return at.view_dtype(at.unsqueeze(self, -1), _REAL_OF[self.dtype])


def isinf(self):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        return at.zeros_like(self, dtypes.bool, None, None, None, None)
    if self.dtype.is_complex:  # isinf(real) | isinf(imag)
        return at.any_dim(at.isinf(_parts(self)), -1, False)
    return at.eq_Scalar(at.abs(self), math.inf)


def isfinite(self):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        return at.ones_like(self, dtypes.bool, None, None, None, None)
    if self.dtype.is_complex:  # isfinite(real) & isfinite(imag)
        return at.all_dim(at.isfinite(_parts(self)), -1, False)
    return at.mul_Tensor(at.eq_Tensor(self, self), at.ne_Scalar(at.abs(self), math.inf))


def isreal(self):
    if not self.dtype.is_complex:
        return at.ones_like(self, dtypes.bool, None, None, None, None)
    return at.eq_Scalar(at.select_int(_parts(self), -1, 1), 0)


def mvlgamma(self, p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    values = self if self.dtype.is_floating_point else _as_float(self)
    offsets = at.arange_start_step(
        -p * 0.5 + 0.5, 0.5, 0.5, values.dtype, None, values.device, None
    )
    args = at.add_Tensor(offsets, at.unsqueeze(values, -1), 1)
    return at.add_Scalar(
        at.sum_dim_IntList(at.lgamma(args), [-1], False, None),
        p * (p - 1) * math.log(math.pi) / 4,
        1,
    )


def mvlgamma_(self, p):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(
            f"mvlgamma: result type {dtypes.scalar_type_name(self.dtype)} can't be cast to the "
            f"desired output type {dtypes.scalar_type_name(dtypes.get_default_dtype())}"
        )
    return at.copy_(self, at.mvlgamma(self, p), False)


def mvlgamma_out(self, p, out):
    result = at.mvlgamma(self, p)
    at.resize_(out, list(result.shape), None)
    return at.copy_(out, result, False)


def polygamma_(self, n):
    return at.polygamma_out(n, self, self)
