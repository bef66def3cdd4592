"""Reductions, softmax, cumsum and sorting against PyTorch 2.13.

Each case runs one function on an ember tensor and on a torch tensor of the
same values and geometry (often non-contiguous: an as_strided view of a
bigger buffer), then compares values, dtypes, shapes and strides, or the
error type and text; the same call on meta tensors must give the same
shapes, dtypes and strides. `compare` and `strided_pair` are shared with
test_ops_linalg.py and test_ops_nn.py.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import torch

import ember
from ember._tensor import tensor_from_numpy
from ember.aten.native import at

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))

NP_DTYPES = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "bool": np.bool_}


def random_array(shape, dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "int64":
        return rng.integers(-5, 6, shape).astype(np.int64)
    return rng.standard_normal(shape).astype(NP_DTYPES[dtype])


def pair(array, device: str = "cpu"):
    """(ember tensor, torch tensor) holding the same values."""
    array = np.asarray(array)
    ours = tensor_from_numpy(array, device=device)
    theirs = torch.tensor(array, device=device)
    return ours, theirs


def strided_pair(shape, perm, dtype="float32", seed=0, device="cpu"):
    """A non-contiguous view (dims permuted, every other element) in both libraries."""
    full = [max(2 * size, 1) for size in shape]
    base = random_array([full[d] for d in perm], dtype, seed)
    ours, theirs = pair(base, device)
    inverse = list(np.argsort(perm))
    ours, theirs = ours.permute(inverse), theirs.permute(inverse)
    strides = list(theirs.stride())
    strides = [s * 2 for s in strides]
    return ours.as_strided(list(shape), strides), theirs.as_strided(list(shape), strides)


def _run(fn, lib, args):
    try:
        return fn(lib, *args), None
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, error


def _flatten(result):
    if isinstance(result, (tuple, list)):
        return [item for part in result for item in _flatten(part)]
    return [result]


def _dtype_name(dtype) -> str:
    return str(dtype).split(".")[-1]


def check_same(ours, theirs, *, rtol=1e-5, atol=1e-6, values=True) -> None:
    ours, theirs = _flatten(ours), _flatten(theirs)
    assert len(ours) == len(theirs)
    for mine, ref in zip(ours, theirs):
        if not isinstance(ref, torch.Tensor):
            assert mine == ref
            continue
        assert _dtype_name(mine.dtype) == _dtype_name(ref.dtype)
        assert tuple(mine.shape) == tuple(ref.shape)
        if values or ref.numel() > 0:  # torch's meta decompositions stride empty outputs freely
            assert tuple(mine.stride()) == tuple(ref.stride()), (mine.stride(), ref.stride())
        if values and ref.device.type != "meta":
            expected = ref.detach().numpy()
            actual = np.asarray(mine.numpy())
            if expected.dtype.kind in "biu":
                np.testing.assert_array_equal(actual, expected)
            else:
                np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)


def compare(fn, ours_args, theirs_args, *, messages=True, **tolerances):
    """fn(lib, *args) in both libraries: the same error, or the same results."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine, my_error = _run(fn, ember, ours_args)
        ref, ref_error = _run(fn, torch, theirs_args)
    if ref_error is not None or my_error is not None:
        assert (my_error is None) == (ref_error is None), (my_error, ref_error)
        if messages:
            assert type(my_error) is type(ref_error), (my_error, ref_error)
            assert str(my_error) == str(ref_error)
        return None
    check_same(mine, ref, **tolerances)
    return mine, ref


def compare_meta(fn, shapes_dtypes):
    """The same call on meta tensors: shapes, dtypes, strides agree (torch's meta
    path runs Python decompositions, so only the fact of an error is compared)."""
    ours = [ember.empty(s, dtype=getattr(ember, d), device="meta") for s, d in shapes_dtypes]
    theirs = [torch.empty(s, dtype=getattr(torch, d), device="meta") for s, d in shapes_dtypes]
    compare(fn, ours, theirs, values=False, messages=False)


shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3)


@st.composite
def strided_inputs(draw, dtypes=("float32", "float64", "int64", "bool"), nonempty=False):
    shape = draw(st.lists(st.integers(1 if nonempty else 0, 4), min_size=0, max_size=3))
    perm = draw(st.permutations(range(len(shape))))
    dtype = draw(st.sampled_from(dtypes))
    seed = draw(st.integers(0, 2**16))
    return strided_pair(shape, list(perm), dtype, seed)


def _dims(draw, ndim):
    if ndim == 0:
        return draw(st.sampled_from([[], [0], [-1]]))
    return draw(st.lists(st.integers(-ndim, ndim - 1), min_size=0, max_size=ndim, unique=True))


# -- sum / mean / prod -------------------------------------------------------------


