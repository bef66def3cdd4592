"""TensorIterator's shape, promotion and output-stride rules against PyTorch (property tests)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember


@st.composite
def permuted_pairs(draw):
    """A permuted (non-contiguous) tensor, a same-shape contiguous one, as ember and torch."""
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=ndim, max_size=ndim)))
    perm = draw(st.permutations(range(ndim)))
    a = np.random.default_rng(0).random(shape).astype(np.float32)
    permuted = tuple(shape[p] for p in perm)
    b = np.random.default_rng(1).random(permuted).astype(np.float32)
    x = (ember.tensor(a).permute(*perm), torch.from_numpy(a.copy()).permute(*perm))
    y = (ember.tensor(b), torch.from_numpy(b.copy()))
    return x, y


OPS = [
    lambda x, y: x + 1,
    lambda x, y: x + x,
    lambda x, y: x.exp(),
    lambda x, y: x * y,
    lambda x, y: y - x,
    lambda x, y: x + y[..., :1],
    lambda x, y: x.unsqueeze(0) * y,
]


@settings(max_examples=60, deadline=None)
@given(permuted_pairs(), st.sampled_from(range(len(OPS))))
def test_output_layout_follows_the_inputs_like_torch(pair, op_index):
    (x_e, x_t), (y_e, y_t) = pair
    op = OPS[op_index]
    try:
        expected = op(x_t, y_t)
    except RuntimeError as error:
        with pytest.raises(RuntimeError) as ours:
            op(x_e, y_e)
        assert str(ours.value) == str(error)
        return
    result = op(x_e, y_e)
    assert tuple(result.shape) == tuple(expected.shape)
    assert result.stride() == expected.stride()
    np.testing.assert_allclose(result.numpy(), expected.numpy(), rtol=1e-6)


def test_channels_last_inputs_give_channels_last_outputs():
    x_t = torch.ones(2, 3, 4, 5).to(memory_format=torch.channels_last)
    x_e = ember.ones(2, 4, 5, 3).permute(0, 3, 1, 2)
    assert (x_e + x_e).stride() == (x_t + x_t).stride() == (60, 1, 15, 3)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=0, max_size=4),
    st.lists(st.integers(0, 3), min_size=0, max_size=4),
)
def test_broadcasting_shapes_and_errors_like_torch(a, b):
    x_e, x_t = ember.zeros(a), torch.zeros(a)
    y_e, y_t = ember.zeros(b), torch.zeros(b)
    try:
        expected = x_t + y_t
    except RuntimeError as error:
        with pytest.raises(RuntimeError) as ours:
            x_e + y_e
        assert str(ours.value) == str(error)
        return
    assert tuple((x_e + y_e).shape) == tuple(expected.shape)


@st.composite
def empty_operands(draw):
    """A tensor with a size-0 dim (and often size-1 dims), permuted or expanded, and a
    second operand: a number, a same-shape tensor, a suffix bias or a broadcast one."""
    ndim = draw(st.integers(2, 4))
    shape = draw(st.lists(st.sampled_from([0, 1, 1, 2, 3]), min_size=ndim, max_size=ndim))
    if 0 not in shape:
        shape[draw(st.integers(0, ndim - 1))] = 0
    shape = tuple(shape)
    layout = draw(st.sampled_from(["contiguous", "permuted", "expanded"]))
    perm = draw(st.permutations(range(ndim)))
    other = draw(st.sampled_from(["number", "complex", "same", "bias", "broadcast", "permuted"]))
    op = draw(st.sampled_from(["add", "sub", "mul", "div", "rsub"]))
    return shape, layout, tuple(perm), other, op


def _empty_operand(lib, shape, layout, perm):
    if layout == "permuted":
        stored = tuple(shape[p] for p in perm)
        inverse = tuple(sorted(range(len(perm)), key=lambda i: perm[i]))
        return lib.zeros(stored).permute(*inverse)
    if layout == "expanded":
        return lib.zeros((1,) + shape[1:]).expand(shape)
    return lib.zeros(shape)


def _empty_case(lib, shape, layout, perm, other, op):
    x = _empty_operand(lib, shape, layout, perm)
    y = {
        "number": 2.0,
        "complex": 1j,
        "same": lambda: lib.zeros(shape),
        "bias": lambda: lib.zeros(shape[1:]),
        "broadcast": lambda: lib.zeros((1,) * len(shape)),
        "permuted": lambda: _empty_operand(lib, shape, "permuted", perm[::-1]),
    }[other]
    y = y() if callable(y) else y
    result = getattr(lib, op)(x, y)
    swapped = getattr(lib, op)(y, x) if not isinstance(y, (float, complex)) else result
    layouts = [lib.empty_like(x), x.clone(), x.contiguous(), lib.ones_like(x), -x, x.exp()]
    return [(tuple(t.shape), t.stride(), str(t.dtype)) for t in [result, swapped, *layouts]]


@settings(max_examples=200, deadline=None)
@given(empty_operands())
def test_empty_results_have_torchs_strides(case):
    """Shapes with a size-0 dim: TensorIterator still orders dims by the inputs' strides
    (ties broken by size, so a contiguous (0, 1) tensor and a number give strides (1, 0))."""
    ours = _empty_case(ember, *case)
    theirs = _empty_case(torch, *case)
    assert [(s, st, d.replace("ember", "torch")) for s, st, d in ours] == theirs
