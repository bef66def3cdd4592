"""linalg.pinv, matrix_rank, cond, cross, multi_dot, vander, tensorinv, tensorsolve,
matrix_exp, geqrf, householder_product and ormqr against PyTorch 2.13: values, shapes,
strides, dtypes, gradients, out=, the operators a TorchDispatchMode sees (C++'s argument
order included) and PyTorch's errors (type and text)."""

import numpy as np
import pytest
from linalg_breadth_support import _compare, _error, _grads, _same_ops, _t, _values
from oracle import torch

import ember

# -- pinv, matrix_rank, cond -----------------------------------------------------------------

PINV_SHAPES = [(3, 3), (3, 5), (5, 3), (2, 4, 4), (0, 0), (0, 3, 3), (2, 3, 0)]


@pytest.mark.parametrize("shape", PINV_SHAPES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_pinv_values(shape, dtype):
    a = _values(shape, dtype)
    tol = 1e-4 if dtype == "float32" else 1e-7
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype)), rtol=tol)
    _compare(lambda lib: lib.pinverse(_t(lib, a, dtype)), rtol=tol)
    _compare(lambda lib: _t(lib, a, dtype).pinverse(rcond=0.5), rtol=tol)
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype), 0.5), rtol=tol)
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype), rtol=0.5), rtol=tol)
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype), atol=0.8), rtol=tol)
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype), atol=lib.tensor(0.8)), rtol=tol)
    _compare(lambda lib: lib.linalg.pinv(_t(lib, a, dtype), lib.tensor(0.3)), rtol=tol)
    if shape[-1] == shape[-2]:
        h = a + np.conj(np.swapaxes(a, -1, -2))
        _compare(lambda lib: lib.linalg.pinv(_t(lib, h, dtype), hermitian=True), rtol=tol)


@pytest.mark.parametrize("shape", PINV_SHAPES + [(4, 4)])
@pytest.mark.parametrize("hermitian", [False, True])
def test_matrix_rank_values(shape, hermitian):
    a = _values(shape)
    if len(shape) >= 2 and shape[-1] == shape[-2] and shape[-1] == 4:
        a = a @ np.diag([1.0, 1.0, 0.0, 1e-20]) @ np.swapaxes(a, -1, -2)  # rank 2
    if hermitian and shape[-1] != shape[-2]:
        return
    if hermitian:
        a = a + np.swapaxes(a, -1, -2)
    for kwargs in ({}, {"atol": 0.5}, {"rtol": 0.3}, {"atol": 0.1, "rtol": 0.2}):
        _compare(
            lambda lib, kw=kwargs: lib.linalg.matrix_rank(_t(lib, a), hermitian=hermitian, **kw)
        )
    _compare(lambda lib: lib.linalg.matrix_rank(_t(lib, a), 0.5, hermitian))
    _compare(lambda lib: lib.linalg.matrix_rank(_t(lib, a), lib.tensor(0.5), hermitian))
    _compare(lambda lib: lib.linalg.matrix_rank(_t(lib, a), atol=lib.tensor(0.5)))


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 3, 3)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_cond_values(p, shape, dtype):
    a = _values(shape, dtype, shift=1.0)
    _compare(lambda lib: lib.linalg.cond(_t(lib, a, dtype), p))


def test_cond_singular_is_infinite():
    _compare(lambda lib: lib.linalg.cond(lib.zeros(3, 3), 1))
    _compare(lambda lib: lib.linalg.cond(lib.zeros(3, 3), "fro"))
    _compare(lambda lib: lib.linalg.cond(lib.zeros(2, 3, 3)))


def test_pinv_rank_cond_out():
    a = _values((3, 4))

    def fn(lib):
        out = [lib.empty(0, dtype=lib.float64) for _ in range(8)]
        lib.linalg.pinv(_t(lib, a), out=out[0])
        lib.linalg.pinv(_t(lib, a), 0.1, out=out[1])
        lib.linalg.pinv(_t(lib, a), atol=0.1, out=out[2])
        lib.linalg.pinv(_t(lib, a), lib.tensor(0.1), out=out[3])
        lib.linalg.cond(_t(lib, a), out=out[4])
        lib.linalg.cond(_t(lib, a[:, :3]), "fro", out=out[5])
        ranks = [lib.empty(0, dtype=lib.int64) for _ in range(4)]
        lib.linalg.matrix_rank(_t(lib, a), out=ranks[0])
        lib.linalg.matrix_rank(_t(lib, a), 0.5, out=ranks[1])
        lib.linalg.matrix_rank(_t(lib, a), atol=0.5, out=ranks[2])
        lib.linalg.matrix_rank(_t(lib, a), lib.tensor(0.5), out=ranks[3])
        return out[:6] + ranks

    _compare(fn)


