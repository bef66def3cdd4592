"""linalg.matrix_exp's CPU kernel and torch.matrix_exp: PyTorch's own algorithm, in NumPy.

Layer: aten/native. In: a batch of square matrices. Out: their exponentials, contiguous, in
the input's dtype. Mirrors ATen/native/LinearAlgebra.cpp's mexp (Bader, Blanes and Casas,
"Computing the Matrix Exponential with an Optimized Taylor Polynomial Approximation", 2019):
the 1-norm picks a Taylor polynomial of degree 1, 2, 4, 8, 12 or 18 (one matrix), or degree 18
after scaling by 2^-s and squaring s times (larger norms, and every batch of more than one
matrix), with PyTorch's thetas and coefficients, evaluated in the input's precision. SciPy's
expm (a Pade approximant) would give other roundings.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._tensor import Tensor
from ember.aten.meta.linalg_decomp import check_floating_or_complex, square_check_inputs
from ember.aten.native import at

__all__ = ["linalg_matrix_exp", "matrix_exp"]

_THETAS_FLOAT = (
    1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
    5.800524627688768e-01, 1.461661507209034e00, 3.010066362817634e00,
)  # fmt: skip
_THETAS_DOUBLE = (
    2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
    4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e00,
)  # fmt: skip

_B12 = (
    (9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
    (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
     0.01108844528519167989),
    (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
     0.00610700528898058230),
    (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079,
     -0.00675951846863086359),
)  # fmt: skip
_B18 = (
    (0.0, -1.00365581030144618291e-01, -8.02924648241156932449e-03,
     -8.92138498045729985177e-04, 0.0),
    (0.0, 3.97849749499645077844e-01, 1.36783778460411720168e00, 4.98289622525382669416e-01,
     -6.37898194594723280150e-04),
    (-1.09676396052962061844e01, 1.68015813878906206114e00, 5.71779846478865511061e-02,
     -6.98210122488052056106e-03, 3.34975017086070470649e-05),
    (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
     2.95552570429315521194e-02, -1.39180257516060693404e-05),
    (0.0, 0.0, -9.23364619367118555360e-02, -1.69364939002081722752e-02,
     -1.40086798182036094347e-05),
)  # fmt: skip


def _powers(a: np.ndarray, count: int) -> list:
    """_fill_matrix_powers: the first `count` of I, A, A^2, A^3, A^6."""
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape).copy()
    found = [eye, a.copy()]
    if count > 2:
        found.append(a @ a)
    if count > 3:
        found.append(a @ found[2])
    if count > 4:
        found.append(found[3] @ found[3])
    return found[:count]


def _combination(matrices, coefficients, real) -> np.ndarray:
    """_compute_linear_combination: sum_j c_j M_j, the coefficients in the real dtype."""
    result = np.zeros_like(matrices[0])
    for coefficient, matrix in zip(coefficients, matrices):
        result += real(coefficient) * matrix
    return result


def _t1(a, real):
    eye, a1 = _powers(a, 2)
    return eye + a1


def _t2(a, real):
    eye, a1, a2 = _powers(a, 3)
    return eye + a1 + a2 / real(2.0)


def _t4(a, real):
    powers = _powers(a, 3)
    product = powers[2] @ _combination(powers, (1 / 2.0, 1 / 6.0, 1 / 24.0), real)
    return _combination(powers + [product], (1.0, 1.0, 0.0, 1.0), real)


def _t8(a, real):
    sqrt_177 = real(0.1330413469565007072504e2)
    x3 = real(2.0 / 3.0)
    x1 = real(x3 * ((1.0 + float(sqrt_177)) / 88.0))
    x2 = real(x3 * ((1.0 + float(sqrt_177)) / 352.0))
    x4 = real((-271.0 + 29.0 * float(sqrt_177)) / (315.0 * float(x3)))
    x5 = real((-11.0 + 11.0 * float(sqrt_177)) / (1260.0 * float(x3)))
    x6 = real((-99.0 + 11.0 * float(sqrt_177)) / (5040.0 * float(x3)))
    x7 = real((89.0 - float(sqrt_177)) / (5040.0 * float(x3)))
    y2 = real((857.0 - 58.0 * float(sqrt_177)) / 630.0)
    powers = _powers(a, 3)
    a4 = powers[2] @ _combination(powers[1:3], (x1, x2), real)
    a8 = _combination([powers[2], a4], (x3, 1.0), real) @ _combination(
        powers + [a4], (x4, x5, x6, x7), real
    )
    return _combination(powers + [a4, a8], (1.0, 1.0, y2, 0.0, 1.0), real)


def _t12(a, real):
    powers = _powers(a, 4)
    bs = [_combination(powers, row, real) for row in _B12]
    bs[2] = bs[2] + bs[3] @ bs[3]
    return bs[0] + (bs[1] + bs[2]) @ bs[2]


def _t18(a, real):
    powers = _powers(a, 5)
    bs = [_combination(powers, row, real) for row in _B18]
    bs[3] = bs[3] + bs[0] @ bs[4]
    return bs[1] + (bs[2] + bs[3]) @ bs[3]


def _scale_square(a, norm, theta, real):
    """compute_T18_scale_square: degree 18 on A 2^-s, then s squarings."""
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.maximum(np.ceil(np.log2(norm / theta)), real(0.0))
    scaled = a * np.power(real(2.0), -s).astype(real)[:, None, None]
    result = _t18(scaled, real)
    for index in range(result.shape[0]):
        times = 0 if math.isnan(s[index]) else int(s[index])
        for _ in range(times):
            result[index] = result[index] @ result[index]
    return result


def _mexp(a: np.ndarray) -> np.ndarray:
    single = a.dtype in (np.float32, np.complex64)
    real = np.float32 if single else np.float64
    thetas = [real(t) for t in (_THETAS_FLOAT if single else _THETAS_DOUBLE)]
    norm = np.abs(a).sum(axis=-2).max(axis=-1).astype(real)
    with np.errstate(all="ignore"):
        if a.shape[0] > 1:
            return _scale_square(a, norm, thetas[-1], real)
        result = np.full(a.shape, np.nan, dtype=a.dtype)
        lower = real(-1.0)
        for degree, upper in zip((_t1, _t2, _t4, _t8, _t12), thetas):
            chosen = (lower < norm) & (norm <= upper)
            if chosen.any():
                result[chosen] = degree(a[chosen], real)
            lower = upper
        large = norm >= thetas[-2]
        if large.any():
            result[large] = _scale_square(a[large], norm[large], thetas[-1], real)
    return result


def linalg_matrix_exp(self):
    square_check_inputs(self, "linalg.matrix_exp")
    check_floating_or_complex(self, "linalg.matrix_exp")
    n = self._sizes[-1]
    if n == 0:
        return at.clone(self, None)
    if n == 1:
        return at.exp(self)
    if self.dtype in (dtypes.float16, dtypes.bfloat16):
        raise NotImplementedError(
            "linalg.matrix_exp: ember computes it in float32, float64, complex64 and complex128 "
            f"only, not {dtypes.scalar_type_name(self.dtype)}"
        )
    values = self.ndarray()
    flat = values.reshape((-1, n, n))
    if flat.shape[0] == 0:
        return Tensor._wrap(np.empty(values.shape, values.dtype), self.dtype)
    return Tensor._wrap(np.ascontiguousarray(_mexp(flat).reshape(values.shape)), self.dtype)


def matrix_exp(self):
    return at.linalg_matrix_exp(self)
