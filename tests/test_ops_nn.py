"""ember.nn.functional and the loss operators against PyTorch 2.13.

softmax / log_softmax (with the implicit-dim warning), nll_loss (reductions,
class weights, ignore_index, N-d inputs, the backward operator),
cross_entropy (class indices, class probabilities, label smoothing),
mse_loss, one_hot, dropout and linear: values, dtypes, shapes, strides,
warnings and error texts. The helpers come from test_ops_reduction.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import torch
from test_ops_reduction import SETTINGS, compare, compare_meta, pair, strided_pair

import ember
import ember.nn.functional as F
from ember.aten.native import at

TF = torch.nn.functional

TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


def functional(lib):
    return F if lib is ember else TF


def _targets(seed, shape, n_classes, ignore_index=None):
    rng = np.random.default_rng(seed)
    target = rng.integers(0, max(n_classes, 1), shape).astype(np.int64)
    if ignore_index is not None and target.size:
        target.reshape(-1)[0] = ignore_index
    return pair(target)


@SETTINGS
@given(st.data(), st.sampled_from([[3], [2, 3], [2, 3, 4], [2, 3, 2, 2], [0, 3]]),
       st.sampled_from(["mean", "sum", "none"]), st.booleans(), st.sampled_from([-100, 1]))  # fmt: skip
def test_nll_loss_and_cross_entropy(data, shape, reduction, weighted, ignore_index):
    seed = data.draw(st.integers(0, 2**16))
    perm = data.draw(st.permutations(range(len(shape))))
    x_e, x_t = strided_pair(shape, list(perm), "float32", seed)
    n_classes = shape[1] if len(shape) > 1 else shape[0]
    target_shape = [shape[0], *shape[2:]] if len(shape) > 1 else []
    t_e, t_t = _targets(seed, target_shape, n_classes, ignore_index)
    w_e, w_t = pair(np.linspace(0.5, 2.0, n_classes).astype(np.float32))
    weight = (w_e, w_t) if weighted else (None, None)
    for smoothing in (0.0, 0.2):
        compare(
            lambda lib, x, t, w, smoothing=smoothing: functional(lib).cross_entropy(
                x, t, w, ignore_index=ignore_index, reduction=reduction, label_smoothing=smoothing
            ),
            [x_e, t_e, weight[0]],
            [x_t, t_t, weight[1]],
            **TOLERANCE,
        )
    compare(
        lambda lib, x, t, w: functional(lib).nll_loss(
            functional(lib).log_softmax(x, 1 if x.dim() > 1 else 0), t, w,
            ignore_index=ignore_index, reduction=reduction
        ),
        [x_e, t_e, weight[0]],
        [x_t, t_t, weight[1]],
        **TOLERANCE,
    )  # fmt: skip


@SETTINGS
@given(
    st.data(), st.sampled_from([[3], [2, 3], [2, 3, 4]]), st.sampled_from(["mean", "sum", "none"])
)
def test_cross_entropy_probabilities(data, shape, reduction):
    seed = data.draw(st.integers(0, 2**16))
    x_e, x_t = strided_pair(shape, list(range(len(shape))), "float32", seed)
    p_e, p_t = strided_pair(shape, list(range(len(shape))), "float32", seed + 1)
    smoothing = data.draw(st.sampled_from([0.0, 0.3]))
    compare(
        lambda lib, x, p: functional(lib).cross_entropy(
            x, lib.softmax(p, 0 if p.dim() == 1 else 1), reduction=reduction,
            label_smoothing=smoothing
        ),
        [x_e, p_e],
        [x_t, p_t],
        **TOLERANCE,
    )  # fmt: skip


def test_nll_loss_forward_backward_operators():
    x_e, x_t = pair(np.arange(12, dtype=np.float32).reshape(4, 3) / 7)
    t_e, t_t = pair(np.array([0, 2, -100, 1]))
    for reduction in (0, 1, 2):
        compare(
            lambda lib, x, t, reduction=reduction: (
                at.nll_loss_forward(x, t, None, reduction, -100)
                if lib is ember
                else torch.ops.aten.nll_loss_forward(x, t, None, reduction, -100)
            ),
            [x_e, t_e],
            [x_t, t_t],
        )
        grad = np.ones(4, np.float32) if reduction == 0 else np.float32(2.0)
        g_e, g_t = pair(grad)
        w_e, w_t = pair(np.float32(3.0))
        compare(
            lambda lib, g, x, t, w, reduction=reduction: (
                at.nll_loss_backward(g, x, t, None, reduction, -100, w)
                if lib is ember
                else torch.ops.aten.nll_loss_backward(g, x, t, None, reduction, -100, w)
            ),
            [g_e, x_e, t_e, w_e],
            [g_t, x_t, t_t, w_t],
        )
    compare_meta(
        lambda lib, x, t: (
            lib.ops.aten.nll_loss_forward(x, t, None, 0, -100)
            if lib is torch
            else at.nll_loss_forward(x, t, None, 0, -100)
        ),
        [((4, 3), "float32"), ((4,), "int64")],
    )


def test_nll_loss_errors():
    x = np.zeros((2, 3), np.float32)
    cases = [
        (lambda lib, x, t: functional(lib).nll_loss(x, t), x, np.array([0, 5])),
        (lambda lib, x, t: functional(lib).nll_loss(x, t), x, np.array([0, 1, 1])),
        (lambda lib, x, t: functional(lib).nll_loss(x, t), x, np.array([0.0, 1.0])),
        (lambda lib, x, t: functional(lib).nll_loss(x, t), x, np.array([0, 1], np.int32)),
        (lambda lib, x, t: functional(lib).nll_loss(x, t), x[0], np.array([0, 1])),
        (lambda lib, x, t: functional(lib).nll_loss(x, t), np.float32(1), np.array(0)),
        (lambda lib, x, t: functional(lib).nll_loss(x, t), np.zeros((2, 3, 4), np.float32),
         np.array([0, 1])),
        (lambda lib, x, t: functional(lib).nll_loss(x, t, reduction="foo"), x, np.array([0, 1])),
        (lambda lib, x, t: functional(lib).nll_loss(x, t, lib.ones(4)), x, np.array([0, 1])),
        (lambda lib, x, t: functional(lib).cross_entropy(x, t, label_smoothing=1.2), x,
         np.array([0, 1])),
        (lambda lib, x, t: functional(lib).cross_entropy(x, t), x, np.zeros((2, 3), np.int64)),
        (lambda lib, x, t: functional(lib).cross_entropy(x, t, ignore_index=1), x,
         np.zeros((2, 3), np.float32)),
        (lambda lib, x, t: functional(lib).nll_loss(x, t, reduction="sum"), x,
         np.array([-100, -100])),
        (lambda lib, x, t: functional(lib).nll_loss(x, t), x, np.array([-100, -100])),
    ]  # fmt: skip
    for fn, x_array, t_array in cases:
        (x_e, x_t), (t_e, t_t) = pair(x_array), pair(t_array)
        compare(fn, [x_e, t_e], [x_t, t_t])


@SETTINGS
@given(st.data(), st.sampled_from([([2, 3], [2, 3]), ([2, 3], [3]), ([3, 1, 1], [2, 3]),
                                   ([], [])]),
       st.sampled_from(["mean", "sum", "none"]))  # fmt: skip
def test_mse_loss(data, shapes, reduction):
    seed = data.draw(st.integers(0, 2**16))
    shape_x, shape_y = shapes
    x_e, x_t = strided_pair(shape_x, list(range(len(shape_x)))[::-1], "float32", seed)
    y_e, y_t = strided_pair(shape_y, list(range(len(shape_y))), "float32", seed + 1)
    compare(
        lambda lib, x, y: functional(lib).mse_loss(x, y, reduction=reduction),
        [x_e, y_e],
        [x_t, y_t],
        **TOLERANCE,
    )


def test_mse_loss_warning_and_errors():
    x_e, x_t = pair(np.ones((2, 3), np.float32))
    y_e, y_t = pair(np.zeros(3, np.float32))
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        F.mse_loss(x_e, y_e)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        TF.mse_loss(x_t, y_t)
    assert [str(w.message).replace("ember", "torch") for w in ours] == [
        str(w.message) for w in theirs
    ]
    i_e, i_t = pair(np.ones((2, 3), np.int64))
    compare(lambda lib, x: lib.ops.aten.mse_loss(x, x, 1) if lib is torch
            else at.mse_loss(x, x, 1), [i_e], [i_t])  # fmt: skip


@SETTINGS
@given(st.data(), st.sampled_from([[], [4], [2, 3], [0, 2]]), st.sampled_from([-1, 6]))
def test_one_hot(data, shape, num_classes):
    seed = data.draw(st.integers(0, 2**16))
    t_e, t_t = _targets(seed, shape, 5)
    compare(lambda lib, t: functional(lib).one_hot(t, num_classes), [t_e], [t_t])


def test_one_hot_errors():
    for array, num_classes in (
        (np.array([0, 3]), 2),
        (np.array([0.0, 3.0]), -1),
        (np.array([-1, 3]), -1),
        (np.array([], np.int64), -1),
    ):
        t_e, t_t = pair(array)
        compare(lambda lib, t, n=num_classes: functional(lib).one_hot(t, n), [t_e], [t_t])


@SETTINGS
@given(st.data(), st.sampled_from([[], [5], [2, 3], [2, 3, 4]]), st.booleans())
def test_softmax_functional(data, shape, explicit_dtype):
    seed = data.draw(st.integers(0, 2**16))
    x_e, x_t = strided_pair(shape, list(range(len(shape)))[::-1], "float32", seed)
    dtype = (lambda lib: lib.float64) if explicit_dtype else (lambda lib: None)
    compare(lambda lib, x: functional(lib).softmax(x, dtype=dtype(lib)), [x_e], [x_t])
    compare(lambda lib, x: functional(lib).log_softmax(x, -1, dtype=dtype(lib)), [x_e], [x_t],
            **TOLERANCE)  # fmt: skip


@SETTINGS
@given(st.data(), st.sampled_from([[], [5], [2, 3], [2, 3, 4], [0, 3]]))
def test_softmax_backward_operators(data, shape):
    """_softmax_backward_data / _log_softmax_backward_data (what softmax's backward calls):
    values and contiguous outputs from strided inputs, in every dim."""
    seed = data.draw(st.integers(0, 2**16))
    perm = list(data.draw(st.permutations(range(len(shape)))))
    g_e, g_t = strided_pair(shape, perm, "float32", seed)
    o_e, o_t = strided_pair(shape, perm[::-1], "float32", seed + 1)
    for dim in range(-max(len(shape), 1), max(len(shape), 1)):
        for name in ("_softmax_backward_data", "_log_softmax_backward_data"):
            compare(
                lambda lib, g, o, name=name, dim=dim: getattr(lib.ops.aten, name)(
                    g, o, dim, lib.float32
                ),
                [g_e, o_e],
                [g_t, o_t],
                **TOLERANCE,
            )


def test_softmax_backward_operator_errors():
    """Size, dtype and dim errors as torch words them."""
    g, other, wide = np.ones((2, 3), np.float32), np.ones((2, 3)), np.ones((2, 4), np.float32)
    for name in ("_softmax_backward_data", "_log_softmax_backward_data"):
        for args, dim, dtype in [
            ((g, wide), 1, "float32"),
            ((g, other), 1, "float32"),
            ((g, g), 1, "float16"),
            ((g, g), 2, "float32"),
        ]:
            if name == "_log_softmax_backward_data" and args[1] is wide:
                continue  # torch reads `output` with grad's sizes unchecked; ember raises
            pairs = [pair(a) for a in args]
            compare(
                lambda lib, a, b, name=name, dim=dim, dtype=dtype: getattr(lib.ops.aten, name)(
                    a, b, dim, getattr(lib, dtype)
                ),
                [p[0] for p in pairs],
                [p[1] for p in pairs],
            )
        compare_meta(
            lambda lib, a, b, name=name: getattr(lib.ops.aten, name)(a, b, 0, lib.float32),
            [((3, 2), "float32"), ((3, 2), "float32")],
        )


@SETTINGS
@given(st.data(), st.sampled_from(["float32", "float64", "int64"]), st.sampled_from([0, 0.5, -1]))
def test_threshold_backward(data, dtype, threshold):
    """relu's backward operator: grad where self > threshold, promotion, broadcasting, layout."""
    seed = data.draw(st.integers(0, 2**16))
    g_e, g_t = strided_pair([2, 3], [1, 0], "float32", seed)
    s_e, s_t = strided_pair([3], [0], dtype, seed + 1)
    compare(
        lambda lib, g, s: lib.ops.aten.threshold_backward(g, s, threshold), [g_e, s_e], [g_t, s_t]
    )
    compare(
        lambda lib, g, s: lib.ops.aten.threshold_backward(s, g, threshold), [g_e, s_e], [g_t, s_t]
    )
    # one dtype: torch's meta decomposition keeps grad's dtype where its CPU kernel promotes
    compare_meta(
        lambda lib, g, s: lib.ops.aten.threshold_backward(g, s, 0),
        [((2, 3), "float32"), ((3,), "float32")],
    )
    meta = ember.ops.aten.threshold_backward(
        ember.empty(2, 3, device="meta"),
        ember.empty(3, dtype=getattr(ember, dtype), device="meta"),
        0,
    )
    assert meta.dtype is ember.ops.aten.threshold_backward(g_e, s_e, 0).dtype


def test_threshold_backward_special_values():
    """NaN and inf gradients are zeroed where self <= threshold; zeros keep their sign."""
    grad = np.array([1.5, -2.0, np.nan, np.inf, -0.0, -0.0, -3.0, 4.0], np.float32)
    values = np.array([1.0, 0.0, -1.0, -2.0, 1.0, -1.0, np.nan, 0.5], np.float32)
    for dtype in ("float32", "float64"):
        (g_e, g_t), (v_e, v_t) = pair(grad.astype(dtype)), pair(values.astype(dtype))
        ours = at.threshold_backward(g_e, v_e, 0).numpy()
        theirs = torch.ops.aten.threshold_backward(g_t, v_t, 0).numpy()
        np.testing.assert_array_equal(ours, theirs)
        np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))


