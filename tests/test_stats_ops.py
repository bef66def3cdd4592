"""cov, corrcoef, quantile, nanquantile, histogram, histogramdd, gradient and index_reduce
against PyTorch 2.13: values, dtypes, gradients, errors, and (for the composite ones) the
operator sequence a dispatch mode sees.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode as EmberMode


def _np(t):
    if str(t.dtype).endswith("float16"):
        t = t.float()
    return t.detach().numpy()


def _leaves(value):
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _leaves(v)]
    return [value]


def _assert_same_values(want, got, exact=False):
    assert type(got).__name__ == type(want).__name__
    for w, g in zip(_leaves(want), _leaves(got), strict=True):
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
        assert tuple(g.shape) == tuple(w.shape)
        if exact:
            np.testing.assert_array_equal(_np(g), _np(w))
        else:
            np.testing.assert_allclose(_np(g), _np(w), rtol=1.3e-6, atol=1e-5, equal_nan=True)


def _ember(t):
    dtype = getattr(ember, str(t.dtype).split(".")[-1])
    e = ember.from_numpy(np.array(_np(t), copy=True)).to(dtype)
    return e.detach().requires_grad_(t.requires_grad)


def _run(fn, *tensors):
    return fn(torch, *tensors), fn(ember, *[_ember(t) for t in tensors])


def _assert_same_error(fn, *tensors):
    outcomes = []
    for lib, args in ((torch, tensors), (ember, [_ember(t) for t in tensors])):
        with pytest.raises(Exception) as info, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(lib, *args)
        outcomes.append((type(info.value).__name__, str(info.value)))
    assert outcomes[1] == outcomes[0]


def _trace(lib, fn, *tensors):
    mode_class = torch.utils._python_dispatch.TorchDispatchMode if lib is torch else EmberMode
    seen = []

    class Record(mode_class):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func).split(".", 1)[1])
            return func(*args, **(kwargs or {}))

    with Record(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn(lib, *tensors)
    return seen


def _assert_same_trace(fn, make):
    assert _trace(ember, fn, *make(ember)) == _trace(torch, fn, *make(torch))


def _assert_same_grads(fn, *tensors):
    """Gradients of sum(result * cotangent) for every float64 input requiring grad."""
    results = []
    for lib, args in ((torch, tensors), (ember, [_ember(t) for t in tensors])):
        out = [o for o in _leaves(fn(lib, *args)) if o.requires_grad]
        generator = np.random.default_rng(0)
        seeds = [lib.from_numpy(generator.standard_normal(tuple(o.shape))) for o in out]
        inputs = [a for a in args if a.requires_grad]
        grads = lib.autograd.grad(out, inputs, seeds, allow_unused=True)
        results.append(([type(o.grad_fn).__name__ for o in out], grads))
    (want_names, want), (got_names, got) = results
    assert got_names == want_names
    for w, g in zip(want, got, strict=True):
        assert (w is None) == (g is None)
        if w is not None:
            np.testing.assert_allclose(_np(g), _np(w), rtol=1e-7, atol=1e-10)


def _data(*shape, dtype=torch.float64, seed=0, requires_grad=False):
    t = torch.from_numpy(np.random.default_rng(seed).standard_normal(shape)).to(dtype)
    return t.requires_grad_(requires_grad)


# -- cov / corrcoef ------------------------------------------------------------------------

COV_CASES = {
    "plain": lambda lib, x: lib.cov(x),
    "correction0": lambda lib, x: lib.cov(x, correction=0),
    "correction3": lambda lib, x: x.cov(correction=3),
    "fweights": lambda lib, x: lib.cov(x, fweights=lib.arange(1, x.shape[-1] + 1)),
    "aweights": lambda lib, x: lib.cov(x, aweights=lib.linspace(0.1, 1, x.shape[-1])),
    "both": lambda lib, x: lib.cov(
        x,
        correction=2,
        fweights=lib.ones(x.shape[-1], dtype=lib.int32) * 2,
        aweights=lib.linspace(0.5, 1, x.shape[-1], dtype=lib.float64),
    ),  # fmt: skip
    "corrcoef": lambda lib, x: lib.corrcoef(x),
    "corrcoef_method": lambda lib, x: x.corrcoef(),
}


@pytest.mark.parametrize("shape", [(3, 5), (7,), (1, 6), (4, 1), (2, 2)])
@pytest.mark.parametrize("case", sorted(COV_CASES))
def test_cov_and_corrcoef_values_grads_and_operators(case, shape):
    fn = COV_CASES[case]
    x = _data(*shape, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = fn(torch, x)
        except RuntimeError:  # a single observation and one weight: in.zero_() on a leaf
            _assert_same_error(fn, x)
            return
        got = fn(ember, _ember(x))
        _assert_same_values(want, got)
        if want.requires_grad and not torch.isnan(want).any():
            _assert_same_grads(fn, x)
    _assert_same_trace(fn, lambda lib: [_ember(x.detach()) if lib is ember else x.detach()])


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32, torch.uint8])
def test_cov_of_other_dtypes(dtype):
    x = (_data(3, 4) * 10).to(dtype)
    for fn in COV_CASES.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _assert_same_values(*_run(fn, x))


def test_cov_single_observation_with_one_weight_zeroes_the_input_as_torch_does():
    x = torch.tensor([[1.0], [3.0]])
    e = _ember(x)
    want = torch.cov(x, fweights=torch.tensor([2]))
    got = ember.cov(e, fweights=ember.tensor([2]))
    _assert_same_values(want, got)
    np.testing.assert_array_equal(e.numpy(), x.numpy())  # both zeroed in place


def test_cov_warns_when_the_degrees_of_freedom_are_not_positive():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match=r"cov\(\): degrees of freedom is <= 0"):
            lib.cov(lib.ones(2, 1))


BAD_COV = [
    lambda lib, x: lib.cov(x.reshape(1, 2, 3)),
    lambda lib, x: lib.cov(x > 0),
    lambda lib, x: lib.cov(x, fweights=lib.ones(2, 3, dtype=lib.int64)),
    lambda lib, x: lib.cov(x, fweights=lib.ones(3)),
    lambda lib, x: lib.cov(x, fweights=lib.ones(4, dtype=lib.int64)),
    lambda lib, x: lib.cov(x, fweights=-lib.ones(3, dtype=lib.int64)),
    lambda lib, x: lib.cov(x, aweights=lib.ones(3, dtype=lib.int64)),
    lambda lib, x: lib.cov(x, aweights=-lib.ones(3)),
    lambda lib, x: lib.cov(x, aweights=lib.zeros(3)),
    lambda lib, x: lib.cov(x, aweights=lib.ones(2, 3)),
    lambda lib, x: lib.corrcoef(x.reshape(1, 2, 3)),
]


@pytest.mark.parametrize("case", range(len(BAD_COV)))
def test_cov_errors_are_torch(case):
    _assert_same_error(BAD_COV[case], _data(2, 3, dtype=torch.float32))


# -- quantile / nanquantile ----------------------------------------------------------------

MODES = ("linear", "lower", "higher", "midpoint", "nearest")


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("shape", "dim", "keepdim"),
    [((7,), None, False), ((3, 4), None, True), ((3, 4), 0, False), ((3, 4), 1, True),
     ((2, 3, 5), -2, False), ((), None, False), ((), 0, True)],
)  # fmt: skip
def test_quantile_values_grads_and_operators(name, mode, shape, dim, keepdim):
    x = _data(*shape, requires_grad=True)
    q_values = (0.0, 0.3, 1.0) if shape else (0.5,)
    q_tensor = torch.tensor(q_values, dtype=torch.float64)
    for fn in (
        lambda lib, x, q: getattr(lib, name)(x, 0.25, dim, keepdim, interpolation=mode),
        lambda lib, x, q: getattr(lib, name)(x, q, dim, keepdim, interpolation=mode),
    ):
        _assert_same_values(*_run(fn, x, q_tensor), exact=True)
        _assert_same_grads(fn, x, q_tensor)
        _assert_same_trace(
            fn,
            lambda lib: [x.detach(), q_tensor] if lib is torch else [_ember(x), _ember(q_tensor)],
        )


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_with_nan(name):
    x = torch.tensor([[1.0, float("nan"), 3.0, 2.0], [float("nan")] * 4, [4.0, 1, 2, 3]])
    for dim in (None, 1, 0):
        fn = lambda lib, x, dim=dim: getattr(lib, name)(x, 0.4, dim)  # noqa: E731
        _assert_same_values(*_run(fn, x), exact=True)


def test_quantile_out_and_method():
    x = _data(3, 4, dtype=torch.float32)
    q = torch.tensor([0.2, 0.9])
    for lib, xx, qq in ((torch, x, q), (ember, _ember(x), _ember(q))):
        out = lib.empty(0)
        lib.quantile(xx, qq, 1, out=out)
        lib.nanquantile(xx, 0.5, 0, True, out=lib.empty(0))
        if lib is torch:
            want = (out, x.quantile(0.3), x.nanquantile(q, dim=0))
        else:
            got = (out, xx.quantile(0.3), xx.nanquantile(qq, dim=0))
    _assert_same_values(want, got, exact=True)


@given(
    data=st.lists(st.floats(-1e6, 1e6) | st.just(float("nan")), min_size=1, max_size=30),
    q=st.floats(0, 1),
    mode=st.sampled_from(MODES),
)
@settings(max_examples=60, deadline=None)
def test_quantile_matches_torch_on_any_data(data, q, mode):
    x = torch.tensor(data, dtype=torch.float64)
    for name in ("quantile", "nanquantile"):
        fn = lambda lib, x, name=name: getattr(lib, name)(x, q, interpolation=mode)  # noqa: E731
        _assert_same_values(*_run(fn, x), exact=True)


BAD_QUANTILE = [
    lambda lib, x: lib.quantile(x, 1.5),
    lambda lib, x: lib.quantile(x, float("nan")),
    lambda lib, x: lib.quantile(x, lib.tensor([0.2, 1.7])),
    lambda lib, x: lib.quantile(x, lib.tensor([[0.2]])),
    lambda lib, x: lib.quantile(x, lib.tensor([0.2], dtype=lib.float64)),
    lambda lib, x: lib.quantile(x.long(), 0.2),
    lambda lib, x: lib.quantile(x.long(), 1.2, interpolation="foo"),
    lambda lib, x: lib.quantile(x.long(), 0.2, interpolation="foo"),
    lambda lib, x: lib.quantile(lib.empty(0), 0.2),
    lambda lib, x: lib.quantile(x, 0.2, dim=3),
    lambda lib, x: lib.quantile(x, lib.tensor([0.2]), out=lib.empty(2, dtype=lib.float64)),
    lambda lib, x: lib.nanquantile(x, -0.1),
    lambda lib, x: lib.nanquantile(x.half(), 0.1),
]


@pytest.mark.parametrize("case", range(len(BAD_QUANTILE)))
def test_quantile_errors_are_torch(case):
    _assert_same_error(BAD_QUANTILE[case], _data(3, 4, dtype=torch.float32))


# -- histogram / histogramdd ---------------------------------------------------------------

HISTOGRAMS = {
    "count": lambda lib, x, w: lib.histogram(x, 5),
    "range": lambda lib, x, w: lib.histogram(x, 4, range=(-0.5, 0.7)),
    "weight_density": lambda lib, x, w: lib.histogram(x, 3, weight=w, density=True),
    "edges": lambda lib, x, w: lib.histogram(x, x.new_tensor([-2.0, -0.1, 0.0, 0.4, 3.0])),
    "edges_density": lambda lib, x, w: x.histogram(
        lib.linspace(-1, 1, 6, dtype=x.dtype), weight=w, density=True
    ),
    "dd_counts": lambda lib, x, w: lib.histogramdd(x.reshape(-1, 2), [3, 4]),
    "dd_int": lambda lib, x, w: lib.histogramdd(x.reshape(-1, 3), 2, density=True),
    "dd_range": lambda lib, x, w: lib.histogramdd(
        x.reshape(-1, 2), [2, 2], range=[-1.0, 1.0, 0.0, 2.0], weight=w.reshape(-1, 2)[:, 0]
    ),
    "dd_edges": lambda lib, x, w: lib.histogramdd(
        x.reshape(-1, 2), [x.new_tensor([-1.0, 0.0, 1.0]), x.new_tensor([-3.0, 3.0])]
    ),
    "unsorted_edges": lambda lib, x, w: lib.histogram(x, x.new_tensor([0.5, -1.0, 2.0])),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("case", sorted(HISTOGRAMS))
def test_histogram_values_and_result_types(case, dtype):
    x = _data(4, 6, dtype=dtype)
    w = _data(4, 6, dtype=dtype, seed=1).abs()
    fn = HISTOGRAMS[case]
    want, got = _run(fn, x, w)
    assert type(got).__qualname__ == type(want).__qualname__  # return_types.histogram(dd)
    assert type(got.bin_edges).__name__ == type(want.bin_edges).__name__  # a tuple for dd
    _assert_same_values(tuple(want), tuple(got))
    _assert_same_trace(
        lambda lib, x, w: fn(lib, x, w),
        lambda lib: [x, w] if lib is torch else [_ember(x), _ember(w)],
    )


def test_histogram_out_gives_its_tensors():
    x = _data(10, dtype=torch.float32)
    hist, edges = ember.empty(0), ember.empty(0)
    result = ember.histogram(_ember(x), 3, out=(hist, edges))
    want = torch.histogram(x, 3, out=(torch.empty(0), torch.empty(0)))
    assert type(result).__name__ == type(want).__name__ == "histogram_out"
    assert result.hist is hist and result.bin_edges is edges
    _assert_same_values(tuple(want), tuple(result))


BAD_HISTOGRAM = [
    lambda lib, x: lib.histogram(x.long(), 3),
    lambda lib, x: lib.histogram(x.long(), 3, range=[0.0, 1.0]),
    lambda lib, x: lib.histogram(x, -1),
    lambda lib, x: lib.histogram(x, 3, range=[0.0, 1.0, 2.0]),
    lambda lib, x: lib.histogram(x, 3, range=[1.0, 0.0]),
    lambda lib, x: lib.histogram(x, 3, range=[0.0, float("inf")]),
    lambda lib, x: lib.histogram(x, 3, weight=lib.ones(3)),
    lambda lib, x: lib.histogram(x, 3, weight=lib.ones(5, 2).double()),
    lambda lib, x: lib.histogram(x, lib.arange(3)),
    lambda lib, x: lib.histogram(x, lib.ones(2, 2)),
    lambda lib, x: lib.histogram(x, lib.ones(0)),
    lambda lib, x: lib.histogram(x.half(), 3),
    lambda lib, x: lib.histogram(x, 3, out=(lib.empty(0).double(), lib.empty(0))),
    lambda lib, x: lib.histogram(lib.tensor([1.0, float("nan")]), 3),
    lambda lib, x: lib.histogramdd(x, [1, 1, 1]),
    lambda lib, x: lib.histogramdd(x[0], [1]),
    lambda lib, x: lib.histogramdd(x, [lib.ones(2), lib.ones(2).double()]),
    lambda lib, x: lib.histogramdd(x, [2, 0]),
    lambda lib, x: lib.histogramdd(x, [2, 2], weight=lib.ones(4)),
]


@pytest.mark.parametrize("case", range(len(BAD_HISTOGRAM)))
def test_histogram_errors_are_torch(case):
    _assert_same_error(BAD_HISTOGRAM[case], _data(5, 2, dtype=torch.float32))


@given(
    data=st.lists(st.floats(-100, 100, width=32), min_size=0, max_size=40),
    bins=st.integers(1, 12),
)
@settings(max_examples=60, deadline=None)
def test_histogram_bins_match_torch_at_the_edges(data, bins):
    """The local search keeps each value in the bin its computed edges give it."""
    x = torch.tensor(data, dtype=torch.float32)
    _assert_same_values(*_run(lambda lib, x: tuple(lib.histogram(x, bins)), x), exact=True)


# -- gradient ------------------------------------------------------------------------------

GRADIENTS = {
    "default": lambda lib, x, c0, c1: lib.gradient(x),
    "scalar": lambda lib, x, c0, c1: lib.gradient(x, spacing=2.0, dim=1, edge_order=2),
    "scalar_dims": lambda lib, x, c0, c1: lib.gradient(x, spacing=0.5, dim=[1, 0]),
    "scalars": lambda lib, x, c0, c1: lib.gradient(x, spacing=[2.0, 3], edge_order=2),
    "scalars_dims": lambda lib, x, c0, c1: lib.gradient(x, spacing=(1.5,), dim=(-1,)),
    "dims": lambda lib, x, c0, c1: lib.gradient(x, dim=[1]),
    "coordinates2": lambda lib, x, c0, c1: lib.gradient(x, spacing=[c0, c1], edge_order=2),
    "coordinates1": lambda lib, x, c0, c1: lib.gradient(x, spacing=(c0, c1), dim=(0, 1)),
    "coordinate_int_dim": lambda lib, x, c0, c1: lib.gradient(x, spacing=[c1], dim=1),
}


@pytest.mark.parametrize("case", sorted(GRADIENTS))
def test_gradient_values_grads_and_operators(case):
    fn = GRADIENTS[case]
    x = _data(4, 5, requires_grad=True)
    c0 = torch.tensor([1.0, 2.0, 4.0, 5.0], dtype=torch.float64)
    c1 = torch.tensor([0.0, 1.0, 1.5, 3.0, 6.0], dtype=torch.float64)
    want, got = _run(fn, x, c0, c1)
    assert type(got) is tuple and type(want) is tuple
    _assert_same_values(want, got, exact=True)
    _assert_same_grads(fn, x, c0, c1)
    _assert_same_trace(
        fn, lambda lib: [x.detach(), c0, c1] if lib is torch else [_ember(t) for t in (x, c0, c1)]
    )


@pytest.mark.parametrize("dtype", [torch.int64, torch.int16, torch.float32, torch.complex64])
def test_gradient_of_other_dtypes(dtype):
    x = (_data(3, 4) * 10).to(dtype)
    for case in ("default", "scalar", "scalars"):
        _assert_same_values(*_run(lambda lib, x, case=case: GRADIENTS[case](lib, x, None, None), x))


BAD_GRADIENT = [
    lambda lib, x: lib.gradient(x, spacing=[0.1], dim=(1, 0)),
    lambda lib, x: lib.gradient(x, spacing=[0.1]),
    lambda lib, x: lib.gradient(x, edge_order=3),
    lambda lib, x: lib.gradient(x, spacing=0.1, dim=(1, 1)),
    lambda lib, x: lib.gradient(x, dim=3),
    lambda lib, x: lib.gradient(x[:, :1]),
    lambda lib, x: lib.gradient(x[:2], edge_order=2),
    lambda lib, x: lib.gradient(x.to(lib.uint8)),
    lambda lib, x: lib.gradient(x, spacing=[lib.ones(3, 1), lib.ones(3)]),
    lambda lib, x: lib.gradient(x, spacing=[lib.ones(3), lib.ones(3, device="meta")], dim=(0, 1)),
]


@pytest.mark.parametrize("case", range(len(BAD_GRADIENT)))
def test_gradient_errors_are_torch(case):
    _assert_same_error(BAD_GRADIENT[case], torch.arange(9.0).reshape(3, 3))


def test_gradient_takes_a_tuple_of_scalars_and_rejects_mixed_lists():
    x = torch.arange(6.0).reshape(2, 3)
    _assert_same_values(*_run(lambda lib, x: lib.gradient(x, spacing=(1, 2.5)), x), exact=True)
    _assert_same_error(lambda lib, x: lib.gradient(x, spacing=[1.0, lib.ones(3)]), x)


# -- index_reduce --------------------------------------------------------------------------

REDUCES = ("prod", "mean", "amax", "amin")


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize(
    ("shape", "dim", "index"),
    [((5, 3), 0, [0, 4, 0, 2]), ((3, 4, 2), 1, [3, 3, 1]), ((6,), 0, [5, 0, 5, 5]),
     ((), 0, [0]), ((4, 2), -1, [1, 1, 1])],
)  # fmt: skip
def test_index_reduce_values_and_grads(reduce, include_self, shape, dim, index):
    x = _data(*shape, requires_grad=True)
    index = torch.tensor(index)
    source_shape = list(shape)
    if source_shape:
        source_shape[dim] = len(index)
    source = _data(*source_shape, seed=2, requires_grad=True)

    def fn(lib, x, index, source):
        return x.index_reduce(dim, index, source, reduce, include_self=include_self)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _assert_same_values(*_run(fn, x, index, source))
        _assert_same_grads(fn, x, index, source)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float16", "bfloat16", "float32"])
@pytest.mark.parametrize("reduce", REDUCES)
def test_index_reduce_dtypes(reduce, dtype):
    x = (torch.arange(12) % 5 + 1).reshape(3, 4).to(getattr(torch, dtype))
    source = (torch.arange(9) % 4).reshape(3, 3).to(getattr(torch, dtype))
    index = torch.tensor([0, 0, 3], dtype=torch.int32)
    for include_self in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want, got = _run(
                lambda lib, x, i, s, keep=include_self: lib.index_reduce(
                    x, 1, i, s, reduce, include_self=keep
                ),
                x, index, source,
            )  # fmt: skip
        _assert_same_values(want, got, exact=True)


def test_index_reduce_in_place_and_out():
    x, source, index = _data(3, 2), _data(2, 2, seed=1), torch.tensor([2, 2])
    want = x.clone().index_reduce_(0, index, source, "amax")
    got_self = _ember(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = got_self.index_reduce_(0, _ember(index), _ember(source), "amax")
        out = ember.empty(0, dtype=ember.float64)
        ember.index_reduce(_ember(x), 0, _ember(index), _ember(source), "amax", out=out)
    assert got is got_self
    _assert_same_values(want, got, exact=True)
    _assert_same_values(want, out, exact=True)


def test_index_reduce_warns_once_that_it_is_beta():
    """TORCH_WARN_ONCE: PyTorch's text, remembered for the process."""
    from ember._c10 import warning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ember.ones(2).index_reduce(0, ember.tensor([0]), ember.ones(1), "prod")
    assert "index_reduce() is in beta and the API may change at any time." in warning._WARNED_ONCE


