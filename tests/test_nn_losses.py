"""nn.functional's losses against PyTorch 2.13: values and float64 gradients for every
reduction (and the legacy size_average / reduce pair), double backward, grad_fn names,
the operators a TorchDispatchMode sees, PyTorch's warnings and errors."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_normact_support import compare_autograd, same_error
from oracle import torch

import ember

REDUCTIONS = ["mean", "sum", "none"]
# abs's backward: PyTorch's AbsBackward0 calls aten::sgn, which this build may not have yet
HAS_SGN = hasattr(ember, "sgn")
HAS_LOGIT = hasattr(ember, "logit")
HAS_XLOGY = hasattr(ember, "xlogy")


def F(lib):  # noqa: N802
    return lib.nn.functional


def _const(lib, values):
    return lib.tensor(values, dtype=lib.float64)


def _data(seed, shape):
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal(shape),
        rng.random(shape),
        np.where(rng.random(shape) < 0.5, -1.0, 1.0),
    )


shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=6, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**16), beta=st.sampled_from([0.5, 1.0, 0.0]))
def test_smooth_l1_and_huber(reduction, shape, seed, beta):
    x, t, _ = _data(seed, shape)
    compare_autograd(
        lambda L, x: F(L).smooth_l1_loss(x, _const(L, t), reduction=reduction, beta=beta),
        [x], double=beta > 0, ops=beta > 0 or HAS_SGN,
    )  # fmt: skip
    delta = beta or 0.3
    compare_autograd(
        lambda L, x, y: F(L).huber_loss(x, y, reduction=reduction, delta=delta), [x, t],
        double=True,
    )  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=6, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**16))
def test_l1_loss(reduction, shape, seed):
    x, t, _ = _data(seed, shape)
    compare_autograd(lambda L, x: F(L).l1_loss(x, _const(L, t), reduction=reduction), [x],
                     ops=HAS_SGN)  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
@settings(max_examples=6, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**16))
def test_soft_margin_loss(reduction, shape, seed):
    x, _, sign = _data(seed, shape)
    compare_autograd(
        lambda L, x: F(L).soft_margin_loss(x, _const(L, sign), reduction=reduction), [x],
        double=True,
    )  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@settings(max_examples=6, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**16))
def test_binary_cross_entropy(reduction, weighted, shape, seed):
    x, t, _ = _data(seed, shape)
    w = np.abs(_data(seed + 1, shape[-1:])[0])

    def fn(L, x):
        weight = _const(L, w) if weighted else None
        return F(L).binary_cross_entropy(x.sigmoid(), _const(L, t), weight, reduction=reduction)

    compare_autograd(fn, [x], double=True, ops="first")


@pytest.mark.skipif(not HAS_LOGIT, reason="BCE's target gradient calls aten::logit")
def test_binary_cross_entropy_target_gradient():
    x, t, _ = _data(0, (2, 3))
    compare_autograd(lambda L, x, y: F(L).binary_cross_entropy(x.sigmoid(), y.sigmoid()), [x, t])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weights", ["none", "weight", "pos_weight", "both"])
@settings(max_examples=6, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**16))
def test_binary_cross_entropy_with_logits(reduction, weights, shape, seed):
    x, t, _ = _data(seed, shape)
    w = np.abs(_data(seed + 1, shape[-1:])[0])

    def fn(L, x, y):
        weight = _const(L, w) if weights in ("weight", "both") else None
        pos = _const(L, w * 2) if weights in ("pos_weight", "both") else None
        return F(L).binary_cross_entropy_with_logits(
            x, y.sigmoid(), weight, reduction=reduction, pos_weight=pos
        )

    compare_autograd(fn, [x, t])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input,full", [(True, False), (False, False), (True, True)])
def test_poisson_nll_loss(reduction, log_input, full):
    x, t, _ = _data(4, (3, 4))
    x = np.abs(x) if not log_input else x
    compare_autograd(
        lambda L, x: F(L).poisson_nll_loss(x, _const(L, t * 3), log_input=log_input, full=full,
                                           reduction=reduction), [x],
    )  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(3, 4), (3,), (3, 1)])
def test_gaussian_nll_loss(reduction, var_shape):
    x, t, _ = _data(5, (3, 4))
    v = np.abs(_data(6, var_shape)[0]) + 0.1
    compare_autograd(
        lambda L, x, v: F(L).gaussian_nll_loss(x, _const(L, t), v, full=True,
                                               reduction=reduction), [x, v], ops=HAS_SGN,
    )  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_soft_margin_loss(reduction):
    x, t, _ = _data(7, (3, 4))
    compare_autograd(
        lambda L, x: F(L).multilabel_soft_margin_loss(x, _const(L, (t > 0.5) * 1.0),
                                                      reduction=reduction), [x],
    )  # fmt: skip


@pytest.mark.parametrize("reduction", ["mean", "sum", "none", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    """Without log_target the operators a mode sees match once aten::xlogy is in the build."""
    x, t, _ = _data(8, (3, 4))
    t[0, 0] = 0.0
    compare_autograd(
        lambda L, x: F(L).kl_div(x, _const(L, t), reduction=reduction, log_target=log_target),
        [x], ops=log_target or HAS_XLOGY,
    )  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_kl_div_log_target(reduction):
    """log_target=True needs no xlogy."""
    x, t, _ = _data(8, (3, 4))
    compare_autograd(
        lambda L, x: F(L).kl_div(x, _const(L, t), reduction=reduction, log_target=True), [x]
    )


def test_pairwise_distance():
    a, b = _data(11, (3, 4))[0], _data(12, (3, 4))[0]
    compare_autograd(lambda L, a, b: F(L).pairwise_distance(a, b, 3.0), [a, b])


@pytest.mark.parametrize("size_average,reduce", [(None, False), (False, None), (True, True),
                                                 (False, True)])  # fmt: skip
def test_legacy_reduction_arguments(size_average, reduce):
    x, t, sign = _data(14, (3, 4))
    for name, target in (("smooth_l1_loss", t), ("soft_margin_loss", sign), ("l1_loss", t)):

        def fn(L, x, name=name, target=target):
            return getattr(F(L), name)(x, _const(L, target), size_average, reduce)

        compare_autograd(fn, [x], ops=name != "l1_loss" or HAS_SGN)


def _warning(lib, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(lib)
    return [str(w.message).replace("ember.", "torch.") for w in caught]


@pytest.mark.parametrize("name", ["l1_loss", "smooth_l1_loss", "huber_loss"])
def test_target_size_warning(name):
    def call(lib):
        return getattr(F(lib), name)(lib.ones(3, 1), lib.ones(3))

    assert _warning(ember, call) == _warning(torch, call)


def test_kl_div_mean_warning_and_legacy_warnings():
    def kl(lib):
        return F(lib).kl_div(lib.zeros(2, 3), lib.ones(2, 3), reduction="mean", log_target=True)

    def legacy(lib):
        return F(lib).soft_margin_loss(lib.zeros(2), lib.ones(2), size_average=False)

    assert _warning(ember, kl) == _warning(torch, kl)
    assert _warning(ember, legacy) == _warning(torch, legacy)


ERRORS = [
    lambda L: F(L).binary_cross_entropy(L.ones(3), L.ones(2)),
    lambda L: F(L).binary_cross_entropy(L.full((3,), 1.5), L.ones(3)),
    lambda L: F(L).binary_cross_entropy(L.full((3,), 0.5), L.full((3,), 2.0)),
    lambda L: F(L).binary_cross_entropy_with_logits(L.ones(3), L.ones(2)),
    lambda L: F(L).huber_loss(L.ones(3), L.ones(3), delta=0.0),
    lambda L: F(L).smooth_l1_loss(L.ones(3), L.ones(3), beta=-1.0),
    lambda L: F(L).l1_loss(L.ones(3), L.ones(3), reduction="bad"),
    lambda L: F(L).l1_loss(L.ones(3), L.ones(3), weight=L.ones(2)),
    lambda L: F(L).poisson_nll_loss(L.ones(3), L.ones(3), reduction="bad"),
    lambda L: F(L).gaussian_nll_loss(L.ones(3, 2), L.ones(3, 2), L.ones(2)),
    lambda L: F(L).gaussian_nll_loss(L.ones(3), L.ones(3), -L.ones(3)),
    lambda L: F(L).kl_div(L.ones(3, dtype=L.long), L.ones(3, dtype=L.long), log_target=True),
    lambda L: F(L).soft_margin_loss(L.ones(3, dtype=L.long), L.ones(3, dtype=L.long)),
    lambda L: F(L).soft_margin_loss(L.ones(3, dtype=L.bool), L.ones(3)),
    lambda L: F(L).soft_margin_loss(L.ones(2, 3), L.ones(3, 2)),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    same_error(ERRORS[case])
