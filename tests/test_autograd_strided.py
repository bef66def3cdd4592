"""Gradients through unfold, as_strided over overlapping geometries and indexing with None
entries: against torch (values, grad_fn names, second gradients) and gradcheck."""

from __future__ import annotations

import numpy as np
import pytest
from autograd_support import compare_case
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

IDX = [0, 2, 0]

CASES = {
    "unfold": (lambda t, a: a.unfold(0, 2, 1), [(4,)]),
    "unfold_overlapping_2d": (lambda t, a: a.unfold(1, 3, 1), [(2, 5)]),
    "unfold_with_gaps": (lambda t, a: a.unfold(1, 2, 3), [(2, 7)]),
    "unfold_twice": (lambda t, a: a.unfold(0, 3, 1).unfold(1, 2, 1), [(5,)]),
    "unfold_0d": (lambda t, a: a.unfold(0, 1, 1), [()]),
    "as_strided_overlapping": (lambda t, a: a.as_strided((3, 2), (1, 1)), [(4,)]),
    "as_strided_broadcast": (lambda t, a: a.as_strided((2, 3), (0, 1), 1), [(4,)]),
    "as_strided_of_transpose": (lambda t, a: a.t().as_strided((3, 2), (1, 1)), [(2, 3)]),
    "as_strided_of_slice": (lambda t, a: a[:, ::2].as_strided((3,), (2,), 1), [(2, 4)]),
    "as_strided_of_expand": (lambda t, a: a.expand(3, 4).as_strided((2, 2), (1, 1)), [(4,)]),
    "as_strided_of_offset_view": (lambda t, a: a[1:].as_strided((2, 2), (1, 1)), [(5,)]),
    "index_leading_none": (lambda t, a: a[None, t.tensor(IDX)], [(4,)]),
    "index_colon_first": (lambda t, a: a[:, t.tensor(IDX)], [(2, 3)]),
    "index_then_none": (lambda t, a: a[t.tensor(IDX), None], [(3, 2)]),
    "index_ellipsis": (lambda t, a: a[..., t.tensor(IDX)], [(2, 3)]),
    "index_separated": (lambda t, a: a[t.tensor(IDX), 1:, t.tensor(IDX)], [(3, 2, 3)]),
    "index_op_none": (
        lambda t, a: t.ops.aten.index.Tensor(a, [None, t.tensor(IDX)]),
        [(2, 3)],
    ),
    "index_put_none": (
        lambda t, a, v: t.ops.aten.index_put(a, [None, t.tensor([0, 2])], v),
        [(2, 3), (2, 2)],
    ),
    "index_put_none_accumulate": (
        lambda t, a, v: t.ops.aten.index_put(a, [None, t.tensor(IDX)], v, True),
        [(2, 3), (2, 3)],
    ),
    "setitem_none": (lambda t, a, v: _setitem(a, v), [(2, 3), (2, 2)]),
}


def _setitem(a, v):
    b = a.clone()
    b[:, [0, 2]] = v
    return b


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_match_torch(name):
    fn, shapes = CASES[name]
    rng = np.random.default_rng(0)
    compare_case(fn, [rng.standard_normal(s) for s in shapes])


# It reads storage its input view does not cover: torch (and so ember) treats those
# elements as constants (as_strided_backward's "not visible in input geometry").
NOT_GRADCHECKED = {"as_strided_of_slice"}


@pytest.mark.parametrize("name", sorted(set(CASES) - NOT_GRADCHECKED))
def test_gradcheck(name):
    fn, shapes = CASES[name]
    rng = np.random.default_rng(1)
    inputs = [ember.tensor(rng.standard_normal(s)).requires_grad_() for s in shapes]
    assert ember.autograd.gradcheck(lambda *xs: fn(ember, *xs), inputs)


def test_unfold_backward_is_twice_differentiable():
    """unfold_backward's own gradient is unfold (UnfoldBackwardBackward0), as in torch."""
    names = []
    for lib in (ember, torch):
        x = lib.arange(5.0, dtype=lib.float64).requires_grad_()
        y = x.unfold(0, 2, 1)
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        h = lib.autograd.grad(g.sum(), x, create_graph=True)[0]
        names.append((g.grad_fn.name(), g.tolist(), h.tolist()))
    assert names[0] == names[1]


_geometry = st.tuples(
    st.lists(st.integers(1, 3), min_size=1, max_size=3),
    st.lists(st.integers(0, 3), min_size=3, max_size=3),
    st.integers(0, 2),
)


@settings(max_examples=60, deadline=None)
@given(geometry=_geometry, base=st.sampled_from(["plain", "transposed", "expanded"]))
def test_as_strided_on_any_geometry_matches_torch(geometry, base):
    """Any as_strided view of a 3x4 base (contiguous, transposed or expanded): the
    gradient counts each element as often as the view reads it."""
    sizes, strides, offset = geometry
    strides = strides[: len(sizes)]
    span = offset + sum((s - 1) * st_ for s, st_ in zip(sizes, strides))
    if span >= 12:
        return
    grads = []
    for lib in (ember, torch):
        x = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
        start = {"plain": x, "transposed": x.t(), "expanded": x[0].expand(3, 4)}[base]
        view = start.as_strided(sizes, strides, offset)
        seed = lib.arange(float(view.numel()), dtype=lib.float64).reshape(view.shape) + 1
        (view * seed).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]
