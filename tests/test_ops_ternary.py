"""addcmul / addcdiv / lerp (Scalar and Tensor weight), their in-place and out= forms,
against PyTorch 2.13: values bit for bit (the FMA rounding of addcmul and lerp), dtypes,
strides, errors, grad_fn names and gradients."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_support import same, same_outcome
from oracle import torch

import ember
from ember.aten.ufunc_fma import fma


def _pair(array):
    return ember.from_numpy(array.copy()), torch.from_numpy(array.copy())


FLOATS = st.sampled_from([np.float32, np.float64])


@settings(max_examples=60, deadline=None)
@given(
    dtype=FLOATS,
    n=st.integers(1, 40),
    seed=st.integers(0, 2**31),
    value=st.floats(-2, 2, allow_nan=False, width=32),
)
def test_values_bit_for_bit(dtype, n, seed, value):
    rng = np.random.default_rng(seed)
    (ea, ta), (eb, tb), (ec, tc) = (_pair(rng.standard_normal(n).astype(dtype)) for _ in range(3))
    same(ember.addcmul(ea, eb, ec, value=value), torch.addcmul(ta, tb, tc, value=value))
    same(ember.addcdiv(ea, eb, ec, value=value), torch.addcdiv(ta, tb, tc, value=value))
    same(ember.lerp(ea, eb, value), torch.lerp(ta, tb, value))
    ew, tw = _pair(rng.uniform(-1, 2, n).astype(dtype))
    same(ember.lerp(ea, eb, ew), torch.lerp(ta, tb, tw))
    ea.addcmul_(eb, ec, value=value)
    ta.addcmul_(tb, tc, value=value)
    same(ea, ta)
    ea.lerp_(eb, value)
    ta.lerp_(tb, value)
    same(ea, ta)
    ea.addcdiv_(eb, ec, value=value)
    ta.addcdiv_(tb, tc, value=value)
    same(ea, ta)


def test_fma_rounds_once():
    """The emulated FMA against exact rational arithmetic."""
    from fractions import Fraction

    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        a, b, c = (rng.standard_normal(200).astype(dtype) for _ in range(3))
        result = fma(a, b, c, dtype)
        for x, y, z, r in zip(a, b, c, result):
            exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
            below = np.nextafter(r, dtype(-np.inf))
            above = np.nextafter(r, dtype(np.inf))
            assert abs(Fraction(float(r)) - exact) <= abs(Fraction(float(below)) - exact)
            assert abs(Fraction(float(r)) - exact) <= abs(Fraction(float(above)) - exact)
    assert fma(np.float32(np.inf), np.float32(1), np.float32(1), np.float32) == np.inf
    assert np.isnan(fma(np.float64(np.inf), np.float64(0), np.float64(1), np.float64))


CASES = [
    lambda m: m.addcmul(m.ones(2, 3), m.arange(3.0), m.ones(2, 1) * 2, value=0.5),
    lambda m: m.addcmul(
        m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64), value=2.5
    ),
    lambda m: m.addcmul(
        m.full((3,), 100, dtype=m.int8),
        m.full((3,), 100, dtype=m.int8),
        m.full((3,), 3, dtype=m.int8),
        value=2,
    ),
    lambda m: m.addcmul(m.ones(3), m.ones(3, dtype=m.float64), m.ones(3, dtype=m.int64)),
    lambda m: m.addcmul(m.ones(3, dtype=m.bool), m.ones(3, dtype=m.bool), m.ones(3, dtype=m.bool)),
    lambda m: m.addcmul(
        m.ones(3, dtype=m.uint16), m.ones(3, dtype=m.uint16), m.ones(3, dtype=m.uint16)
    ),
    lambda m: m.addcmul(m.ones(3).half(), m.ones(3).half() / 3, m.ones(3).half(), value=0.3),
    lambda m: m.ones(3, dtype=m.int32).addcmul_(m.ones(3), m.ones(3)),
    lambda m: m.addcmul(m.ones(3), m.ones(3), m.ones(3), out=m.empty(3, dtype=m.float64)),
    lambda m: m.addcmul(m.ones(3), m.ones(3), m.ones(3), out=m.empty(3, dtype=m.int64)),
    lambda m: m.addcdiv(
        m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64)
    ),
    lambda m: m.addcdiv(m.ones(3, dtype=m.int64), m.ones(3), m.ones(3, dtype=m.int64)),
    lambda m: m.addcdiv(m.ones(3), m.ones(3), m.zeros(3), value=-1),
    lambda m: m.ones(3).addcdiv(m.arange(3.0), m.full((2, 1), 3.0)),
    lambda m: m.lerp(m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64), 0.5),
    lambda m: m.lerp(m.ones(3), m.ones(3, dtype=m.float64), 0.5),
    lambda m: m.lerp(m.ones(3), m.ones(3), m.ones(3, dtype=m.float64)),
    lambda m: m.lerp(m.ones(3), m.arange(3.0), m.tensor(0.75, dtype=m.float64)),
    lambda m: m.lerp(m.ones(3), m.ones(3), m.ones(3, dtype=m.int64)),
    lambda m: m.lerp(m.ones(3), m.arange(3.0), 2),
    lambda m: m.lerp(m.ones(3).half(), m.arange(3.0).half(), 0.3),
    lambda m: m.ones(3).lerp_(m.ones(3, 3), 0.5),
    lambda m: m.ones(3, 1).lerp(m.arange(4.0), 0.25),
    lambda m: m.lerp(m.ones(3), m.ones(3), 0.5, out=m.empty(3, dtype=m.int64)),
    lambda m: m.lerp(m.ones(3), m.ones(3), 0.5, out=m.empty(3, dtype=m.float64)),
]


@pytest.mark.parametrize("case", CASES)
def test_outcomes(case):
    same_outcome(case)


@pytest.mark.parametrize(
    "name, call",
    [
        ("AddcmulBackward0", lambda m, a, b, c: m.addcmul(a, b, c, value=0.5)),
        ("AddcdivBackward0", lambda m, a, b, c: m.addcdiv(a, b, c + 3, value=-1.5)),
        ("LerpBackward0", lambda m, a, b, c: m.lerp(a.expand(3, 4), c, 0.3)),
        ("LerpBackward0", lambda m, a, b, c: m.lerp(a.expand(3, 4), c, 0.8)),
        ("LerpBackward1", lambda m, a, b, c: m.lerp(a, b, c)),
    ],
)
def test_gradients(name, call):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(shape) for shape in ((3, 1), (4,), (3, 4))]
    leaves = {lib: [lib.tensor(x).requires_grad_() for x in arrays] for lib in (ember, torch)}
    results = {lib: call(lib, *leaves[lib]) for lib in (ember, torch)}
    assert type(results[ember].grad_fn).__name__ == type(results[torch].grad_fn).__name__ == name
    same(results[ember].detach(), results[torch].detach())
    grad = rng.standard_normal((3, 4))
    for lib in (ember, torch):
        results[lib].backward(lib.tensor(grad))
    for e, t in zip(leaves[ember], leaves[torch]):
        if t.grad is None:
            assert e.grad is None
        else:
            np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-13, atol=1e-15)


@settings(max_examples=40, deadline=None)
@given(
    dtype=FLOATS, n=st.integers(1, 40), seed=st.integers(0, 2**31), alpha=st.floats(-3, 3, width=32)
)
def test_add_sub_with_alpha_round_as_fma(dtype, n, seed, alpha):
    """add/sub with alpha != 1 compute fmadd(other, alpha, self), as PyTorch's kernel does."""
    rng = np.random.default_rng(seed)
    (ea, ta), (eb, tb) = (_pair(rng.standard_normal(n).astype(dtype)) for _ in range(2))
    same(ember.add(ea, eb, alpha=alpha), torch.add(ta, tb, alpha=alpha))
    same(ember.sub(ea, eb, alpha=alpha), torch.sub(ta, tb, alpha=alpha))
    same(ea.add(2.5, alpha=alpha), ta.add(2.5, alpha=alpha))
    ea.add_(eb, alpha=alpha)
    ta.add_(tb, alpha=alpha)
    same(ea, ta)