@SETTINGS
@given(strided_inputs(), st.data(), st.booleans())
def test_sum_mean_prod(inputs, data, keepdim):
    x_e, x_t = inputs
    dims = _dims(data.draw, x_t.dim())
    tolerance = {"rtol": 1e-4, "atol": 1e-5}
    compare(lambda m, x: m.sum(x), [x_e], [x_t], **tolerance)
    compare(lambda m, x: m.sum(x, dims, keepdim=keepdim), [x_e], [x_t], **tolerance)
    compare(lambda m, x: m.sum(x, dims, dtype=m.float64), [x_e], [x_t], **tolerance)
    compare(lambda m, x: m.mean(x), [x_e], [x_t], **tolerance)
    compare(lambda m, x: m.mean(x, dims, keepdim), [x_e], [x_t], **tolerance)
    compare(lambda m, x: x.mean(dtype=m.float64), [x_e], [x_t], **tolerance)
    compare(lambda m, x: m.prod(x), [x_e], [x_t], **tolerance)
    if x_t.dim() > 0:
        compare(lambda m, x: m.prod(x, -1, keepdim), [x_e], [x_t], **tolerance)
    compare_meta(lambda m, x: m.sum(x, dims, keepdim), [(tuple(x_t.shape), "float32")])


def test_sum_dtypes_and_out():
    x_e, x_t = pair(np.arange(6, dtype=np.int32).reshape(2, 3))
    compare(lambda m, x: m.sum(x), [x_e], [x_t])
    compare(lambda m, x: m.sum(x, dtype=m.int32), [x_e], [x_t])
    compare(lambda m, x: m.sum(x, 0), *map(list, zip(pair(np.array([[True, False]])))))
    compare(lambda m, x: m.sum(x, 0, out=m.empty(3, dtype=m.int64)), [x_e], [x_t])
    compare(lambda m, x: m.sum(x, [0, 0]), [x_e], [x_t])
    compare(lambda m, x: m.sum(x, 5), [x_e], [x_t])
    compare(lambda m, x: m.mean(x), [x_e], [x_t])
    compare(lambda m, x: m.mean(x, 0), [x_e], [x_t])
    compare(lambda m, x: m.mean(x, dtype=m.int64), *map(list, zip(pair(np.ones(3)))))
    f_e, f_t = pair(np.ones((2, 3), np.float32))
    compare(lambda m, x: m.mean(x, 1, out=m.empty(2)), [f_e], [f_t])
    compare(lambda m, x: m.mean(x, 0), *map(list, zip(pair(np.ones((2, 3), np.float16)))))


# -- amax / amin / argmax / argmin / max / min ----------------------------------------


@SETTINGS
@given(strided_inputs(dtypes=("float32", "int64", "bool")), st.data(), st.booleans())
def test_extremes(inputs, data, keepdim):
    x_e, x_t = inputs
    dims = _dims(data.draw, x_t.dim())
    dim = data.draw(st.integers(-max(x_t.dim(), 1), max(x_t.dim(), 1) - 1))
    compare(lambda m, x: m.amax(x, dims, keepdim), [x_e], [x_t])
    compare(lambda m, x: m.amin(x, dims, keepdim), [x_e], [x_t])
    compare(lambda m, x: m.max(x), [x_e], [x_t])
    compare(lambda m, x: m.min(x), [x_e], [x_t])
    compare(lambda m, x: m.argmax(x), [x_e], [x_t])
    compare(lambda m, x: m.argmin(x, dim, keepdim), [x_e], [x_t])
    compare(lambda m, x: m.argmax(x, keepdim=True), [x_e], [x_t])
    compare(lambda m, x: m.max(x, dim, keepdim), [x_e], [x_t])
    compare(lambda m, x: x.min(dim, keepdim=keepdim), [x_e], [x_t])
    if x_t.numel() > 0:  # torch's meta max() skips the empty-input check
        compare_meta(lambda m, x: m.max(x, dim, keepdim), [(tuple(x_t.shape), "float32")])


def test_extreme_errors_and_nan():
    e_e, e_t = pair(np.empty((0, 3), np.float32))
    for fn in (
        lambda m, x: m.max(x),
        lambda m, x: m.min(x),
        lambda m, x: m.max(x, 0),
        lambda m, x: m.max(x, 1),
        lambda m, x: m.amax(x, 0),
        lambda m, x: m.amax(x),
        lambda m, x: m.amin(x, 1),
        lambda m, x: m.argmax(x),
        lambda m, x: m.argmin(x, 0),
        lambda m, x: m.argmax(x, 1),
    ):
        compare(fn, [e_e], [e_t])
    n_e, n_t = pair(np.array([[1.0, np.nan, 3.0], [2.0, 0.5, -1.0]], np.float32))
    for fn in (
        lambda m, x: m.max(x),
        lambda m, x: m.max(x, 1),
        lambda m, x: m.argmax(x, 1),
        lambda m, x: m.argmin(x),
        lambda m, x: m.amin(x, 0),
    ):
        compare(fn, [n_e], [n_t])