PINV_ERRORS = [
    lambda lib: lib.linalg.pinv(lib.ones(3)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 3), rtol=lib.tensor(1j)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 3), atol=lib.tensor(1j)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 3), lib.tensor(1j)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 3), out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.linalg.pinv(lib.ones(3, 2), hermitian=True),
    lambda lib: lib.pinverse(lib.ones(3)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3, 3), atol=lib.tensor(1j)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3, 3), rtol=lib.tensor(1j)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3, 3), out=lib.empty(0, dtype=lib.bool)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3, 2), hermitian=True),
    lambda lib: lib.linalg.cond(lib.ones(3)),
    lambda lib: lib.linalg.cond(lib.ones(3, 3), 3),
    lambda lib: lib.linalg.cond(lib.ones(3, 3), 2.5),
    lambda lib: lib.linalg.cond(lib.ones(3, 3), "abc"),
    lambda lib: lib.linalg.cond(lib.ones(3, 2), 1),
    lambda lib: lib.linalg.cond(lib.ones(3, 2), 1.0),
    lambda lib: lib.linalg.cond(lib.ones(3, 2), float("inf")),
    lambda lib: lib.linalg.cond(lib.ones(3, 2), float("-inf")),
    lambda lib: lib.linalg.cond(lib.ones(3, 2), "fro"),
    lambda lib: lib.linalg.cond(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.cond(lib.ones(3, 3, dtype=lib.int64), 1),
    lambda lib: lib.linalg.cond(lib.ones(3, 3), out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.linalg.cond(lib.ones(3, 3), "nuc", out=lib.empty(0, dtype=lib.int64)),
]


@pytest.mark.parametrize("index", range(len(PINV_ERRORS)))
def test_pinv_rank_cond_errors(index):
    _error(PINV_ERRORS[index])


@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (5, 3), (2, 3, 3)])
def test_pinv_cond_grads(shape):
    a = _values(shape, shift=1.0)
    _grads(lambda lib, x: lib.linalg.pinv(x), [a])
    _grads(lambda lib, x: lib.pinverse(x), [a])
    _grads(lambda lib, x: lib.linalg.cond(x), [a])
    if shape[-1] == shape[-2]:
        _grads(lambda lib, x: lib.linalg.pinv(x + x.mT, hermitian=True), [a])
        _grads(lambda lib, x: lib.linalg.cond(x, "nuc"), [a])


def test_pinv_rank_cond_dispatch_sequences():
    a = _values((3, 3), shift=1.0)
    for call in (
        lambda lib: lib.linalg.pinv(_t(lib, a)),
        lambda lib: lib.linalg.pinv(_t(lib, a), rtol=1.0),
        lambda lib: lib.linalg.pinv(_t(lib, a), 0.1),
        lambda lib: lib.pinverse(_t(lib, a)),
        lambda lib: lib.linalg.matrix_rank(_t(lib, a)),
        lambda lib: lib.linalg.matrix_rank(_t(lib, a), hermitian=True),
        lambda lib: lib.linalg.matrix_rank(_t(lib, a), 0.5),
        lambda lib: lib.linalg.matrix_rank(_t(lib, a), atol=0.5),
        lambda lib: lib.linalg.cond(_t(lib, a)),
        lambda lib: lib.linalg.cond(_t(lib, a), 1),
        lambda lib: lib.linalg.cond(_t(lib, a), "fro"),
        lambda lib: lib.linalg.cond(_t(lib, a), "nuc"),
    ):
        _same_ops(call)