def test_softmax_implicit_dim_warning():
    x_e, x_t = pair(np.zeros((2, 3), np.float32))
    for name in ("softmax", "log_softmax"):
        with pytest.warns(UserWarning) as ours:
            getattr(F, name)(x_e)
        with pytest.warns(UserWarning) as theirs:
            getattr(TF, name)(x_t)
        assert str(ours[0].message) == str(theirs[0].message)
        assert ours[0].filename == __file__


def test_dropout():
    x_e, x_t = pair(np.ones((50, 40), np.float32))
    assert F.dropout(x_e, 0.3, training=False) is x_e
    assert F.dropout(x_e, 0.0) is x_e
    compare(lambda lib, x: functional(lib).dropout(x, 1.0), [x_e], [x_t])
    compare(lambda lib, x: functional(lib).dropout(x, 1.5), [x_e], [x_t])
    compare(lambda lib, x: lib.dropout(x, 1.5, True), [x_e], [x_t])
    ember.manual_seed(0)
    first = F.dropout(x_e, 0.25).numpy()
    ember.manual_seed(0)
    again = F.dropout(x_e, 0.25).numpy()
    np.testing.assert_array_equal(first, again)
    assert set(np.unique(first)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.15 < float((first == 0).mean()) < 0.35


def test_linear_relu_gelu():
    x_e, x_t = pair(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4))
    w_e, w_t = pair(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    compare(lambda lib, x, w: functional(lib).linear(x, w), [x_e, w_e], [x_t, w_t], **TOLERANCE)
    compare(lambda lib, x: functional(lib).relu(x), [x_e], [x_t])
    compare(lambda lib, x: functional(lib).gelu(x, approximate="tanh"), [x_e], [x_t],
            **TOLERANCE)  # fmt: skip
