"""view of an exactly contiguous tensor takes contiguous strides at once
(aten/native/views.py compute_stride): the same strides as computeStride's walk over the
chunks (chunked_strides), for every shape of the same size, and PyTorch's."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember
from ember._c10.tensor_impl import contiguous_strides
from ember.aten.native.views import chunked_strides, compute_stride

_SHAPES = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


def _factorisations(numel: int):
    """Shapes of `numel` elements, size-1 dims sprinkled in."""
    return st.lists(st.integers(1, 4), max_size=4).map(lambda sizes: _fit(tuple(sizes), numel))


def _fit(sizes: tuple, numel: int) -> tuple:
    shape = []
    left = numel
    for size in sizes:
        if size == 1 or left % size == 0:
            shape.append(size)
            left //= size
    return (*shape, left)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), oldshape=_SHAPES)
def test_contiguous_view_strides_are_the_walks(data, oldshape):
    newshape = data.draw(_factorisations(math.prod(oldshape)))
    strides = contiguous_strides(oldshape)
    assert compute_stride(oldshape, strides, newshape) == chunked_strides(
        oldshape, strides, newshape
    )
    assert compute_stride(oldshape, list(strides), newshape) == contiguous_strides(newshape)
    assert compute_stride(list(oldshape), strides, list(newshape)) == contiguous_strides(newshape)
    expected = torch.empty(oldshape).view(newshape).stride()
    assert ember.empty(oldshape).view(newshape).stride() == expected


def test_stack_out_checks_its_out_with_list_sizes():
    # cat / stack out= ask compute_stride about a list of sizes
    out = ember.empty(2, 2, 3)
    with ember.no_grad():
        ember.stack([ember.ones(2, 3), ember.ones(2, 3)], out=out)
    assert out.tolist() == torch.stack([torch.ones(2, 3)] * 2).tolist()


def test_other_layouts_still_walk():
    # a size-1 dim with its own stride, a transpose, an empty tensor: not the fast case
    assert compute_stride((2, 1, 3), (3, 1, 1), (6,)) == (1,)
    assert compute_stride((3, 2), (1, 3), (6,)) is None
    assert compute_stride((2, 0), (1, 1), (0, 2)) == chunked_strides((2, 0), (1, 1), (0, 2))
    assert compute_stride((), (), (1, 1)) == (1, 1)


@settings(max_examples=200, deadline=None)
@given(
    old=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    new=st.lists(st.integers(1, 4), min_size=0, max_size=3),
)
def test_the_contiguous_case_is_the_walk_for_any_new_sizes(old, new):
    """compute_stride is also asked of sizes with another element count (cat / stack out=
    check whether `out` can be viewed as the result): the contiguous case must then answer
    what the walk answers (None), not strides for the other count."""
    strides = contiguous_strides(tuple(old))
    assert compute_stride(old, strides, new) == chunked_strides(tuple(old), strides, new)