def test_return_types():
    x_e, x_t = pair(np.array([[3.0, 1.0], [0.0, 2.0]], np.float32))
    result = ember.max(x_e, 0)
    assert isinstance(result, tuple) and type(result).__name__ == "max"
    assert result.values is result[0] and result.indices is result[1]
    expected = repr(torch.max(x_t, 0)).replace("torch.return_types", "ember.return_types")
    assert repr(result) == expected
    values, indices = ember.empty(2), ember.empty(2, dtype=ember.int64)
    out = ember.max(x_e, 1, out=(values, indices))
    assert type(out).__name__ == "max_out" and out.values is values
    assert type(ember.sort(x_e)).__name__ == "sort"
    assert type(x_e.topk(1)).__name__ == "topk"
    assert type(x_e.min(0)).__name__ == "min"


# -- all / any ------------------------------------------------------------------------


@SETTINGS
@given(strided_inputs(dtypes=("float32", "int64", "bool")), st.data(), st.booleans())
def test_all_any(inputs, data, keepdim):
    x_e, x_t = inputs
    dims = _dims(data.draw, x_t.dim())
    dim = data.draw(st.integers(-max(x_t.dim(), 1), max(x_t.dim(), 1) - 1))
    compare(lambda m, x: m.all(x), [x_e], [x_t])
    compare(lambda m, x: m.any(x), [x_e], [x_t])
    compare(lambda m, x: m.all(x, dim, keepdim), [x_e], [x_t])
    compare(lambda m, x: m.any(x, dims, keepdim), [x_e], [x_t])
    compare(lambda m, x: x.all(dims), [x_e], [x_t])


def test_all_any_uint8():
    x_e, x_t = pair(np.array([[0, 3], [1, 1]], np.uint8))
    compare(lambda m, x: m.all(x), [x_e], [x_t])
    compare(lambda m, x: m.any(x, 1), [x_e], [x_t])


# -- var / std / norm / logsumexp -----------------------------------------------------


@SETTINGS
@given(strided_inputs(dtypes=("float32", "float64"), nonempty=True), st.data(), st.booleans())
def test_var_std_norm_logsumexp(inputs, data, keepdim):
    x_e, x_t = inputs
    dims = _dims(data.draw, x_t.dim())
    correction = data.draw(st.sampled_from([None, 0, 1, 2.5]))
    p = data.draw(st.sampled_from([2, 1, 3, 0, math.inf, -math.inf, 0.5]))
    tolerance = {"rtol": 1e-4, "atol": 1e-5}
    compare(lambda m, x: m.var(x), [x_e], [x_t], **tolerance)
    compare(lambda m, x: m.var(x, dims, correction=correction, keepdim=keepdim), [x_e], [x_t],
            **tolerance)  # fmt: skip
    compare(lambda m, x: m.std(x, dims, correction=correction), [x_e], [x_t], **tolerance)
    compare(lambda m, x: m.var(x, dims, False, keepdim), [x_e], [x_t], **tolerance)
    compare(lambda m, x: m.std(x, unbiased=False), [x_e], [x_t], **tolerance)
    compare(lambda m, x: x.std(dims, keepdim=keepdim), [x_e], [x_t], **tolerance)
    compare(lambda m, x: m.ops.aten.norm.Scalar(x, p) if m is torch else m.norm(x, p),
            [x_e], [x_t], **tolerance)  # fmt: skip
    compare(lambda m, x: m.ops.aten.norm.ScalarOpt_dim(x, p, dims, keepdim) if m is torch
            else m.norm(x, p, dims, keepdim), [x_e], [x_t], **tolerance)  # fmt: skip
    if x_t.dim() > 0:
        compare(lambda m, x: m.logsumexp(x, dims or [0], keepdim), [x_e], [x_t], **tolerance)
    compare_meta(lambda m, x: m.var(x, dims, keepdim=keepdim), [(tuple(x_t.shape), "float32")])


def test_var_std_norm_errors():
    i_e, i_t = pair(np.arange(6).reshape(2, 3))
    f_e, f_t = pair(np.arange(6, dtype=np.float32).reshape(2, 3))
    compare(lambda m, x: m.var(x), [i_e], [i_t])
    compare(lambda m, x: m.std(x, 0), [i_e], [i_t])
    compare(lambda m, x: m.var(x, 0, correction=3), [f_e], [f_t])
    compare(lambda m, x: m.logsumexp(x, 1), [i_e], [i_t])
    compare(lambda m, x: m.ops.aten.norm.Scalar(x), [i_e], [i_t])
    compare(lambda m, x: m.norm(x), [i_e], [i_t])  # linalg_vector_norm's message
    with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
        ember.var(f_e, 0, correction=3)


