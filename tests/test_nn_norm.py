"""nn.functional's normalisations against PyTorch 2.13: values, float64 gradients, the
grad_fn names and the operators a TorchDispatchMode sees (native_layer_norm,
native_batch_norm, native_group_norm and their backward operators), batch_norm's running
statistics after several training-mode calls, rms_norm's composite, and the errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_normact_support import compare_autograd, same_error, same_values
from oracle import torch

import ember


def F(lib):  # noqa: N802
    return lib.nn.functional


def _arrays(seed, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for shape in shapes]


@settings(max_examples=15, deadline=None)
@given(batch=st.lists(st.integers(1, 3), max_size=2), normalized=st.lists(st.integers(1, 4),
       min_size=1, max_size=2), affine=st.sampled_from(["both", "weight", "none"]),
       seed=st.integers(0, 2**16), eps=st.sampled_from([1e-5, 0.1]))  # fmt: skip
def test_layer_norm(batch, normalized, affine, seed, eps):
    shapes = [batch + normalized] + [normalized] * {"both": 2, "weight": 1, "none": 0}[affine]

    def fn(L, x, *params):
        return F(L).layer_norm(x, normalized, *params, eps=eps)

    compare_autograd(fn, _arrays(seed, *shapes))


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 3), groups=st.integers(1, 3), per_group=st.integers(1, 2),
       spatial=st.lists(st.integers(1, 3), max_size=2), affine=st.booleans(),
       seed=st.integers(0, 2**16))  # fmt: skip
def test_group_norm(n, groups, per_group, spatial, affine, seed):
    c = groups * per_group
    if n * c // groups * int(np.prod(spatial)) == 1 or per_group * int(np.prod(spatial)) == 1:
        return  # "Expected more than 1 value per channel" (tested below)
    shapes = [[n, c] + spatial] + ([[c], [c]] if affine else [])

    def fn(L, x, *params):
        return F(L).group_norm(x, groups, *params)

    compare_autograd(fn, _arrays(seed, *shapes))


def test_group_norm_gradients_under_create_graph():
    def fn(L, x, w, b):
        return F(L).group_norm(x, 2, w, b)

    compare_autograd(fn, _arrays(3, (2, 4, 3), (4,), (4,)), double=True, ops=False)


def _batch_norm_program(training, stats, momentum, calls):
    def fn(L, x, w, b):
        rm = L.zeros(4, dtype=L.float64) if stats else None
        rv = L.ones(4, dtype=L.float64) if stats else None
        y = x
        for _ in range(calls):
            y = F(L).batch_norm(y, rm, rv, w, b, training=training, momentum=momentum)
        fn.stats[L.__name__] = None if rm is None else (rm, rv)
        return y

    fn.stats = {}
    return fn


@settings(max_examples=15, deadline=None)
@given(training=st.booleans(), stats=st.booleans(), momentum=st.sampled_from([0.1, 0.5]),
       calls=st.integers(1, 3), spatial=st.lists(st.integers(1, 3), max_size=2),
       seed=st.integers(0, 2**16))  # fmt: skip
def test_batch_norm_and_its_running_stats(training, stats, momentum, calls, spatial, seed):
    if not training and not stats:
        return  # refused (tested below)
    fn = _batch_norm_program(training, stats, momentum, calls)
    compare_autograd(fn, _arrays(seed, [3, 4] + spatial, [4], [4]))
    if stats:
        for ours, theirs in zip(fn.stats["ember"], fn.stats["torch"], strict=True):
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", [(2, 4, 3), (3, 2, 2, 2)])
def test_instance_norm(shape):
    compare_autograd(lambda L, x: F(L).instance_norm(x), _arrays(0, shape))


def test_instance_norm_with_affine_parameters_values():
    """With weight and bias (repeated per sample): values and gradients; the operators a
    mode sees match once aten::repeat is in the build."""
    compare_autograd(lambda L, x, w, b: F(L).instance_norm(x, weight=w, bias=b),
                     _arrays(1, (2, 3, 4), (3,), (3,)), ops=hasattr(ember, "repeat"))  # fmt: skip


@settings(max_examples=10, deadline=None)
@given(batch=st.lists(st.integers(1, 3), max_size=2), normalized=st.lists(st.integers(1, 3),
       min_size=1, max_size=2), weight=st.booleans(), eps=st.sampled_from([None, 1e-3]),
       seed=st.integers(0, 2**16))  # fmt: skip
def test_rms_norm(batch, normalized, weight, eps, seed):
    shapes = [batch + normalized] + ([normalized] if weight else [])

    def fn(L, x, *w):
        return F(L).rms_norm(x, normalized, *w, eps=eps)

    compare_autograd(fn, _arrays(seed, *shapes))


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("float16", 2e-3), ("bfloat16", 2e-2)])
def test_low_precision_layer_and_group_norm(dtype, tol):
    x = _arrays(0, (2, 4, 3))[0]
    make = lambda L: L.tensor(x, dtype=getattr(L, dtype))  # noqa: E731
    same_values(lambda L: F(L).layer_norm(make(L), (3,)), rtol=tol, atol=tol)
    same_values(lambda L: F(L).group_norm(make(L), 2), rtol=tol, atol=tol)


def test_batch_norm_eval_returns_empty_saved_statistics():
    for lib in (ember, torch):
        out = lib.ops.aten.native_batch_norm(
            lib.ones(2, 3), None, None, lib.zeros(3), lib.ones(3), False, 0.1, 1e-5
        )
        assert [tuple(t.shape) for t in out] == [(2, 3), (0,), (0,)]


def test_backward_operators_leave_unwanted_gradients_undefined():
    def call(lib):
        x = lib.tensor(_arrays(1, (2, 3))[0])
        return lib.ops.aten.native_layer_norm_backward(
            x, x, [3], lib.zeros(2, 1, dtype=lib.float64), lib.ones(2, 1, dtype=lib.float64),
            None, None, [True, False, False],
        )  # fmt: skip

    ours, theirs = call(ember), call(torch)
    assert ours[1] is None and ours[2] is None and theirs[1] is None and theirs[2] is None
    np.testing.assert_allclose(ours[0].numpy(), theirs[0].numpy())


ERRORS = [
    lambda L: F(L).batch_norm(L.ones(2, 3), None, None, training=False),
    lambda L: F(L).batch_norm(L.ones(1, 3), None, None, training=True),
    lambda L: F(L).batch_norm(L.ones(2, 3), L.zeros(4), L.ones(4)),
    lambda L: F(L).batch_norm(L.ones(2, 3, dtype=L.long), L.zeros(3), L.ones(3)),
    lambda L: F(L).layer_norm(L.ones(2, 3), (4,)),
    lambda L: F(L).layer_norm(L.ones(2, 3), (2, 3, 1)),
    lambda L: F(L).layer_norm(L.ones(2, 3), (3,), L.ones(2)),
    lambda L: F(L).layer_norm(L.ones(2, 3), (3,), None, L.ones(2)),
    lambda L: F(L).layer_norm(L.ones(2, 3), ()),
    lambda L: F(L).group_norm(L.ones(2, 4, 3), 3),
    lambda L: F(L).group_norm(L.ones(1, 2, 1), 2),
    lambda L: F(L).group_norm(L.ones(4), 2),
    lambda L: F(L).group_norm(L.ones(2, 4, 3), 2, L.ones(3)),
    lambda L: F(L).instance_norm(L.ones(2, 3, 1)),
    lambda L: F(L).rms_norm(L.ones(2, 3), (2,)),
    lambda L: F(L).rms_norm(L.ones(2, 3), (3,), L.ones(2)),
    lambda L: L.native_group_norm(L.ones(2, 4, 3), None, None, 2, 4, 2, 2, 1e-5),
    lambda L: L.native_group_norm(L.ones(2, 4, 3), None, None, 2, 4, 3, 3, 1e-5),
    lambda L: F(L).batch_norm(L.ones(2, 3), L.zeros(3), None),
    lambda L: F(L).batch_norm(L.ones(2, 3, dtype=L.long), L.zeros(6), L.ones(3)),
    lambda L: F(L).instance_norm(L.ones(2, 3, 4), weight=L.ones(3, 1)),
    lambda L: F(L).rms_norm(L.ones(2, 3, 3), (4, 5)),
    lambda L: F(L).rms_norm(L.ones(2, 3, dtype=L.long), (3,)),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    same_error(ERRORS[case])
