"""Signed zeros and NaN through comparisons, extremes and prod's gradient, against PyTorch.

-0.0 == 0.0, so which zero a tie returns is visible only through signbit (and
1 / x). PyTorch's CPU loops keep the first operand of maximum / minimum, the
value being clamped, and amax's first zero; max() / min() of a whole tensor
keep the later zero and return an all-ones NaN (Note [Signed zeros on ties]).
The tensors here are short, so PyTorch takes its scalar loops, which ember
follows. prod's backward mirrors FunctionsManual's computation order, so its
zero gradients carry PyTorch's signs.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
SPECIAL = [-0.0, 0.0, math.nan, math.inf, -math.inf, 1.0, -1.0, 2.0]
DTYPES = ["float32", "float64", "float16", "bfloat16"]


def _values(t):
    return t.detach().double().numpy() if t.dtype.is_floating_point else t.numpy()


def _same(ours, theirs, label):
    if isinstance(theirs, tuple):
        for o, t in zip(ours, theirs):
            _same(o, t, label)
        return
    assert tuple(ours.shape) == tuple(theirs.shape), label
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], label
    a, b = _values(ours), _values(theirs)
    np.testing.assert_array_equal(a, b, err_msg=label)
    if theirs.dtype.is_floating_point:
        kept = ~np.isnan(b)  # the signs of NaN do not survive torch's half -> double
        np.testing.assert_array_equal(np.signbit(a)[kept], np.signbit(b)[kept], err_msg=label)


BINARY = {
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "minimum": lambda lib, a, b: lib.minimum(a, b),
    "max(a, b)": lambda lib, a, b: lib.max(a, b),
    "min(a, b)": lambda lib, a, b: lib.min(a, b),
    "clamp(a, min=b)": lambda lib, a, b: lib.clamp(a, min=b),
    "clamp(a, max=b)": lambda lib, a, b: lib.clamp(a, max=b),
    "clamp(a, b, b)": lambda lib, a, b: lib.clamp(a, b, b),
    "clamp_(a, b, b)": lambda lib, a, b: a.clone().clamp_(b, b),
    "clamp(a, b, -b)": lambda lib, a, b: lib.clamp(a, b, -b),
    "clamp(b, a, -a)": lambda lib, a, b: lib.clamp(b, a, -a),
}
WITH_NUMBER = {
    "clamp(min=v)": lambda lib, a, v: a.clamp(min=v),
    "clamp(max=v)": lambda lib, a, v: a.clamp(max=v),
    "clamp(v, v)": lambda lib, a, v: a.clamp(v, v),
    "clamp(-1, v)": lambda lib, a, v: a.clamp(-1, v),
    "clamp(v, -v)": lambda lib, a, v: a.clamp(v, -v),
    "clamp(-0.0, 0.0)": lambda lib, a, v: a.clamp(-0.0, 0.0),
    "clamp_(min=v)": lambda lib, a, v: a.clone().clamp_(min=v),
    "relu": lambda lib, a, v: lib.relu(a),
}
REDUCING = {
    "amax": lambda lib, x: lib.amax(x),
    "amin": lambda lib, x: lib.amin(x),
    "amax(0)": lambda lib, x: lib.amax(x, 0),
    "amin(-1, keepdim)": lambda lib, x: lib.amin(x, -1, keepdim=True),
    "amax(t, 0)": lambda lib, x: lib.amax(x.t(), 0),
    "max()": lambda lib, x: x.max(),
    "min()": lambda lib, x: x.min(),
    "max(0)": lambda lib, x: tuple(x.max(0)),
    "min(1)": lambda lib, x: tuple(x.min(1)),
    "argmax": lambda lib, x: x.argmax(),
    "argmin(0)": lambda lib, x: x.argmin(0),
    "sort": lambda lib, x: tuple(x.sort(-1)),
    "sort(descending)": lambda lib, x: tuple(x.sort(0, descending=True)),
}

shapes = st.sampled_from([(1,), (2,), (3,), (5,), (2, 2), (2, 3), (3, 2), (1, 4)])


@st.composite
def tensors(draw):
    shape = draw(shapes)
    values = draw(st.lists(st.sampled_from(SPECIAL), min_size=math.prod(shape)))
    return shape, values[: math.prod(shape)]


def _pair(spec, dtype):
    shape, values = spec
    return tuple(
        lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape) for lib in (ember, torch)
    )


@SETTINGS
@given(tensors(), st.sampled_from(DTYPES), st.sampled_from(sorted(BINARY)), st.data())
def test_binary_ties(spec, dtype, name, data):
    a_e, a_t = _pair(spec, dtype)
    other = (spec[0], data.draw(st.lists(st.sampled_from(SPECIAL), min_size=len(spec[1]))))
    b_e, b_t = _pair((other[0], other[1][: len(spec[1])]), dtype)
    _same(BINARY[name](ember, a_e, b_e), BINARY[name](torch, a_t, b_t), name)


@SETTINGS
@given(tensors(), st.sampled_from(DTYPES), st.sampled_from(sorted(WITH_NUMBER)), st.data())
def test_number_bound_ties(spec, dtype, name, data):
    value = data.draw(st.sampled_from([-0.0, 0.0, 1.0, -1.0, 0, 1]))
    x_e, x_t = _pair(spec, dtype)
    _same(WITH_NUMBER[name](ember, x_e, value), WITH_NUMBER[name](torch, x_t, value), name)


@SETTINGS
@given(tensors(), st.sampled_from(DTYPES), st.sampled_from(sorted(REDUCING)))
def test_reductions_keep_torchs_zero(spec, dtype, name):
    x_e, x_t = _pair(spec, dtype)
    if name in ("max()", "min()") and x_t.numel() >= 4:
        return  # PyTorch's vector tournament (its lane count is the CPU's): see the Note
    if x_t.dim() < 2 and name in ("amax(t, 0)", "min(1)"):
        x_e, x_t = x_e.unsqueeze(0), x_t.unsqueeze(0)
    _same(REDUCING[name](ember, x_e), REDUCING[name](torch, x_t), name)


@pytest.mark.parametrize("dtype, bits", [("float32", "int32"), ("float64", "int64")])
def test_max_of_a_tensor_with_nan_is_the_vector_nan(dtype, bits):
    for values in ([math.nan], [1.0, math.nan], [math.nan, 2.0, -0.0]):
        for name in ("max", "min"):
            ours = getattr(ember.tensor(values, dtype=getattr(ember, dtype)), name)()
            theirs = getattr(torch.tensor(values, dtype=getattr(torch, dtype)), name)()
            assert ours.numpy().view(bits) == theirs.view(getattr(torch, bits)).item()


def test_the_harness_cases():
    for lib in (ember, torch):
        results = [
            lib.minimum(lib.tensor([-0.0]), lib.tensor([0.0])),
            lib.amax(lib.tensor([-0.0, 0.0])),
            lib.zeros(2, dtype=lib.float16).clamp(min=-0.0),
        ]
        signs = [bool(np.signbit(r.float().numpy()).all()) for r in results]
        if lib is ember:
            ours = signs
    assert ours == signs == [True, True, False]


# -- prod's gradient -------------------------------------------------------------------


@st.composite
def prod_cases(draw):
    shape = draw(st.sampled_from([(3,), (2, 3), (3, 2), (1, 4), (2, 1, 2)]))
    values = draw(
        st.lists(st.sampled_from([0.0, -0.0, 0.5, -1.0, 2.0, 3.0, -0.5]), min_size=math.prod(shape))
    )
    dim = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    return shape, values[: math.prod(shape)], dim, draw(st.booleans()), draw(st.booleans())


@SETTINGS
@given(prod_cases())
def test_prod_backward_signs(case):
    shape, values, dim, keepdim, create_graph = case
    grads = []
    for lib in (ember, torch):
        w = lib.tensor(values).reshape(shape).requires_grad_()
        out = w.prod() if dim is None else w.prod(dim, keepdim=keepdim)
        weight = lib.arange(1.0, out.numel() + 1).reshape(out.shape)
        (grad,) = lib.autograd.grad((out * weight).sum(), w, create_graph=create_graph)
        grads.append((grad, type(out.grad_fn).__name__))
    (ours, our_node), (theirs, their_node) = grads
    assert our_node == their_node
    _same(ours, theirs, f"prod dim={dim}")
