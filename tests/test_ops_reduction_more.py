"""Reductions and scans against PyTorch 2.13: median / nanmedian (the tie index PyTorch
reports), kthvalue, mode, var_mean / std_mean (every overload, correction=), nansum,
nanmean, aminmax, cummax / cummin, logcumsumexp. Values, dtypes, the named tuples,
out=, errors (type and message), float64 gradients and grad_fn names."""

import numpy as np
import pytest
from diff_support import grads_agree, ops_seen
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_support import same_outcome
from oracle import torch

import ember

NAN = float("nan")
A = np.array([[3.0, 1.0, 2.0, 2.0], [0.5, NAN, -1.0, 0.5], [4.0, 4.0, 4.0, 1.0]])
TIES = np.array([[2.0, 1.0, 1.0, 2.0, 1.0, 2.0], [0.0, 0.0, 3.0, 0.0, 3.0, 3.0]])


def _a(lib, dtype=None):
    return lib.tensor(A, dtype=dtype or lib.float32)


def _t(lib, dtype=None):
    return lib.tensor(TIES, dtype=dtype or lib.float32)


FORWARD = {
    "median": lambda lib: lib.median(_t(lib)),
    "median_nan": lambda lib: _a(lib).median(),
    "median_empty": lambda lib: lib.median(lib.ones(0)),
    "median_int": lambda lib: lib.median(_t(lib, lib.int64)),
    "median_bool": lambda lib: lib.median(lib.tensor([True])),
    "median_dim": lambda lib: lib.median(_t(lib), 1),
    "median_dim_keepdim": lambda lib: _a(lib).median(dim=1, keepdim=True),
    "median_dim0": lambda lib: lib.median(_t(lib), 0),
    "median_0d": lambda lib: lib.median(lib.tensor(2.0), 0),
    "median_empty_dim": lambda lib: lib.median(lib.ones(2, 0), 1),
    "median_out": lambda lib: lib.median(
        _t(lib), 1, out=(lib.empty(0), lib.empty(0, dtype=lib.long))
    ),
    "median_out_bad": lambda lib: lib.median(_t(lib), 1, out=(lib.empty(0), lib.empty(0))),
    "nanmedian": lambda lib: lib.nanmedian(_a(lib)),
    "nanmedian_dim": lambda lib: lib.nanmedian(_a(lib), 1),
    "nanmedian_all_nan": lambda lib: lib.nanmedian(lib.tensor([NAN, NAN]), 0),
    "kthvalue": lambda lib: lib.kthvalue(_t(lib), 2),
    "kthvalue_dim0": lambda lib: _t(lib).kthvalue(1, 0, True),
    "kthvalue_nan": lambda lib: lib.kthvalue(_a(lib), 4, 1),
    "kthvalue_range": lambda lib: lib.kthvalue(_t(lib), 7),
    "kthvalue_empty": lambda lib: lib.kthvalue(lib.ones(0), 1),
    "kthvalue_0d": lambda lib: lib.kthvalue(lib.tensor(2.0), 1),
    "kthvalue_int": lambda lib: lib.kthvalue(_t(lib, lib.int32), 3),
    "kthvalue_out": lambda lib: lib.kthvalue(
        _t(lib), 2, out=(lib.empty(0), lib.empty(0, dtype=lib.long))
    ),
    "mode": lambda lib: lib.mode(_t(lib)),
    "mode_dim0": lambda lib: _t(lib).mode(0, True),
    "mode_bool": lambda lib: lib.mode(_t(lib) > 1),
    "mode_0d": lambda lib: lib.mode(lib.tensor(True)),
    "mode_empty": lambda lib: lib.mode(lib.ones(2, 0), 1),
    "mode_out": lambda lib: lib.mode(_t(lib), 1, out=(lib.empty(0), lib.empty(0).long())),
    "mode_out_bad": lambda lib: lib.mode(_t(lib), 1, out=(lib.empty(0), lib.empty(0))),
    "var_mean": lambda lib: lib.var_mean(_t(lib)),
    "var_mean_biased": lambda lib: lib.var_mean(_t(lib), False),
    "var_mean_dim": lambda lib: lib.var_mean(_t(lib), 1, keepdim=True),
    "var_mean_dims": lambda lib: lib.var_mean(_t(lib), [0, 1], False),
    "var_mean_correction": lambda lib: lib.var_mean(_t(lib), 0, correction=2),
    "var_mean_complex": lambda lib: lib.var_mean(_t(lib).cfloat() * (1 + 2j), 1),
    "var_mean_cdouble": lambda lib: lib.var_mean(_t(lib).cdouble() * (1 + 2j), 1),
    "var_mean_int": lambda lib: lib.var_mean(_t(lib, lib.int64)),
    "var_mean_dim_range": lambda lib: lib.var_mean(_t(lib), 5),
    "std_mean": lambda lib: lib.std_mean(_t(lib)),
    "std_mean_dim": lambda lib: lib.std_mean(_t(lib), 0, unbiased=False),
    "std_mean_correction": lambda lib: lib.std_mean(_t(lib), None, correction=0, keepdim=True),
    "std_mean_int": lambda lib: lib.std_mean(_t(lib, lib.int32), 0),
    "nansum": lambda lib: lib.nansum(_a(lib)),
    "nansum_dim": lambda lib: _a(lib).nansum(1, keepdim=True),
    "nansum_dtype": lambda lib: lib.nansum(_a(lib), 0, dtype=lib.float64),
    "nansum_int": lambda lib: lib.nansum(_t(lib, lib.int32)),
    "nansum_bool": lambda lib: lib.nansum(_t(lib) > 1, 1),
    "nansum_complex": lambda lib: lib.nansum(_t(lib).cfloat()),
    "nansum_out": lambda lib: lib.nansum(_a(lib), 1, out=lib.empty(0)),
    "nanmean": lambda lib: lib.nanmean(_a(lib)),
    "nanmean_dim": lambda lib: _a(lib).nanmean(1),
    "nanmean_all_nan": lambda lib: lib.nanmean(lib.tensor([NAN, NAN])),
    "nanmean_int": lambda lib: lib.nanmean(_t(lib, lib.int64)),
    "nanmean_out": lambda lib: lib.nanmean(_a(lib), 0, out=lib.empty(0)),
    "aminmax": lambda lib: lib.aminmax(_t(lib)),
    "aminmax_dim": lambda lib: _t(lib).aminmax(dim=1, keepdim=True),
    "aminmax_nan": lambda lib: lib.aminmax(_a(lib), dim=0),
    "aminmax_bool": lambda lib: lib.aminmax(_t(lib) > 1),
    "aminmax_empty": lambda lib: lib.aminmax(lib.ones(0)),
    "aminmax_empty_dim": lambda lib: lib.aminmax(lib.ones(2, 0), dim=1),
    "aminmax_complex": lambda lib: lib.aminmax(lib.ones(2, dtype=lib.complex64)),
    "aminmax_out": lambda lib: lib.aminmax(_t(lib), out=(lib.empty(0), lib.empty(0))),
    "aminmax_out_dtype": lambda lib: lib.aminmax(
        _t(lib), out=(lib.empty(0).double(), lib.empty(0))
    ),
    "cummax": lambda lib: lib.cummax(_a(lib), 1),
    "cummax_ties": lambda lib: lib.cummax(_t(lib), 1),
    "cummin": lambda lib: _t(lib).cummin(0),
    "cummin_int": lambda lib: lib.cummin(_t(lib, lib.int64), 1),
    "cummax_nan": lambda lib: lib.cummax(lib.tensor([1.0, NAN, 2.0, NAN]), 0),
    "cummax_0d": lambda lib: lib.cummax(lib.tensor(1.0), 0),
    "cummax_complex": lambda lib: lib.cummax(lib.ones(2, dtype=lib.complex64), 0),
    "cummax_dim": lambda lib: lib.cummax(_t(lib), 2),
    "cummax_out": lambda lib: lib.cummax(_t(lib), 1, out=(lib.empty(0), lib.empty(0).long())),
    "logcumsumexp": lambda lib: lib.logcumsumexp(_t(lib), 1),
    "logcumsumexp_inf": lambda lib: lib.logcumsumexp(lib.tensor([1.0, -float("inf"), 2.0]), 0),
    "logcumsumexp_int": lambda lib: lib.logcumsumexp(_t(lib, lib.int64), 0),
    "logcumsumexp_dim": lambda lib: _t(lib).logcumsumexp(3),
    "logcumsumexp_out": lambda lib: lib.logcumsumexp(_t(lib), 0, out=lib.empty(0)),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_against_torch(name):
    same_outcome(FORWARD[name])


def test_named_tuples_print_as_torch():
    for name in ("median_dim", "kthvalue", "mode", "aminmax", "cummax"):
        results = [FORWARD[name](lib) for lib in (ember, torch)]
        assert type(results[0]).__name__ == type(results[1]).__name__
        assert results[0]._fields == results[1]._fields if hasattr(results[1], "_fields") else True
        texts = [repr(r).replace("torch.", "ember.") for r in results]
        assert texts[0] == texts[1]


FINITE = np.array([[3.0, 1.0, 2.0, 2.5], [0.5, -1.5, -1.0, 0.25], [4.0, 4.5, 3.5, 1.0]])

GRADS = {
    "median": (lambda lib, a: lib.median(a), [FINITE]),
    "median_ties": (lambda lib, a: lib.median(a), [TIES]),
    "median_dim": (lambda lib, a: lib.median(a, 1, keepdim=True), [FINITE]),
    "nanmedian_dim": (lambda lib, a: lib.nanmedian(a, 0), [A]),
    "kthvalue": (lambda lib, a: lib.kthvalue(a, 2, 0), [FINITE]),
    "mode": (lambda lib, a: lib.mode(a, 1), [TIES]),
    "var_mean": (lambda lib, a: lib.var_mean(a, 1), [FINITE]),
    "var_mean_correction": (lambda lib, a: lib.var_mean(a, None, correction=0), [FINITE]),
    "std_mean": (lambda lib, a: lib.std_mean(a, 0, keepdim=True), [FINITE]),
    "var_only": (lambda lib, a: lib.var_mean(a, 1)[0], [FINITE]),
    "mean_only": (lambda lib, a: lib.std_mean(a, 1)[1], [FINITE]),
    "nansum": (lambda lib, a: lib.nansum(a, 1), [A]),
    "nanmean": (lambda lib, a: lib.nanmean(a, 0), [A]),
    "aminmax": (lambda lib, a: lib.aminmax(a, dim=1), [TIES]),
    "aminmax_min": (lambda lib, a: lib.aminmax(a)[0], [TIES]),
    "cummax": (lambda lib, a: lib.cummax(a, 1), [TIES]),
    "cummin": (lambda lib, a: lib.cummin(a, 0), [FINITE]),
    "logcumsumexp": (lambda lib, a: lib.logcumsumexp(a, 1), [FINITE]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_against_torch(name):
    fn, arrays = GRADS[name]
    grads_agree(fn, arrays)


def test_mode_sees_torch_operators():
    def program(lib):
        x = lib.tensor(A.tolist())
        lib.nanmean(x, 1)
        lib.median(x, 0)
        lib.var_mean(x, 1)
        lib.logcumsumexp(x, 0)
        lib.cummax(x, 1)

    assert ops_seen(program, ember) == ops_seen(program, torch)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 40),
    rows=st.integers(1, 3),
    seed=st.integers(0, 10_000),
    high=st.integers(1, 4),
    nan=st.booleans(),
)
def test_selection_tie_indices_over_inputs(n, rows, seed, high, nan):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, high, size=(rows, n)).astype(np.float64)
    if nan:
        values[rng.integers(0, rows), rng.integers(0, n)] = NAN
    k = int(rng.integers(1, n + 1))
    same_outcome(lambda lib: lib.median(lib.tensor(values), 1))
    same_outcome(lambda lib: lib.nanmedian(lib.tensor(values), 1))
    same_outcome(lambda lib: lib.kthvalue(lib.tensor(values), k, 1))
    same_outcome(lambda lib: lib.mode(lib.tensor(values), 1))
    same_outcome(lambda lib: lib.cummax(lib.tensor(values), 1))
    same_outcome(lambda lib: lib.cummin(lib.tensor(values), 1))


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    data=st.data(),
    dtype=st.sampled_from(["float32", "float64"]),
)
def test_var_mean_and_nan_reductions_over_shapes(shape, data, dtype):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1) | st.none())
    keepdim = data.draw(st.booleans())
    values = np.random.default_rng(len(shape)).standard_normal(shape)
    values[values > 1.2] = NAN

    def check(fn):
        e, t = fn(ember), fn(torch)
        for a, b in zip(e, t):
            assert a.dtype.name == str(b.dtype).removeprefix("torch.")
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, equal_nan=True)

    check(
        lambda lib: lib.var_mean(
            lib.tensor(values, dtype=getattr(lib, dtype)), dim, keepdim=keepdim
        )
    )
    check(
        lambda lib: (
            lib.nansum(lib.tensor(values, dtype=getattr(lib, dtype)), dim, keepdim),
            lib.nanmean(lib.tensor(values, dtype=getattr(lib, dtype)), dim, keepdim),
        )
    )