# -- cross, multi_dot, vander, tensorinv, tensorsolve ------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "int64", "complex128", "float32"])
@pytest.mark.parametrize(
    ("a_shape", "b_shape", "dim"),
    [((5, 3), (5, 3), -1), ((5, 3, 5), (5, 3, 5), 1), ((1, 3), (5, 3), -1), ((3,), (3,), 0),
     ((2, 1, 3), (1, 4, 3), 2), ((0, 3), (0, 3), 1)],
)  # fmt: skip
def test_cross_values(dtype, a_shape, b_shape, dim):
    a = np.round(_values(a_shape, dtype) * 10)
    b = np.round(_values(b_shape, dtype, seed=1) * 10)
    _compare(lambda lib: lib.linalg.cross(_t(lib, a, dtype), _t(lib, b, dtype), dim=dim))
    _compare(lambda lib: lib.cross(_t(lib, a, dtype), _t(lib, b, dtype), dim))
    _compare(lambda lib: _t(lib, a, dtype).cross(_t(lib, b, dtype), dim=dim))
    _compare(lambda lib: lib.cross(_t(lib, a, dtype), _t(lib, b, dtype)))
    _compare(
        lambda lib: lib.linalg.cross(
            _t(lib, a, dtype),
            _t(lib, b, dtype),
            dim=dim,
            out=lib.empty(0, dtype=getattr(lib, dtype)),
        )
    )


@pytest.mark.parametrize(
    "shapes",
    [[(3,), (3,)], [(2, 3), (3,)], [(3,), (3, 2)], [(2, 3), (3, 4)], [(2, 3), (3, 4), (4, 5)],
     [(5, 1), (1, 6), (6, 2)], [(3,), (3, 2), (2, 4), (4,)], [(1, 10), (10, 2), (2, 30), (30, 4), (4, 1)],
     [(2, 0), (0, 2)], [(0, 2), (2, 2), (2, 3)]],
)  # fmt: skip
def test_multi_dot_values_and_chain_order(shapes):
    arrays = [_values(s, seed=i) for i, s in enumerate(shapes)]
    _compare(lambda lib: lib.linalg.multi_dot([_t(lib, x) for x in arrays]))
    _compare(
        lambda lib: lib.linalg.multi_dot(
            [_t(lib, x) for x in arrays], out=lib.empty(0, dtype=lib.float64)
        )
    )
    _same_ops(lambda lib: lib.linalg.multi_dot([_t(lib, x) for x in arrays]))
    _grads(lambda lib, *xs: lib.linalg.multi_dot(list(xs)), arrays)


@pytest.mark.parametrize("shape", [(), (1,), (4,), (2, 3)])
@pytest.mark.parametrize("N", [None, 2, 5])
@pytest.mark.parametrize("dtype", ["float64", "int64", "complex128"])
def test_vander_values(shape, N, dtype):  # noqa: N803
    x = np.round(_values(shape, dtype) * 3)
    _compare(lambda lib: lib.linalg.vander(_t(lib, x, dtype), N=N))
    if dtype == "float64" and (N is not None or shape[-1:] not in ((), (1,))):
        _grads(lambda lib, v: lib.linalg.vander(v, N=N), [x])


@pytest.mark.parametrize(
    ("shape", "ind"), [((2, 2, 3, 12, 1), 3), ((4, 3, 6, 1, 2), 2), ((3, 3), 1)]
)
def test_tensorinv(shape, ind):
    a = _values(shape)
    _compare(lambda lib: lib.linalg.tensorinv(_t(lib, a), ind=ind))
    _compare(lambda lib: lib.linalg.tensorinv(_t(lib, a), ind, out=lib.empty(0, dtype=lib.float64)))
    # names=False: ember's reshape of a viewable non-contiguous tensor records ViewBackward0
    # where PyTorch records ReshapeAliasBackward0 (aten._reshape_alias)
    _grads(lambda lib, x: lib.linalg.tensorinv(x, ind=ind), [a], check_names=False)
    _same_ops(lambda lib: lib.linalg.tensorinv(_t(lib, a), ind=ind))


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "dims"),
    [((2, 3, 6), (2, 3), None), ((2, 3, 6), (2, 3), (0, 2)), ((3, 4, 4, 3), (3, 4), None),
     ((6, 2, 3), (2, 3), (0,))],
)  # fmt: skip
def test_tensorsolve(a_shape, b_shape, dims):
    a, b = _values(a_shape), _values(b_shape, seed=1)
    _compare(lambda lib: lib.linalg.tensorsolve(_t(lib, a), _t(lib, b), dims=dims))
    _compare(
        lambda lib: lib.linalg.tensorsolve(
            _t(lib, a), _t(lib, b), dims, out=lib.empty(0, dtype=lib.float64)
        )
    )
    _grads(lambda lib, x, y: lib.linalg.tensorsolve(x, y, dims=dims), [a, b])
    _same_ops(lambda lib: lib.linalg.tensorsolve(_t(lib, a), _t(lib, b), dims=dims))


