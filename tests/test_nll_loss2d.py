"""nll_loss2d (and F.nll_loss / F.cross_entropy on 3-d and higher inputs, which PyTorch
routes through it) against PyTorch 2.13: values, gradients, second derivatives, the
grad_fn names (NllLoss2DBackward0), LossNLL2d.cpp's errors and the float32 autocast
gives it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

SHAPES = [(2, 3, 4, 4), (2, 3, 5), (2, 3, 2, 2, 2), (1, 4, 3, 2)]


def _run(lib, x, t, reduction, weighted, ignore, cross_entropy):
    x = lib.tensor(x, requires_grad=True)
    w = lib.tensor(np.arange(1, x.shape[1] + 1) / 3.0) if weighted else None
    t = lib.tensor(t)
    if cross_entropy:
        y = lib.nn.functional.cross_entropy(x, t, w, ignore_index=ignore, reduction=reduction)
    else:
        y = lib.nn.functional.nll_loss(
            x.log_softmax(1), t, weight=w, reduction=reduction, ignore_index=ignore
        )
    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = lib.autograd.grad((g * g).sum(), x)
    return y, g, gg


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    weighted=st.booleans(),
    ignore=st.sampled_from([-100, 1]),
    cross_entropy=st.booleans(),
)
def test_values_gradients_names(shape, reduction, seed, weighted, ignore, cross_entropy):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    t = rng.integers(0, shape[1], size=(shape[0],) + shape[2:])
    ty, tg, tgg = _run(torch, x, t, reduction, weighted, ignore, cross_entropy)
    ey, eg, egg = _run(ember, x, t, reduction, weighted, ignore, cross_entropy)
    assert ey.grad_fn.name() == ty.grad_fn.name()
    assert tuple(ey.shape) == tuple(ty.shape)
    for a, b in ((ty, ey), (tg, eg), (tgg, egg)):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_grad_fn_names_of_the_operators():
    def names(lib):
        x = lib.randn(2, 3, 2, 2, requires_grad=True)
        t = lib.zeros(2, 2, 2, dtype=lib.long)
        y = lib._C._nn.nll_loss2d(x, t, None, 1)
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        return y.grad_fn.name(), g.grad_fn.name()

    assert names(ember) == names(torch)


@pytest.mark.parametrize("case", range(5))
def test_errors(case):
    def error(lib):
        args = [
            (lib.rand(2, 3, 4, 4), lib.zeros(2, 4, dtype=lib.long)),
            (lib.rand(2, 3, 4, 4), lib.zeros(2, 4, 5, dtype=lib.long)),
            (lib.rand(2, 3, 4, 4), lib.zeros(2, 4, 4, dtype=lib.long), lib.rand(4)),
            (lib.rand(2, 3, 4), lib.zeros(2, 4, 4, dtype=lib.long)),
            (lib.rand(2, 3, 4, 4), lib.full((2, 4, 4), 5, dtype=lib.long)),
        ][case]
        with pytest.raises(Exception) as info:
            lib._C._nn.nll_loss2d(*args)
        return type(info.value).__name__, str(info.value)

    assert error(ember) == error(torch)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_autocast_computes_it_in_float32(dtype):
    def result_dtype(lib):
        x = lib.rand(2, 3, 2, 2, dtype=getattr(lib, dtype))
        with lib.autocast("cpu", dtype=lib.bfloat16):
            return str(lib._C._nn.nll_loss2d(x, lib.zeros(2, 2, 2, dtype=lib.long), None, 1).dtype)

    assert result_dtype(ember).split(".")[-1] == result_dtype(torch).split(".")[-1]
