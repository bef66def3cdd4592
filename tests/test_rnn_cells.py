"""torch.lstm_cell / gru_cell / rnn_tanh_cell / rnn_relu_cell against PyTorch 2.13: values
and gradients (float64, float32, bfloat16 bit for bit), grad_fn names, the output dtypes
under autocast('cpu'), and RNN.cpp's argument errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

GATES = {"lstm_cell": 4, "gru_cell": 3, "rnn_tanh_cell": 1, "rnn_relu_cell": 1}


def _arrays(seed, batch, insize, hidden, gates):
    rng = np.random.default_rng(seed)
    shapes = [(batch, insize), (batch, hidden), (batch, hidden), (gates * hidden, insize),
              (gates * hidden, hidden), (gates * hidden,), (gates * hidden,)]  # fmt: skip
    return [rng.standard_normal(s) for s in shapes]


def _run(lib, name, arrays, dtype, bias):
    x, h, c, wi, wh, bi, bh = (
        lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays
    )
    biases = (bi, bh) if bias else ()
    f = getattr(lib, name)
    out = f(x, (h, c), wi, wh, *biases) if name == "lstm_cell" else f(x, h, wi, wh, *biases)
    out = out if isinstance(out, tuple) else (out,)
    total = sum(o.float().sum() * (i + 1) for i, o in enumerate(out))
    total.backward()
    leaves = (x, h, wi, wh) + biases + ((c,) if name == "lstm_cell" else ())
    return out, [t.grad for t in leaves]


@pytest.mark.parametrize("name", sorted(GATES))
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    batch=st.integers(1, 3),
    insize=st.integers(1, 4),
    hidden=st.integers(1, 3),
    bias=st.booleans(),
)
def test_cell_values_gradients(name, dtype, seed, batch, insize, hidden, bias):
    arrays = _arrays(seed, batch, insize, hidden, GATES[name])
    t_out, t_grads = _run(torch, name, arrays, dtype, bias)
    e_out, e_grads = _run(ember, name, arrays, dtype, bias)
    assert [o.grad_fn.name() for o in e_out] == [o.grad_fn.name() for o in t_out]
    exact = dtype == "bfloat16"
    for a, b in zip(list(t_out) + t_grads, list(e_out) + e_grads, strict=True):
        assert str(b.dtype) == str(a.dtype).replace("torch", "ember")
        a, b = a.detach().float().numpy(), b.detach().float().numpy()
        if exact:
            np.testing.assert_array_equal(b, a)
        else:
            np.testing.assert_allclose(b, a, rtol=1e-5 if dtype == "float32" else 1e-7, atol=1e-6)


@pytest.mark.parametrize("name", sorted(GATES))
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float64"])
def test_cell_dtypes_under_autocast(name, dtype):
    def dtypes_of(lib):
        arrays = _arrays(0, 2, 3, 2, GATES[name])
        x, h, c, wi, wh, bi, bh = (lib.tensor(a, dtype=getattr(lib, dtype)) for a in arrays)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            f = getattr(lib, name)
            out = f(x, (h, c), wi, wh, bi, bh) if name == "lstm_cell" else f(x, h, wi, wh, bi, bh)
        out = out if isinstance(out, tuple) else (out,)
        return [str(o.dtype).split(".")[-1] for o in out]

    assert dtypes_of(ember) == dtypes_of(torch)


def _error(lib, name, case):
    x, h = lib.rand(2, 3), lib.rand(2, 5)
    g = GATES[name]
    wi, wh = lib.rand(g * 5, 3), lib.rand(g * 5, 5)
    args = {
        "input_size": (lib.rand(2, 4), h, wi, wh),
        "batch": (x, lib.rand(3, 5), wi, wh),
        "hidden_size": (x, lib.rand(2, 4), wi, wh),
        "w_ih": (x, h, lib.rand(g * 5 + 1, 3), wh),
        "w_hh": (x, h, wi, lib.rand(g * 5 + 1, 5)),
    }[case]
    if name == "lstm_cell":
        a, hidden, *rest = args
        args = (a, (h, hidden) if case in ("batch", "hidden_size") else (hidden, h), *rest)
    with pytest.raises(RuntimeError) as info:
        getattr(lib, name)(*args)
    return str(info.value)


@pytest.mark.parametrize("name", sorted(GATES))
@pytest.mark.parametrize("case", ["input_size", "batch", "hidden_size", "w_ih", "w_hh"])
def test_cell_errors(name, case):
    assert _error(ember, name, case) == _error(torch, name, case)


def test_lstm_cell_needs_two_hidden_states():
    def message(lib):
        with pytest.raises(RuntimeError) as info:
            lib.lstm_cell(lib.rand(2, 3), (lib.rand(2, 5),), lib.rand(20, 3), lib.rand(20, 5))
        return str(info.value)

    assert message(ember) == message(torch)