PRODUCT_ERRORS = [
    lambda lib: lib.linalg.cross(lib.ones(3), lib.ones(3, dtype=lib.float64)),
    lambda lib: lib.linalg.cross(lib.ones(3, dtype=lib.bool), lib.ones(3, dtype=lib.bool)),
    lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(5, 1, 3)),
    lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(5, 3)),
    lambda lib: lib.linalg.cross(lib.ones(5, 3), lib.ones(5, 1)),
    lambda lib: lib.linalg.cross(lib.ones(5, 2), lib.ones(5, 2), dim=2),
    lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(2, 3), out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.linalg.cross(
        lib.ones(2, 3), lib.ones(2, 3), out=lib.empty(0, dtype=lib.float64)
    ),
    lambda lib: lib.cross(lib.ones(2, 4), lib.ones(2, 4)),
    lambda lib: lib.cross(lib.ones(3, 3), lib.ones(2, 1, 3)),
    lambda lib: lib.linalg.vander(lib.ones(3, dtype=lib.bool)),
    lambda lib: lib.linalg.vander(lib.ones(3, dtype=lib.float16)),
    lambda lib: lib.linalg.vander(lib.ones(3), N=1),
    lambda lib: lib.linalg.vander(lib.ones(3), N=0),
    lambda lib: lib.linalg.vander(lib.ones(1)),
    lambda lib: lib.linalg.vander(lib.tensor(2.0)),
    lambda lib: lib.linalg.multi_dot([lib.ones(3)]),
    lambda lib: lib.linalg.multi_dot([]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 2, 2), lib.ones(2, 2)]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 2), lib.ones(2, 2, 2)]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 2), lib.ones(2), lib.ones(2, 2)]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 2), lib.ones(2, 2, dtype=lib.float64)]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(2, 2)]),
    lambda lib: lib.linalg.multi_dot(
        [lib.ones(2, 2), lib.ones(2, 2)], out=lib.empty(0, dtype=lib.float64)
    ),
    lambda lib: lib.linalg.tensorinv(lib.ones(2, 3), ind=0),
    lambda lib: lib.linalg.tensorinv(lib.ones(2, 3)),
    lambda lib: lib.linalg.tensorinv(lib.zeros(2, 2), ind=1),
    lambda lib: lib.linalg.tensorinv(lib.zeros(2, 2, dtype=lib.int64), ind=1),
    lambda lib: lib.linalg.tensorinv(lib.eye(2), ind=1, out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.linalg.tensorsolve(lib.ones(2, 3, 6), lib.ones(2, 2)),
    lambda lib: lib.linalg.tensorsolve(lib.zeros(2, 3, 6), lib.ones(2, 3)),
    lambda lib: lib.linalg.tensorsolve(lib.ones(2, 3, 6), lib.ones(2, 3, dtype=lib.float64)),
    lambda lib: lib.linalg.tensorsolve(lib.ones(2, 3, 6), lib.ones(2, 3), dims=(5,)),
]


@pytest.mark.parametrize("index", range(len(PRODUCT_ERRORS)))
def test_product_errors(index):
    _error(PRODUCT_ERRORS[index])


@pytest.mark.parametrize(
    ("a_shape", "b_shape"), [((5, 3), (5, 3)), ((1, 3), (5, 3)), ((2, 3, 4), (2, 3, 4))]
)
def test_cross_grads_and_ops(a_shape, b_shape):
    a, b = _values(a_shape), _values(b_shape, seed=1)
    dim = 1 if len(a_shape) == 3 else -1
    _grads(lambda lib, x, y: lib.linalg.cross(x, y, dim=dim), [a, b])
    _grads(lambda lib, x, y: lib.cross(x, y, dim=dim), [a, b])
    _same_ops(lambda lib: lib.cross(_t(lib, a), _t(lib, b)))
    _same_ops(lambda lib: lib.linalg.vander(_t(lib, a[0])))


