"""Matrix products against PyTorch 2.13: mm, bmm, addmm, dot, matmul, outer, linear.

Operands are built with the same values and (often transposed, strided)
geometry in both libraries; results must agree in values, dtypes, shapes and
strides, errors in type and text, and meta tensors in shapes and strides.
The helpers come from test_ops_reduction.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ops_support import same_outcome
from test_ops_reduction import SETTINGS, compare, compare_meta, pair, strided_pair

TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
DTYPES = ("float32", "float64", "int64")


def _operand(draw, shape, dtype):
    perm = draw(st.permutations(range(len(shape))))
    seed = draw(st.integers(0, 2**16))
    return strided_pair(shape, list(perm), dtype, seed)


sizes = st.integers(0, 4)


@SETTINGS
@given(st.data(), sizes, sizes, sizes, st.sampled_from(DTYPES))
def test_mm_addmm(data, n, m, p, dtype):
    a_e, a_t = _operand(data.draw, [n, m], dtype)
    b_e, b_t = _operand(data.draw, [m, p], dtype)
    compare(lambda lib, a, b: lib.mm(a, b), [a_e, b_e], [a_t, b_t], **TOLERANCE)
    compare(lambda lib, a, b: a.mm(b), [a_e, b_e], [a_t, b_t], **TOLERANCE)
    bias_shape = data.draw(st.sampled_from([[n, p], [p], [1, p], [n, 1], []]))
    c_e, c_t = _operand(data.draw, bias_shape, dtype)
    beta, alpha = data.draw(st.sampled_from([(1, 1), (0, 2), (2, 1), (0.5, -1), (2.9, 1.7)]))
    compare(
        lambda lib, c, a, b: lib.addmm(c, a, b, beta=beta, alpha=alpha),
        [c_e, a_e, b_e],
        [c_t, a_t, b_t],
        **TOLERANCE,
    )
    compare_meta(lambda lib, a, b: lib.mm(a, b), [((n, m), "float32"), ((m, p), "float32")])


@SETTINGS
@given(st.data(), sizes, sizes, sizes, sizes, st.sampled_from(DTYPES))
def test_bmm(data, b, n, m, p, dtype):
    a_e, a_t = _operand(data.draw, [b, n, m], dtype)
    c_e, c_t = _operand(data.draw, [b, m, p], dtype)
    compare(lambda lib, x, y: lib.bmm(x, y), [a_e, c_e], [a_t, c_t], **TOLERANCE)
    compare_meta(lambda lib, x, y: lib.bmm(x, y), [((b, n, m), "float32"), ((b, m, p), "float32")])


matmul_shapes = st.sampled_from(
    [
        ([3], [3]),
        ([2, 3], [3]),
        ([3], [3, 4]),
        ([2, 3], [3, 4]),
        ([2, 2, 3], [3]),
        ([3], [2, 3, 4]),
        ([2, 2, 3], [3, 4]),
        ([2, 3], [2, 3, 4]),
        ([2, 1, 2, 3], [3, 3, 2]),
        ([5, 2, 3], [1, 3, 2]),
        ([0, 2, 3], [3, 4]),
        ([2, 0, 3], [2, 3, 0]),
        ([2, 3, 0], [0, 2]),
    ]
)


@SETTINGS
@given(st.data(), matmul_shapes, st.sampled_from(DTYPES))
def test_matmul(data, shapes, dtype):
    shape_a, shape_b = shapes
    a_e, a_t = _operand(data.draw, shape_a, dtype)
    b_e, b_t = _operand(data.draw, shape_b, dtype)
    compare(lambda lib, x, y: lib.matmul(x, y), [a_e, b_e], [a_t, b_t], **TOLERANCE)
    compare(lambda lib, x, y: x @ y, [a_e, b_e], [a_t, b_t], **TOLERANCE)
    compare_meta(
        lambda lib, x, y: lib.matmul(x, y), [(tuple(shape_a), dtype), (tuple(shape_b), dtype)]
    )


@SETTINGS
@given(st.data(), sizes, sizes, st.sampled_from(DTYPES))
def test_dot_outer(data, n, m, dtype):
    a_e, a_t = _operand(data.draw, [n], dtype)
    b_e, b_t = _operand(data.draw, [n], dtype)
    c_e, c_t = _operand(data.draw, [m], dtype)
    compare(lambda lib, x, y: lib.dot(x, y), [a_e, b_e], [a_t, b_t], **TOLERANCE)
    if n * m > 0:  # empty outer products: TensorIterator's empty-output strides, tested there
        compare(lambda lib, x, y: lib.outer(x, y), [a_e, c_e], [a_t, c_t], **TOLERANCE)
    compare_meta(lambda lib, x, y: lib.dot(x, y), [((n,), "float32"), ((n,), "float32")])


@SETTINGS
@given(st.data(), st.sampled_from([[3], [2, 3], [2, 2, 3], [2, 1, 2, 3], [0, 3]]), sizes,
       st.booleans())  # fmt: skip
def test_linear(data, input_shape, out_features, with_bias):
    x_e, x_t = _operand(data.draw, input_shape, "float32")
    w_e, w_t = _operand(data.draw, [out_features, 3], "float32")
    b_e, b_t = _operand(data.draw, [out_features], "float32")
    bias = ([b_e], [b_t]) if with_bias else ([None], [None])
    compare(
        lambda lib, x, w, b: lib.nn.functional.linear(x, w, b),
        [x_e, w_e, *bias[0]],
        [x_t, w_t, *bias[1]],
        **TOLERANCE,
    )


def _pairs(*arrays):
    made = [pair(a) for a in arrays]
    return [m[0] for m in made], [m[1] for m in made]


def test_errors():
    f23 = np.ones((2, 3), np.float32)
    i32 = np.ones((3, 2), np.int64)
    cases = [
        (lambda lib, a, b: lib.mm(a, b), (f23, f23)),
        (lambda lib, a, b: lib.mm(a, b), (f23[0], f23)),
        (lambda lib, a, b: lib.mm(a, b), (f23, f23[0])),
        (lambda lib, a, b: lib.mm(a, b), (f23, i32)),
        (lambda lib, a, b: lib.mm(a, b), (f23 > 0, f23.T > 0)),
        (lambda lib, a, b: lib.bmm(a, b), (f23, f23)),
        (lambda lib, a, b: lib.bmm(a, b), (f23[None], f23[None])),
        (lambda lib, a, b: lib.bmm(a, b), (f23[None], i32[None])),
        (lambda lib, a, b: lib.dot(a, b), (f23[0], f23[1, :2])),
        (lambda lib, a, b: lib.dot(a, b), (f23, f23)),
        (lambda lib, a, b: lib.dot(a, b), (f23[0], i32[:, 0])),
        (lambda lib, a, b: lib.matmul(a, b), (np.float32(1), f23)),
        (lambda lib, a, b: lib.matmul(a, b), (f23, f23)),
        (lambda lib, a, b: lib.matmul(a, b), (np.ones(3, np.float32), np.ones(4, np.float32))),
        (lambda lib, a, b: lib.outer(a, b), (f23, f23[0])),
        (lambda lib, c, a, b: lib.addmm(c, a, b), (np.ones((2, 2), np.int64), f23, f23.T)),
        (lambda lib, c, a, b: lib.addmm(c, a, b), (np.ones(2, np.float32), f23, f23)),
        (lambda lib, c, a, b: lib.addmm(c, a, b), (np.ones(2, np.float32), f23[0], f23)),
        (lambda lib, c, a, b: lib.addmm(c, a, b), (np.ones(3, np.float32), f23, f23.T)),
    ]
    for fn, arrays in cases:
        ours, theirs = _pairs(*arrays)
        compare(fn, ours, theirs)


ADDMM_SCALARS = [
    ("int64", 1, 0.5), ("int64", 0.5, 1), ("int64", 2.9, 1.7), ("int64", 1, -0.5),
    ("int64", 1, True), ("int64", 1, 1j), ("int64", 1e100, 1j), ("int64", 1, 2**63),
    ("int64", 1, float("nan")), ("int64", 1, float("inf")), ("int32", 1, 2**40),
    ("uint8", 1, -1), ("uint8", 1, 300), ("int8", 1, 1.9), ("float32", 1, 1j),
    ("float32", 1, 1e300), ("float16", 1, 1e300), ("float16", 1, 1e5), ("complex64", 1j, 1j),
]  # fmt: skip


@pytest.mark.parametrize("dtype, beta, alpha", ADDMM_SCALARS)
@pytest.mark.parametrize("inner", [1, 3, 0])
def test_addmm_converts_alpha_and_beta_to_the_result_type(dtype, beta, alpha, inner):
    """Scalar::to<opmath_t>: 0.5 is 0 for integers, a value out of range is refused; with
    an empty inner dimension PyTorch multiplies self by the unconverted beta instead."""

    def addmm(lib):
        kind = getattr(lib, dtype)
        c = lib.ones(2, 2, dtype=kind) * 3
        a, b = lib.ones(2, inner, dtype=kind), lib.ones(inner, 2, dtype=kind)
        return lib.addmm(c, a, b, beta=beta, alpha=alpha), c.addmm_(a, b, beta=beta, alpha=alpha)

    same_outcome(addmm)