# -- softmax / log_softmax / cumsum --------------------------------------------------


@SETTINGS
@given(strided_inputs(dtypes=("float32", "float64", "int64")), st.data())
def test_softmax_cumsum(inputs, data):
    x_e, x_t = inputs
    dim = data.draw(st.integers(-max(x_t.dim(), 1), max(x_t.dim(), 1) - 1))
    compare(lambda m, x: m.softmax(x, dim), [x_e], [x_t])
    compare(lambda m, x: m.log_softmax(x, dim), [x_e], [x_t], rtol=1e-4, atol=1e-5)
    compare(lambda m, x: m.softmax(x, dim, dtype=m.float64), [x_e], [x_t])
    compare(lambda m, x: m.cumsum(x, dim), [x_e], [x_t], rtol=1e-4, atol=1e-5)
    compare(lambda m, x: m.cumsum(x, dim, dtype=m.float64), [x_e], [x_t], rtol=1e-4, atol=1e-5)
    compare_meta(lambda m, x: m.softmax(x, dim), [(tuple(x_t.shape), "float32")])


def test_softmax_errors():
    x_e, x_t = pair(np.zeros((2, 3), np.float32))
    compare(lambda m, x: m.softmax(x, 2), [x_e], [x_t])
    compare(lambda m, x: m._softmax(x, 1, True) if m is torch else at._softmax(x, 1, True),
            [x_e], [x_t])  # fmt: skip
    i_e, i_t = pair(np.zeros((2, 3), np.int64))
    compare(lambda m, x: m.softmax(x, 0), [i_e], [i_t])
    compare(lambda m, x: m.log_softmax(x, 1), [i_e], [i_t])
    compare(lambda m, x: m.cumsum(x, 2), [x_e], [x_t])
    inf_e, inf_t = pair(np.array([[-np.inf, -np.inf], [0.0, -np.inf]], np.float32))
    compare(lambda m, x: m.softmax(x, 1), [inf_e], [inf_t])
    compare(lambda m, x: m.log_softmax(x, 1), [inf_e], [inf_t])


# -- sort / topk ------------------------------------------------------------------------


@SETTINGS
@given(strided_inputs(dtypes=("float32", "int64")), st.data(), st.booleans())
def test_sort_topk(inputs, data, descending):
    x_e, x_t = inputs
    dim = data.draw(st.integers(-max(x_t.dim(), 1), max(x_t.dim(), 1) - 1))
    compare(lambda m, x: m.sort(x, dim, descending), [x_e], [x_t])
    compare(lambda m, x: m.sort(x, stable=True, dim=dim, descending=descending), [x_e], [x_t])
    size = x_t.shape[dim] if x_t.dim() else 1
    k = data.draw(st.integers(0, size))
    if x_t.dtype == torch.float32:  # torch's topk orders ties arbitrarily: distinct values only
        compare(lambda m, x: m.topk(x, k, dim, largest=descending), [x_e], [x_t])
    compare_meta(lambda m, x: m.sort(x, dim), [(tuple(x_t.shape), "float32")])


def test_sort_ties_nan_and_errors():
    x_e, x_t = pair(np.array([2.0, np.nan, 1.0, 2.0, 1.0, np.nan], np.float32))
    compare(lambda m, x: m.sort(x), [x_e], [x_t])
    compare(lambda m, x: m.sort(x, descending=True, stable=True), [x_e], [x_t])
    compare(lambda m, x: m.topk(x, 2), [x_e], [x_t])
    compare(lambda m, x: m.topk(x, 7), [x_e], [x_t])
    compare(lambda m, x: m.topk(x, -1), [x_e], [x_t])
    compare(lambda m, x: m.sort(x, dim=3), [x_e], [x_t])
    values, indices = ember.empty(6), ember.empty(6, dtype=ember.int64)
    ember.sort(x_e, out=(values, indices))
    check_same((values, indices), torch.sort(x_t))


def test_logsumexp_complex_keeps_the_principal_imaginary_part():
    # Around the largest real part (ReduceOps.cpp): a complex maximum would move the
    # imaginary part by a multiple of 2*pi.
    values = np.array([[1 + 3j, 2 - 3j, 0.5 + 2.9j], [-1 - 3j, 3 + 3.1j, 2 - 2j]], np.complex128)
    x_e, x_t = pair(values)
    compare(lambda m, x: m.logsumexp(x, 1), [x_e], [x_t])
    compare(lambda m, x: m.logsumexp(x, 0, True), [x_e], [x_t])