# -- matrix_exp ------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [0.0, 1e-9, 1e-5, 1e-3, 0.04, 0.2, 0.8, 3.0, 30.0])
@pytest.mark.parametrize("shape", [(4, 4), (1, 3, 3), (3, 4, 4)])
def test_matrix_exp_every_degree_float64(scale, shape):
    """Each Taylor degree, the scaling and squaring, batches: PyTorch's numbers to 1e-12."""
    a = _values(shape) * scale / max(1.0, shape[-1])
    e, t = _compare(lambda lib: lib.matrix_exp(_t(lib, a)), rtol=1e-12)
    _compare(lambda lib: lib.linalg.matrix_exp(_t(lib, a)), rtol=1e-12)
    _compare(lambda lib: _t(lib, a).matrix_exp(), rtol=1e-12)


@pytest.mark.parametrize("scale", [0.0, 1e-5, 0.03, 0.3, 1.0, 2.0])
@pytest.mark.parametrize("dtype", ["float32", "complex64", "complex128"])
def test_matrix_exp_single_and_complex(scale, dtype):
    a = _values((4, 4), dtype) * scale / 4
    _compare(lambda lib: lib.matrix_exp(_t(lib, a, dtype)), rtol=2e-6)


def test_matrix_exp_trivial_sizes_nan_and_errors():
    _compare(lambda lib: lib.matrix_exp(lib.zeros(0, 0)))
    _compare(lambda lib: lib.matrix_exp(lib.ones(2, 1, 1) * 2))
    _compare(lambda lib: lib.matrix_exp(lib.zeros(0, 3, 3)))
    _compare(lambda lib: lib.matrix_exp(lib.full((3, 3), float("nan"))))
    _error(lambda lib: lib.matrix_exp(lib.ones(3, 2)))
    _error(lambda lib: lib.matrix_exp(lib.ones(3)))
    _error(lambda lib: lib.matrix_exp(lib.eye(3, dtype=lib.int64)))
    _same_ops(lambda lib: lib.matrix_exp(_t(lib, _values((3, 3)))))


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
@pytest.mark.parametrize("scale", [0.01, 0.5, 3.0])
def test_matrix_exp_grads(shape, scale):
    _grads(lambda lib, x: lib.matrix_exp(x), [_values(shape) * scale])


# -- geqrf, householder_product, ormqr -------------------------------------------------------


