"""nn.functional's activations against PyTorch 2.13: values, float64 gradients and
double backward, grad_fn names, the operators a TorchDispatchMode sees in each stage,
the in-place spellings, low-precision dtypes and PyTorch's errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_normact_support import compare_autograd, same_error, same_values
from oracle import torch  # noqa: F401 (the oracle nn_normact_support compares with)

import ember


def F(lib):  # noqa: N802 (torch.nn.functional's usual name)
    return lib.nn.functional


# (function, whether PyTorch's graph supports double backward)
ACTIVATIONS = {
    "elu": (lambda L, x, a: F(L).elu(x, a), True),
    "elu_": (lambda L, x, a: F(L).elu_(x * 1, abs(a)), True),
    "elu_inplace": (lambda L, x, a: F(L).elu(x * 1, abs(a), inplace=True), True),
    "selu": (lambda L, x, a: F(L).selu(x), True),
    "selu_": (lambda L, x, a: F(L).selu_(x * 1), True),
    "celu": (lambda L, x, a: F(L).celu(x, abs(a) + 0.1), True),
    "celu_inplace": (lambda L, x, a: F(L).celu(x * 1, abs(a) + 0.1, inplace=True), True),
    "leaky_relu": (lambda L, x, a: F(L).leaky_relu(x, a), True),
    "leaky_relu_": (lambda L, x, a: F(L).leaky_relu_(x * 1, abs(a)), True),
    "hardtanh": (lambda L, x, a: F(L).hardtanh(x, -abs(a), abs(a) + 0.5), True),
    "hardtanh_": (lambda L, x, a: F(L).hardtanh_(x * 1, -1.0, abs(a)), True),
    "relu6": (lambda L, x, a: F(L).relu6(x * 3), True),
    "relu6_inplace": (lambda L, x, a: F(L).relu6(x * 3, inplace=True), True),
    "softplus": (lambda L, x, a: F(L).softplus(x, abs(a) + 0.5, 2.0), True),
    "silu": (lambda L, x, a: F(L).silu(x), True),
    "silu_inplace": (lambda L, x, a: F(L).silu(x * 1, inplace=True), True),
    "mish": (lambda L, x, a: F(L).mish(x), True),
    "hardswish": (lambda L, x, a: F(L).hardswish(x * 2), True),
    "hardsigmoid": (lambda L, x, a: F(L).hardsigmoid(x * 2), False),
    "softshrink": (lambda L, x, a: F(L).softshrink(x, abs(a)), True),
    "hardshrink": (lambda L, x, a: F(L).hardshrink(x, abs(a)), True),
    "tanhshrink": (lambda L, x, a: F(L).tanhshrink(x), True),
    "threshold": (lambda L, x, a: F(L).threshold(x, a, 2.5), True),
    "threshold_": (lambda L, x, a: F(L).threshold_(x * 1, a, 2.5), True),
    "logsigmoid": (lambda L, x, a: F(L).logsigmoid(x), True),
    "gelu": (lambda L, x, a: F(L).gelu(x), True),
    "gelu_tanh": (lambda L, x, a: F(L).gelu(x, approximate="tanh"), True),
    "softmin": (lambda L, x, a: F(L).softmin(x, -1), True),
    "sigmoid": (lambda L, x, a: F(L).sigmoid(x), True),
    "tanh": (lambda L, x, a: F(L).tanh(x), True),
}

shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3)
slopes = st.sampled_from([-0.7, -0.2, 0.0, 0.01, 0.3, 1.5])


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@settings(max_examples=8, deadline=None)
@given(shape=shapes, a=slopes, seed=st.integers(0, 2**16))
def test_against_torch(name, shape, a, seed):
    fn, double = ACTIVATIONS[name]
    x = np.random.default_rng(seed).standard_normal(shape) * 3
    compare_autograd(lambda L, x: fn(L, x, a), [x], double=double)


def test_hardsigmoid_double_backward_is_not_implemented_in_both():
    def second(lib):
        x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(F(lib).hardsigmoid(x).sum(), x, create_graph=True)
        return lib.autograd.grad(g.sum(), x)

    same_error(second)


@settings(max_examples=10, deadline=None)
@given(batch=st.integers(1, 3), channels=st.integers(1, 4), rest=st.integers(0, 2),
       scalar=st.booleans(), seed=st.integers(0, 2**16))  # fmt: skip
def test_prelu(batch, channels, rest, scalar, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal([batch, channels] + [3] * rest)
    w = rng.standard_normal(1 if scalar else channels)
    compare_autograd(lambda L, x, w: F(L).prelu(x, w), [x, w], double=True)


@settings(max_examples=10, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=3), seed=st.integers(0, 2**16),
       data=st.data())  # fmt: skip
def test_glu(shape, seed, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    shape[dim] *= 2
    x = np.random.default_rng(seed).standard_normal(shape)
    compare_autograd(lambda L, x: F(L).glu(x, dim), [x], double=True)


LOW_PRECISION = ["elu", "selu", "celu", "leaky_relu", "hardtanh", "relu6", "softplus", "silu",
                 "mish", "hardswish", "hardsigmoid", "softshrink", "hardshrink", "logsigmoid",
                 "gelu_tanh"]  # fmt: skip


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-6), ("float16", 1e-3), ("bfloat16", 1e-2)])
@pytest.mark.parametrize("name", LOW_PRECISION)
def test_low_precision_values(name, dtype, tol):
    fn, _ = ACTIVATIONS[name]
    x = np.random.default_rng(1).standard_normal(12) * 3
    same_values(lambda L: fn(L, L.tensor(x, dtype=getattr(L, dtype)), 0.4), rtol=tol, atol=tol)


def test_threshold_on_integers_casts_the_scalars():
    same_values(lambda L: F(L).threshold(L.tensor([1, 2, 3]), 1, 2))
    same_values(lambda L: F(L).threshold(L.tensor([1, 2, 3]), 1.5, 7.9))


def test_hardtanh_on_integers():
    same_values(lambda L: F(L).hardtanh(L.tensor([-3, 0, 4]), -2, 2))


def _long(lib):
    return lib.tensor([1, 2, 3])


ERRORS = [
    lambda L: F(L).elu(_long(L)),
    lambda L: F(L).elu(L.tensor([True])),
    lambda L: F(L).celu(_long(L)),
    lambda L: F(L).selu(_long(L)),
    lambda L: F(L).leaky_relu(_long(L)),
    lambda L: F(L).softplus(_long(L)),
    lambda L: F(L).silu(_long(L)),
    lambda L: F(L).mish(_long(L)),
    lambda L: F(L).hardswish(_long(L)),
    lambda L: F(L).hardsigmoid(_long(L)),
    lambda L: F(L).softshrink(_long(L)),
    lambda L: F(L).hardshrink(_long(L)),
    lambda L: F(L).logsigmoid(_long(L)),
    lambda L: F(L).glu(L.tensor([1, 2])),
    lambda L: F(L).threshold(L.tensor([True]), 0, 1),
    lambda L: F(L).hardtanh(L.tensor([True])),
    lambda L: F(L).hardtanh(L.ones(2), 2.0, 1.0),
    lambda L: F(L).softshrink(L.ones(2), -1.0),
    lambda L: F(L).softshrink(L.ones(2, dtype=L.float64), -0.5),
    lambda L: F(L).glu(L.ones(3)),
    lambda L: F(L).glu(L.ones(2, 3), 1),
    lambda L: F(L).glu(L.tensor(1.0)),
    lambda L: F(L).glu(L.ones(2, 2), 2),
    lambda L: F(L).prelu(L.ones(2, 3), L.ones(2)),
    lambda L: F(L).prelu(L.ones(2, 3), L.ones(3, dtype=L.float64)),
    lambda L: F(L).prelu(L.ones(2, 3), L.ones(1, 3)),
    lambda L: L._prelu_kernel(L.ones(2, 3), L.ones(2)),
    lambda L: F(L).gelu(L.ones(2), approximate="fast"),
    lambda L: L.ops.aten.elu_backward(L.ones(3, dtype=L.long), 1, 1, 1, False, _long(L)),
    lambda L: L.ops.aten.leaky_relu_backward(L.ones(3, dtype=L.long), _long(L), 0.1, False),
    lambda L: L.ops.aten.hardtanh_backward(L.ones(3, dtype=L.long), _long(L), -1, 1),
    lambda L: L.ops.aten.softplus_backward(L.ones(3, dtype=L.long), _long(L), 1, 20),
    lambda L: L.ops.aten.softshrink_backward(L.ones(3, dtype=L.long), _long(L), 0.5),
    lambda L: L.ops.aten.hardswish_backward(L.ones(3, dtype=L.long), _long(L)),
    lambda L: L.ops.aten.elu_backward(L.ones(3), -1.0, 1, 1, True, L.ones(3)),
    lambda L: F(L).leaky_relu_(L.ones(2, requires_grad=True) * 1, -1.0).sum().backward(),
    lambda L: F(L).elu(L.ones(2), inplace=True, alpha="a"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    same_error(ERRORS[case])


def test_inplace_variants_return_their_input():
    x = ember.randn(4)
    for name in ("elu_", "leaky_relu_", "hardtanh_", "selu_", "celu_", "threshold_"):
        args = (0.1, 0.0) if name == "threshold_" else ()
        assert getattr(ember.nn.functional, name)(x, *args) is x


def test_out_variants_against_torch():
    x = np.linspace(-3, 3, 7)
    for name, args in (("elu", (0.5,)), ("softplus", (2.0, 1.0)), ("leaky_relu", (0.2,)),
                       ("hardtanh", (-1.0, 1.0)), ("hardsigmoid", ()), ("hardswish", ()),
                       ("silu", ()), ("mish", ()), ("softshrink", (0.5,))):  # fmt: skip
        same_values(
            lambda L, n=name, a=args: getattr(L._C._nn, n)(L.tensor(x), *a, out=L.empty(0).double())
        )
