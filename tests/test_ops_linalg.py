"""Matrix products against PyTorch 2.13: mm, bmm, addmm, dot, matmul, outer, linear.

Operands are built with the same values and (often transposed, strided)
geometry in both libraries; results must agree in values, dtypes, shapes and
strides, errors in type and text, and meta tensors in shapes and strides.
The helpers come from test_ops_reduction.py.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
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
    beta, alpha = data.draw(st.sampled_from([(1, 1), (0, 2), (2, 1), (0.5, -1)]))
    if dtype == "int64" and isinstance(beta, float):
        beta, alpha = 2, 3
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
