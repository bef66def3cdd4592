"""Type promotion of Python numbers and of the losses, against PyTorch 2.13.

A Python number in a Tensor position becomes a wrapped-number tensor (float64
for a float, complex128 for a complex) that promotes as a number: a float one
as the default dtype, a complex one as c10's default complex dtype. So
`torch.add(2.5, 1.5)` is float32, and float64 under `set_default_dtype`.
mse_loss's result takes the common dtype of its operands (a binary
TensorIterator, reduced or not).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from autograd_support import op_recorder
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember
from ember._c10 import dtypes


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, error


def _same(e_fn, t_fn):
    t, t_error = _outcome(t_fn)
    e, e_error = _outcome(e_fn)
    if t_error is not None or e_error is not None:
        assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
        assert str(e_error) == str(t_error)
        return
    assert str(e.dtype).rpartition(".")[2] == str(t.dtype).rpartition(".")[2]
    assert tuple(e.shape) == tuple(t.shape)
    assert e.requires_grad == t.requires_grad
    expected = t.detach().float().numpy() if t.dtype == torch.bfloat16 else t.detach().numpy()
    got = e.detach().float().numpy() if e.dtype is ember.bfloat16 else e.detach().numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6, equal_nan=True)


@pytest.fixture(params=["float32", "float64", "bfloat16"])
def default_dtype(request):
    """Run under each default dtype (float16's complex is complex32, which ember cannot store)."""
    dtypes.set_default_dtype(getattr(dtypes, request.param))
    torch.set_default_dtype(getattr(torch, request.param))
    yield request.param
    dtypes.set_default_dtype(dtypes.float32)
    torch.set_default_dtype(torch.float32)


NUMBERS = st.one_of(
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.complex_numbers(max_magnitude=1e3, allow_nan=False, allow_infinity=False),
)
FUNCTIONS = [
    "add",
    "sub",
    "mul",
    "div",
    "floor_divide",
    "multiply",
    "subtract",
    "divide",
    "true_divide",
]


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(FUNCTIONS), a=NUMBERS, b=NUMBERS)
def test_two_python_numbers(name, a, b):
    _same(lambda: getattr(ember, name)(a, b), lambda: getattr(torch, name)(a, b))


@pytest.mark.parametrize(
    "call",
    [
        "add(2.5, 1.5)",
        "add(2, 1)",
        "add(2, 1.5)",
        "add(True, True)",
        "add(True, 2)",
        "add(1j, 2)",
        "add(1j, 2.5)",
        "add(2.5, 1.5, alpha=2)",
        "sub(2.5, 1)",
        "sub(True, False)",
        "mul(2.5, 2.5)",
        "mul(True, False)",
        "div(1, 2)",
        "div(1.0, 2.0, rounding_mode='floor')",
        "div(7, 2, rounding_mode='trunc')",
        "floor_divide(7.5, 2)",
        "true_divide(1, 2)",
        "multiply(1.5, 2)",
        "subtract(1.5, 2, alpha=2)",
        "divide(7, 2, rounding_mode='floor')",
        "add(2.5, lib.tensor(1.5, dtype=lib.float64))",
        "add(lib.tensor(2, dtype=lib.int32), 1.5)",
        "add(2.5, lib.tensor([2], dtype=lib.float16))",
        "add(2.5, 1.5, out=lib.empty(()))",
        "add(2.5, 1.5, out=lib.empty((), dtype=lib.int64))",
        "add(lib.ones(2, dtype=lib.float32), 1j)",
        "mul(lib.ones(2, dtype=lib.int64), 1j)",
    ],
)
def test_numbers_promote_as_torch(call, default_dtype):
    _same(lambda: eval(f"lib.{call}", {"lib": ember}), lambda: eval(f"lib.{call}", {"lib": torch}))


# -- the losses ----------------------------------------------------------------------------

LOSS_DTYPES = ["float16", "bfloat16", "float32", "float64", "int64", "bool"]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("target_dtype", LOSS_DTYPES)
@pytest.mark.parametrize("input_dtype", LOSS_DTYPES)
def test_mse_loss_takes_the_common_dtype(input_dtype, target_dtype, reduction):
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0]).to(getattr(lib, input_dtype))
        y = lib.tensor([1.5, 2.0, 0.0]).to(getattr(lib, target_dtype))
        return lib.nn.functional.mse_loss(x, y, reduction=reduction)

    _same(lambda: run(ember), lambda: run(torch))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("target", ["float64-0d", "float16", "float64"])
