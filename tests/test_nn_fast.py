"""The fast paths of aten/nn_fast.py (relu's clamp, threshold_backward, log_softmax and its
backward, nll_loss and its backward): which calls take them, that they give exactly the bits
the general path (meta function, allocation, kernel) gives, and that they agree with torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from oracle import torch

import ember
from ember.aten import meta as M
from ember.aten import native as N
from ember.aten import nn_fast as NF
from ember.aten import ufunc as U

SPECIAL = [0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 3e38, -3e38, 1e-40]


def _general(meta, kernel, *args):
    outs = meta.allocate()
    kernel(meta, *args, *(outs if isinstance(outs, tuple) else (outs,)))
    return outs


def _same_bits(fast, reference) -> None:
    array = fast.ndarray()  # _wrap_fresh trusts it to be C-contiguous, of the tensor's dtype
    assert array.flags.c_contiguous and array.dtype == fast.dtype.np_dtype
    assert fast.dtype is reference.dtype
    assert fast.shape == reference.shape and fast.stride() == reference.stride()
    a, b = fast.numpy(), reference.numpy()
    assert a.tobytes() == b.tobytes(), (a, b)  # NaN, -0.0 and rounding alike


def _arrays(dtype, min_dims=1):
    elements = st.one_of(st.sampled_from(SPECIAL), st.floats(-1e4, 1e4, width=32))
    shapes = hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=1, max_side=5)
    return hnp.arrays(dtype, shapes, elements=elements)


@pytest.fixture(autouse=True)
def _no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # overflow, inf - inf and log(0) stay quiet
        yield


@settings(max_examples=60, deadline=None)
@given(values=_arrays(np.float32) | _arrays(np.float64), bound=st.sampled_from([0, -2, 3]))
def test_relu_clamp_matches_the_general_path(values, bound):
    self = ember.tensor(values)
    fast = NF.clamp(self, bound, None)
    assert fast is not None
    _same_bits(fast, _general(M.clamp(self, bound, None), U.clamp, self, bound, None))
    target = self.clone()
    assert NF.clamp(target, bound, None, into=target) is target
    _same_bits(target, fast)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), dtype=st.sampled_from([np.float32, np.float64]))
def test_threshold_backward_matches_the_general_path(data, dtype):
    values = data.draw(_arrays(dtype))
    grad = data.draw(hnp.arrays(dtype, values.shape, elements=st.sampled_from(SPECIAL)))
    grad_t, self = ember.tensor(grad), ember.tensor(values)
    fast = NF.threshold_backward(grad_t, self, 0)
    assert fast is not None
    meta = M.threshold_backward(grad_t, self, 0)
    _same_bits(fast, _general(meta, N.threshold_backward_out, grad_t, self, 0))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), dtype=st.sampled_from([np.float32, np.float64]))
def test_log_softmax_and_backward_match_the_general_path(data, dtype):
    values = data.draw(_arrays(dtype))
    dim = data.draw(st.integers(-values.ndim, values.ndim - 1))
    self = ember.tensor(values)
    fast = NF.log_softmax(self, dim, False)
    assert fast is not None
    reference = _general(M._log_softmax(self, dim, False), N._log_softmax_out, self, dim, False)
    _same_bits(fast, reference)
    grad = ember.tensor(data.draw(hnp.arrays(dtype, values.shape, elements=st.floats(-3, 3))))
    args = (grad, reference, dim, self.dtype)
    fast = NF.log_softmax_backward(*args)
    assert fast is not None
    meta = M._log_softmax_backward_data(*args)
    _same_bits(fast, _general(meta, N.log_softmax_backward_cpu_out, *args))


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from([np.float32, np.float64]),
    reduction=st.sampled_from([1, 2]),
)
def test_nll_loss_and_backward_match_the_general_path(data, dtype, reduction):
    values = data.draw(_arrays(dtype, min_dims=2).filter(lambda a: a.ndim == 2))
    n, c = values.shape
    target = ember.tensor(data.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)))
    self = ember.tensor(values)
    args = (self, target, None, reduction, -100)
    fast = NF.nll_loss_forward(*args)
    assert fast is not None
    reference = _general(M.nll_loss_forward(*args), N.nll_loss_forward_output, *args)
    for got, expected in zip(fast, reference):
        _same_bits(got, expected)
    grad = ember.tensor(data.draw(st.floats(-3, 3)), dtype=self.dtype)
    args = (grad, self, target, None, reduction, -100, reference[1])
    fast = NF.nll_loss_backward(*args)
    assert fast is not None
    meta = M.nll_loss_backward(*args)
    _same_bits(fast, _general(meta, N.nll_loss_backward_grad_input, *args))


@pytest.mark.parametrize("shape", [(128, 10), (4, 64, 3), (256, 32), (8, 33), (300, 1)])
def test_short_rows_reduce_transposed_to_the_same_values(shape):
    from ember.aten.native.softmax import along

    values = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    values.flat[5] = np.nan
    for axis in range(len(shape)):
        peak = along(np.maximum, values, axis)
        expected = np.maximum.reduce(values, axis=axis, keepdims=True)
        assert peak.shape == expected.shape and peak.tobytes() == expected.tobytes()
        total = along(np.add, values, axis)
        expected = np.add.reduce(values, axis=axis, keepdims=True)
        np.testing.assert_allclose(total, expected, rtol=1e-5, atol=1e-5)


def test_the_general_path_handles_everything_else():
    a = ember.ones(3, 4)
    targets = ember.tensor([0, 1, 3])
    assert NF.clamp(a, 0, 1) is None  # an upper bound
    assert NF.clamp(a, 0.5, None) is None  # a float bound (its conversion is checked)
    assert NF.clamp(a, True, None) is None
    assert NF.clamp(a.t(), 0, None) is None  # non-contiguous
    assert NF.clamp(ember.ones(3, dtype=ember.float16), 0, None) is None
    assert NF.clamp(ember.ones(3, dtype=ember.int64), 0, None) is None
    assert NF.clamp(ember.ones(0, 2), 0, None) is None  # no elements
    assert NF.clamp(ember.tensor(1.0), 0, None) is None  # 0-dim
    assert NF.threshold_backward(a, a, 0.5) is None
    assert NF.threshold_backward(a, ember.ones(3, 4, dtype=ember.float64), 0) is None
    assert NF.threshold_backward(ember.ones(4), a, 0) is None  # broadcasting
    assert NF.log_softmax(a, 1, True) is None  # half_to_float
    assert NF.log_softmax(a, 2, False) is None  # the meta function words the error
    assert NF.log_softmax_backward(a, a, 1, ember.float64) is None
    assert NF.log_softmax_backward(a, a.t().contiguous().t(), 1, ember.float32) is None
    assert NF.nll_loss_forward(a, targets, ember.ones(4), 1, -100) is None  # class weights
    assert NF.nll_loss_forward(a, targets, None, 0, -100) is None  # reduction none
    assert NF.nll_loss_forward(a, targets, None, 1, 1) is None  # an ignore_index in range
    assert NF.nll_loss_forward(a, ember.tensor([0, 1, 4]), None, 1, -100) is None
    assert NF.nll_loss_forward(a, ember.tensor([0, -1, 2]), None, 1, -100) is None
    assert NF.nll_loss_forward(a, ember.tensor([0, 1]), None, 1, -100) is None
    assert NF.nll_loss_forward(a, targets.to(ember.int32), None, 1, -100) is None
    assert NF.nll_loss_backward(ember.ones(1), a, targets, None, 1, -100, ember.tensor(3.0)) is None


def test_errors_stay_with_the_general_path():
    a = ember.ones(3, 4)
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        ember.nn.functional.nll_loss(a, ember.tensor([0, 1, 4]))
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.log_softmax(a, 2)
    with pytest.raises(RuntimeError, match="value cannot be converted"):
        ember.clamp(a, 1e300)


_BATCHES = hnp.arrays(
    np.float32,
    st.tuples(st.sampled_from([1, 3, 128]), st.sampled_from([1, 2, 10])),
    elements=st.one_of(st.sampled_from(SPECIAL), st.floats(-1e4, 1e4, width=32)),
)


@settings(max_examples=40, deadline=None)
@given(
    values=_arrays(np.float32, min_dims=2).filter(lambda a: a.ndim == 2) | _BATCHES, data=st.data()
)
def test_the_training_step_ops_agree_with_torch(values, data):
    """relu, log_softmax and nll_loss forward and backward, through the public API."""
    n, c = values.shape
    labels = data.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n))
    results = {}
    for lib in (ember, torch):
        x = lib.tensor(values, requires_grad=True)
        hidden = x.relu()
        loss = lib.nn.functional.nll_loss(lib.log_softmax(hidden, 1), lib.tensor(labels))
        loss.backward()
        results[lib.__name__] = (hidden.detach().numpy(), loss.detach().numpy(), x.grad.numpy())
    for ours, theirs in zip(results["ember"], results["torch"]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, equal_nan=True)
        assert np.array_equal(np.signbit(ours), np.signbit(theirs)) or np.isnan(theirs).any()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    "values, target, options",
    [
        ([[0.0]], [0], {}),  # the plain path: 0 - 0 is +0.0
        ([[-0.0]], [0], {}),
        ([0.0], 0, {}),  # no batch dim
        ([[0.0, 1.0]], [0], {"weight": [2.0, 1.0]}),
        ([[0.0, 1.0], [0.0, 1.0]], [0, 1], {"ignore_index": 1}),
    ],
)
def test_nll_loss_signed_zeros_as_torch(values, target, options, reduction):
    results = []
    for lib in (ember, torch):
        kwargs = dict(options, reduction=reduction)
        if "weight" in kwargs:
            kwargs["weight"] = lib.tensor(kwargs["weight"])
        loss = lib.nn.functional.nll_loss(lib.tensor(values), lib.tensor(target), **kwargs)
        results.append(loss.numpy())
    ours, theirs = results
    assert ours.tobytes() == theirs.tobytes(), (ours, theirs)