@pytest.mark.parametrize(
    "case",
    [
        lambda m: m.addcmul(m.ones(3), 0.5, m.ones(3), m.full((3,), 2.0)),
        lambda m: m.addcdiv(m.ones(3), 2, m.ones(3), m.full((3,), 4.0)),
        lambda m: m.ones(3).addcmul_(0.5, m.ones(3), m.ones(3)),
        lambda m: m.addcmul(m.ones(3)),
        lambda m: m.ones(3).addcdiv(m.ones(3)),
    ],
)
def test_deprecated_signatures(case):
    """tools/autograd/deprecated.yaml's addcmul / addcdiv(self, value, tensor1, tensor2)."""
    same_outcome(case)


def test_complex_values_within_tolerance():
    """Complex addcmul / addcdiv / lerp: PyTorch's complex kernels may round the last bit
    otherwise, so these compare with PyTorch's complex128 tolerance."""
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal(7) + 1j * rng.standard_normal(7) for _ in range(3)]
    e, t = zip(*(_pair(a) for a in arrays))
    for name, args in (("addcmul", (0.5 - 0.25j,)), ("addcdiv", (2.0,)), ("lerp", (0.3,))):
        if name == "lerp":
            ours, theirs = ember.lerp(e[0], e[1], *args), torch.lerp(t[0], t[1], *args)
        else:
            ours = getattr(ember, name)(*e, value=args[0])
            theirs = getattr(torch, name)(*t, value=args[0])
        assert ours.dtype.name == "complex128"
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-7, atol=1e-7)