def test_mse_loss_backward_with_mixed_dtypes(target, reduction):
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float32, requires_grad=True)
        name, _, zero_dim = target.partition("-")
        y = lib.tensor(2.0 if zero_dim else [1.5, 2.0, 0.0], dtype=getattr(lib, name))
        y.requires_grad_()
        loss = lib.nn.functional.mse_loss(x, y, reduction=reduction)
        loss.sum().backward()
        return loss, x.grad, y.grad

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the size-mismatch warning of a 0-dim target
        e, t = run(ember), run(torch)
    for a, b in zip(e, t):
        _same(lambda a=a: a, lambda b=b: b)
    assert type(e[0].grad_fn).__name__ == type(t[0].grad_fn).__name__


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    "call",
    [
        "nll_loss(x.log_softmax(1), t, weight=lib.ones(3, dtype=lib.float64), reduction=r)",
        "nll_loss(x.half(), t, weight=lib.ones(3), reduction=r)",
        "cross_entropy(x, t, weight=lib.ones(3, dtype=lib.float64), reduction=r)",
        "cross_entropy(x.double(), x.softmax(1), reduction=r)",
        "cross_entropy(x, x.double().softmax(1), reduction=r)",
        "cross_entropy(x, t, label_smoothing=0.1, weight=lib.ones(3).double(), reduction=r)",
    ],
)
def test_nll_and_cross_entropy_with_mixed_dtypes(call, reduction):
    def run(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 2.0]])
        t = lib.tensor([0, 2])
        return eval(f"lib.nn.functional.{call}", {"lib": lib, "x": x, "t": t, "r": reduction})

    _same(lambda: run(ember), lambda: run(torch))


def test_a_dtype_conversion_does_not_reset_the_warning_registry():
    """The warning of a repeated call on one line shows once, conversions in between or not
    (a `catch_warnings` inside a kernel would reset every registry and repeat it)."""

    def warnings_seen(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            for _ in range(3):
                lib.nn.functional.mse_loss(lib.ones(3), lib.ones(()))  # a size mismatch
                lib.ones(2).to(lib.int64)
        return len(caught)

    assert warnings_seen(ember) == warnings_seen(torch) == 1


ALIASES = [
    "lib.multiply(t, 2)", "lib.multiply(t, t)", "t.multiply(2)", "t.multiply_(2)",
    "lib.subtract(t, 2, alpha=2)", "lib.subtract(2, t)", "t.subtract_(t)", "lib.divide(t, 2)",
    "lib.divide(t, 2, rounding_mode='floor')", "t.divide_(2, rounding_mode='trunc')",
    "lib.true_divide(t, 2)", "t.true_divide_(t)", "lib.multiply(t, t, out=o)",
    "lib.divide(t, t, rounding_mode=None, out=o)", "lib.ops.aten.multiply.Scalar(t, 2)",
    "lib.subtract(True, t)", "lib.true_divide(x, x)", "lib.divide(x, 2, rounding_mode='floor')",
]  # fmt: skip


@pytest.mark.parametrize("call", ALIASES)
def test_aliases_dispatch_the_aliased_operator(call):
    """multiply / subtract / divide / true_divide decompose into mul / sub / div (a mode sees
    those, the grad_fn is theirs), as PyTorch's CompositeImplicitAutograd aliases do."""

    def run(lib):
        names = {"lib": lib, "t": lib.ones(2), "o": lib.zeros(2)}
        names["x"] = lib.ones(2, requires_grad=True)
        recorder = op_recorder(lib)
        with recorder:
            result = eval(call, names)
        return result, recorder.ops, type(result.grad_fn).__name__

    e, e_error = _outcome(lambda: run(ember))
    t, t_error = _outcome(lambda: run(torch))
    if t_error is not None or e_error is not None:
        assert (type(e_error).__name__, str(e_error)) == (type(t_error).__name__, str(t_error))
        return
    assert e[1:] == t[1:]
    _same(lambda: e[0], lambda: t[0])