@pytest.mark.parametrize("shape", [(5, 5), (5, 2), (2, 5), (5, 0), (2, 4, 3), (0, 3, 3)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_geqrf_householder_product_ormqr_values(shape, dtype):
    a = _values(shape, dtype)
    tol = 1e-5 if dtype == "float32" else 1e-9
    _compare(lambda lib: lib.geqrf(_t(lib, a, dtype)), rtol=tol)
    _compare(lambda lib: _t(lib, a, dtype).geqrf(), rtol=tol)
    m, n = shape[-2:]
    if m >= n:
        _compare(
            lambda lib: lib.linalg.householder_product(*lib.geqrf(_t(lib, a, dtype))), rtol=tol
        )
        _compare(lambda lib: lib.orgqr(*lib.geqrf(_t(lib, a, dtype))), rtol=tol)
    c = _values(shape[:-2] + (m, 3), dtype, seed=1)
    r = _values(shape[:-2] + (3, m), dtype, seed=2)
    for transpose in (False, True):
        _compare(
            lambda lib, tr=transpose: lib.ormqr(
                *lib.geqrf(_t(lib, a, dtype)), _t(lib, c, dtype), True, tr
            ),
            rtol=tol,
        )
        _compare(
            lambda lib, tr=transpose: (
                _t(lib, a, dtype).ormqr(
                    lib.geqrf(_t(lib, a, dtype))[1], _t(lib, r, dtype), left=False, transpose=tr
                )
                if min(m, n) == min(3, n)
                else None
            ),
            rtol=tol,
        )


def test_householder_out_variants():
    a, c = _values((4, 3)), _values((4, 2), seed=1)

    def fn(lib):
        pair = (lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.float64))
        lib.geqrf(_t(lib, a), out=pair)
        cast = (lib.empty(0, dtype=lib.complex128), lib.empty(0, dtype=lib.complex128))
        lib.geqrf(_t(lib, a), out=cast)
        q = lib.empty(0, dtype=lib.float64)
        lib.linalg.householder_product(*pair, out=q)
        q2 = lib.empty(4, 3, dtype=lib.float64)
        lib.linalg.householder_product(*pair, out=q2)
        o = lib.empty(0, dtype=lib.float64)
        lib.ormqr(pair[0], pair[1], _t(lib, c), out=o)
        return pair, cast, q, q2, o

    _compare(fn)


HOUSEHOLDER_ERRORS = [
    lambda lib: lib.geqrf(lib.ones(3)),
    lambda lib: lib.geqrf(lib.ones(3, 2, dtype=lib.int64)),
    lambda lib: lib.geqrf(lib.ones(3, 3), out=(lib.empty(0), lib.empty(0, dtype=lib.int64))),
    lambda lib: lib.ormqr(lib.ones(()), lib.ones(()), lib.ones(())),
    lambda lib: lib.ormqr(lib.ones(5, 0), lib.ones(5), lib.ones(5, 5), True, True),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(5), lib.ones(5)),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(5), lib.ones(4, 5)),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(5), lib.ones(5, 4), left=False),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(6), lib.ones(5, 5)),
    lambda lib: lib.ormqr(lib.ones(5, 3), lib.ones(2), lib.ones(5, 2)),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(1, 5), lib.ones(5, 5)),
    lambda lib: lib.ormqr(lib.ones(2, 5, 5), lib.ones(3, 5), lib.ones(2, 5, 5)),
    lambda lib: lib.ormqr(lib.ones(2, 5, 5), lib.ones(2, 5), lib.ones(3, 5, 5)),
    lambda lib: lib.ormqr(lib.ones(2, 5, 5), lib.ones(2, 5), lib.ones(5, 5)),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(5, dtype=lib.float64), lib.ones(5, 5)),
    lambda lib: lib.ormqr(lib.ones(5, 5), lib.ones(5), lib.ones(5, 5, dtype=lib.float64)),
    lambda lib: lib.ormqr(
        lib.ones(5, 5, dtype=lib.int64),
        lib.ones(5, dtype=lib.int64),
        lib.ones(5, 5, dtype=lib.int64),
    ),
    lambda lib: lib.ormqr(
        lib.ones(5, 5), lib.ones(5), lib.ones(5, 5), out=lib.empty(0, dtype=lib.float64)
    ),
    lambda lib: lib.linalg.householder_product(lib.ones(3), lib.ones(3)),
    lambda lib: lib.linalg.householder_product(lib.ones(3, 4), lib.ones(3)),
    lambda lib: lib.linalg.householder_product(lib.ones(4, 3), lib.ones(4)),
    lambda lib: lib.linalg.householder_product(lib.ones(4, 3), lib.ones(1, 3)),
    lambda lib: lib.linalg.householder_product(lib.ones(2, 4, 3), lib.ones(3, 3)),
    lambda lib: lib.linalg.householder_product(lib.ones(4, 3), lib.ones(3, dtype=lib.float64)),
    lambda lib: lib.linalg.householder_product(
        lib.ones(4, 3, dtype=lib.int64), lib.ones(3, dtype=lib.int64)
    ),
    lambda lib: lib.linalg.householder_product(
        lib.ones(4, 3), lib.ones(3), out=lib.empty(0, dtype=lib.int64)
    ),
]


@pytest.mark.parametrize("index", range(len(HOUSEHOLDER_ERRORS)))
def test_householder_errors(index):
    _error(HOUSEHOLDER_ERRORS[index])


@pytest.mark.parametrize("shape", [(5, 5), (6, 5), (5, 3), (2, 1, 5, 5)])
def test_householder_product_grads(shape):
    a = _values(shape)
    tau = _values(shape[:-2] + (min(shape[-2:]) - 1,), seed=4) * 0.5
    _grads(lambda lib, x, t: lib.linalg.householder_product(x, t), [a, tau])


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_ormqr_grads(left, transpose):
    a, tau = _values((5, 5)), _values((5,), seed=4) * 0.5
    c = _values((5, 3) if left else (3, 5), seed=1)
    _grads(lambda lib, x, t, y: lib.ormqr(x, t, y, left, transpose), [a, tau, c])


def test_geqrf_has_no_derivative():
    for lib in (ember, torch):
        x = _t(lib, _values((3, 3)), requires_grad=True)
        a, tau = lib.geqrf(x)
        assert type(a.grad_fn).__name__ == "GeqrfBackward0"
    _error(lambda lib: lib.geqrf(_t(lib, _values((3, 3)), requires_grad=True))[0].sum().backward())