BAD_INDEX_REDUCE = [
    lambda lib, x: x.index_reduce(0, lib.tensor([0, 5]), lib.ones(2, 4), "prod"),
    lambda lib, x: x.index_reduce(
        0, lib.tensor([0, 5]), lib.ones(2, 4), "prod", include_self=False
    ),
    lambda lib, x: x.index_reduce(0, lib.tensor([0, -1]), lib.ones(2, 4), "prod"),
    lambda lib, x: x[0].index_reduce(0, lib.tensor([0, 5]), lib.ones(2), "prod"),
    lambda lib, x: x[0].bool().index_reduce(0, lib.tensor([0, 2]), lib.ones(2).bool(), "prod"),
    lambda lib, x: x.index_reduce(0, lib.tensor([0, 2]), lib.ones(2, 4), "sum"),
    lambda lib, x: x.index_reduce(0, lib.tensor([0.0, 2.0]), lib.ones(2, 4), "mean"),
    lambda lib, x: x[0].index_reduce(0, lib.tensor([0, 2]), lib.ones(2, 4), "mean"),
    lambda lib, x: x.index_reduce(0, lib.tensor([[0, 2]]), lib.ones(2, 4), "mean"),
    lambda lib, x: x.index_reduce(0, lib.tensor([0, 2]), lib.ones(2, 4).double(), "mean"),
    lambda lib, x: x.index_reduce(0, lib.tensor([0, 2]), lib.ones(3, 4), "mean"),
    lambda lib, x: x.index_reduce(2, lib.tensor([0, 2]), lib.ones(2, 4), "mean"),
]


@pytest.mark.parametrize("case", range(len(BAD_INDEX_REDUCE)))
def test_index_reduce_errors_are_torch(case):
    _assert_same_error(BAD_INDEX_REDUCE[case], torch.zeros(3, 4))
