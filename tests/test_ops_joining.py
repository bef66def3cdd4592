"""Joining and gathering operators against PyTorch 2.13: cat, stack, flip, roll, tril, triu,
index_select, gather, scatter, advanced indexing (index.Tensor) and index_put(_).

Inputs come from the same NumPy arrays (often permuted) in both libraries;
results are compared on sizes, strides, dtype, device and values, with meta
inputs for shapes only, and the main errors on type and text.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ops_support import outcome, same_outcome
from oracle import torch

import ember
from ember._tensor_ctors import from_numpy, install
from ember.aten.native import at

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
install(ember.Tensor)


def make(lib, array, device="cpu"):
    array = np.asarray(array)
    t = from_numpy(array.copy()) if lib is ember else torch.from_numpy(array.copy())
    return t.to(device) if device != "cpu" else t


def channels_last(lib):
    return getattr(lib, "channels_last", None) or ember._tensor_ctors.channels_last


def view(lib, array):
    """A tensor sharing ``array``'s (possibly permuted) geometry."""
    return from_numpy(array) if lib is ember else torch.from_numpy(array)


@st.composite
def arrays(draw, min_dims=1, max_dims=3, dtype=np.float32):
    shape = draw(st.lists(st.integers(0, 4), min_size=min_dims, max_size=max_dims))
    perm = draw(st.permutations(range(len(shape))))
    values = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape).astype(dtype)
    return values.transpose(list(perm))


# -- cat / stack -----------------------------------------------------------------------------


@SETTINGS
@given(
    array=arrays(),
    dim=st.integers(-3, 2),
    count=st.integers(1, 3),
    device=st.sampled_from(["cpu", "meta"]),
)
def test_cat_and_stack(array, dim, count, device):
    def pieces(lib):
        return [view(lib, array) if i == 0 else make(lib, array + i, device) for i in range(count)]

    def moved(lib):
        return [t.to(device) for t in pieces(lib)]

    same_outcome(lambda lib: lib.cat(moved(lib), dim))
    same_outcome(lambda lib: lib.stack(moved(lib), dim))


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.cat([lib.ones(2, 2), lib.ones(3, 3)], 1),
        lambda lib: lib.cat([lib.ones(())]),
        lambda lib: lib.cat([lib.ones(2), lib.ones(2, 2)]),
        lambda lib: lib.cat([lib.ones(2, 2), lib.ones(2, 2)], 2),
        lambda lib: lib.cat([lib.ones(2, 3), lib.zeros(0), lib.ones(1, 3, dtype=lib.int64)]),
        lambda lib: lib.cat([lib.zeros(0), lib.zeros(0)]),
        lambda lib: lib.cat([lib.ones(2, dtype=lib.int32), lib.ones(1, dtype=lib.bool)]),
        lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 3, dtype=lib.float64)], 1),
        lambda lib: lib.cat(
            [lib.ones(2, 3, 4, 5).contiguous(memory_format=channels_last(lib))] * 2
        ),
        lambda lib: lib.stack([]),
        lambda lib: lib.stack([lib.ones(2), lib.ones(3)]),
        lambda lib: lib.stack([lib.ones(2), lib.ones(2)], 2),
    ],
)
def test_cat_stack_rules_and_errors(fn):
    same_outcome(fn)


# -- flip / roll / tril / triu ------------------------------------------------------------------


@SETTINGS
@given(array=arrays(), dims=st.lists(st.integers(-3, 2), max_size=3), shift=st.integers(-5, 5))
def test_flip_and_roll(array, dims, shift):
    same_outcome(lambda lib: view(lib, array).flip(dims))
    same_outcome(lambda lib: view(lib, array).roll(shift))
    same_outcome(lambda lib: view(lib, array).roll([shift] * len(dims), dims))
    # torch's meta flip is a Python decomposition: compare it where it agrees with its CPU kernel
    if array.size and outcome(lambda lib: view(lib, array).flip(dims), torch)[1] is None:
        same_outcome(lambda lib: make(lib, array, "meta").flip(dims))


def test_roll_errors():
    same_outcome(lambda lib: lib.roll(lib.ones(2), [1, 1], [0]))
    same_outcome(lambda lib: lib.roll(lib.ones(2), [], []))
    same_outcome(lambda lib: lib.roll(lib.ones(2), [1], [3]))


@SETTINGS
@given(array=arrays(min_dims=2, max_dims=4), diagonal=st.integers(-3, 3))
def test_tril_triu(array, diagonal):
    same_outcome(lambda lib: view(lib, array).tril(diagonal))
    same_outcome(lambda lib: lib.triu(view(lib, array), diagonal))
    same_outcome(lambda lib: make(lib, array, "meta").triu(diagonal))
    same_outcome(lambda lib: make(lib, array).tril_(diagonal))
    same_outcome(lambda lib: lib.tril(lib.ones(3)))


# -- index_select / gather / scatter --------------------------------------------------------------


@SETTINGS
@given(array=arrays(), dim=st.integers(-3, 2), data=st.data())
def test_index_select_and_gather(array, dim, data):
    dim = dim % array.ndim
    size = array.shape[dim] if -array.ndim <= dim < array.ndim else 1
    picks = data.draw(st.lists(st.integers(0, max(size - 1, 0)), max_size=5))
    index = np.array(picks if size else [], dtype=np.int64)
    same_outcome(lambda lib: view(lib, array).index_select(dim, make(lib, index)))
    same_outcome(lambda lib: make(lib, array, "meta").index_select(dim, make(lib, index, "meta")))
    gather_shape = [min(n, 2) for n in array.shape]
    if -array.ndim <= dim < array.ndim:
        gather_shape[dim] = len(picks)
    positions = data.draw(
        st.lists(
            st.integers(0, max(size - 1, 0)),
            min_size=int(np.prod(gather_shape)),
            max_size=int(np.prod(gather_shape)),
        )
    )
    gather_index = np.array(positions, dtype=np.int64).reshape(gather_shape)
    if size:
        same_outcome(lambda lib: view(lib, array).gather(dim, make(lib, gather_index)))
        same_outcome(lambda lib: lib.scatter(make(lib, array), dim, make(lib, gather_index), 7.5))
        src = np.full(gather_index.shape, -1.0, dtype=array.dtype)
        same_outcome(
            lambda lib: make(lib, array).scatter_(dim, make(lib, gather_index), make(lib, src))
        )


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.ones(3).index_select(0, lib.arange(5, 6)),
        lambda lib: lib.ones(3).index_select(0, lib.zeros(1, 1, dtype=lib.int64)),
        lambda lib: lib.ones(3).index_select(0, lib.zeros(1)),
        lambda lib: lib.ones(()).index_select(0, lib.zeros(1, dtype=lib.int64)),
        lambda lib: lib.ones(3).gather(0, lib.arange(5, 6)),
        lambda lib: lib.ones(3).gather(0, lib.arange(-1, 0)),
        lambda lib: lib.ones(3).gather(0, lib.zeros(1)),
        lambda lib: lib.ones(3, 2).gather(0, lib.zeros(1, dtype=lib.int64)),
        lambda lib: lib.ones(3, 2).gather(1, lib.zeros(1, 3, dtype=lib.int64)),
        lambda lib: lib.ones(3).scatter(0, lib.arange(5, 6), lib.ones(3)),
        lambda lib: lib.ones(3).scatter(0, lib.zeros(1, dtype=lib.int32), lib.ones(3)),
        lambda lib: lib.ones(3).scatter(
            0, lib.zeros(1, dtype=lib.int64), lib.ones(3, dtype=lib.int64)
        ),
        lambda lib: lib.ones(3).scatter(0, lib.zeros(1), 1.0),
        lambda lib: lib.ones(3, 2).scatter(0, lib.zeros(1, 3, dtype=lib.int64), lib.ones(3, 2)),
        lambda lib: lib.ones(3, 2).scatter(0, lib.zeros(1, 2, dtype=lib.int64), lib.ones(1)),
        lambda lib: lib.ones(3, 2, dtype=lib.int64).scatter(
            0, lib.zeros(1, 2, dtype=lib.int64), 2.5
        ),
    ],
)
def test_gather_family_errors(fn):
    same_outcome(fn)


# -- advanced indexing ------------------------------------------------------------------------------


def index(lib, x, indices):
    if lib is ember:
        return at.index_Tensor(x, indices)
    return torch.ops.aten.index.Tensor(x, indices)


def index_put(lib, x, indices, values, accumulate, inplace=False):
    if lib is ember:
        op = at.index_put_ if inplace else at.index_put
        return op(x, indices, values, accumulate)
    op = torch.ops.aten.index_put_ if inplace else torch.ops.aten.index_put
    return op(x, indices, values, accumulate)


def meta_indices(lib, indices):
    """Long indices moved to meta; masks stay on cpu (their count needs data)."""
    return [i if i is None or i.dtype in (lib.bool, lib.uint8) else i.to("meta") for i in indices]


INDEX_CASES = [
    lambda lib, x: [make(lib, [0, 2, 1])],
    lambda lib, x: [None, make(lib, [[0], [1]])],
    lambda lib, x: [make(lib, [1, 0]), None, make(lib, [2, 3])],
    lambda lib, x: [None, make(lib, [1, -1]), make(lib, [0, 3])],
    lambda lib, x: [make(lib, [[True, False, True], [False, False, True]])],
    lambda lib, x: [None, make(lib, [True, False, True, True])],
    lambda lib, x: [make(lib, [0, 1], ) , make(lib, [True, False, True])],
    lambda lib, x: [make(lib, np.array([1, 0], dtype=np.int32))],
    lambda lib, x: [make(lib, [5])],
    lambda lib, x: [None, None, make(lib, [4])],
    lambda lib, x: [make(lib, [0, 1]), make(lib, [0, 1, 2])],
    lambda lib, x: [make(lib, [0.0])],
    lambda lib, x: [make(lib, [True, False])],
    lambda lib, x: [None, None, None, None],
    lambda lib, x: [make(lib, np.array([1, 0], dtype=np.uint8))],
]  # fmt: skip


@pytest.mark.parametrize("case", INDEX_CASES[:-1])  # torch's aten.index rejects uint8
@pytest.mark.parametrize("perm", [(0, 1, 2), (2, 0, 1), (1, 2, 0)])
def test_index(case, perm):
    base = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    array = np.ascontiguousarray(base).transpose(perm).copy().transpose(np.argsort(perm))
    _, error = outcome(lambda lib: index(lib, view(lib, array), case(lib, None)), torch)
    same_outcome(lambda lib: index(lib, view(lib, array), case(lib, None)))
    if error is None:  # torch's meta kernels are Python decompositions with their own errors
        same_outcome(
            lambda lib: index(lib, make(lib, array, "meta"), meta_indices(lib, case(lib, None)))
        )


@pytest.mark.parametrize("case", INDEX_CASES)
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("value", [np.float32(9.0), np.arange(4, dtype=np.float32), np.int64(3)])
def test_index_put(case, accumulate, value):
    array = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    same_outcome(
        lambda lib: lib.index_put(make(lib, array), case(lib, None), make(lib, value), accumulate)
    )
    same_outcome(
        lambda lib: make(lib, array).index_put_(case(lib, None), make(lib, value), accumulate)
    )


def test_index_put_accumulates_duplicates():
    same_outcome(
        lambda lib: lib.index_put(
            lib.zeros(3), (make(lib, [0, 0, 1]),), make(lib, np.array([1.0, 2, 3])), accumulate=True
        )
    )
    same_outcome(
        lambda lib: lib.zeros(3, dtype=lib.float64).index_put_(
            (make(lib, [0, 0, 1]),), make(lib, np.array([1.0, 2, 3])), accumulate=True
        )
    )


@pytest.mark.parametrize(
    "shape, indices",
    [
        ((0, 1), lambda lib: [None, make(lib, [0])]),
        ((0, 3, 0), lambda lib: [None, make(lib, [False, False, False]), make(lib, np.zeros(0))]),
        ((2, 0), lambda lib: [make(lib, [1, 0]), make(lib, np.zeros(0, dtype=np.int64))]),
    ],
)
def test_index_error_order_and_empty_dims(shape, indices):
    array = np.zeros(shape, dtype=np.float32)
    same_outcome(lambda lib: index(lib, make(lib, array), indices(lib)))


_CAT_SHAPES = [(2, 3), (3, 3), (2,), (0,), (), (2, 2), (4, 3), (1, 3), (2, 3, 1)]


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(st.sampled_from(_CAT_SHAPES), st.sampled_from(["meta", "meta", "cpu"]),
                  st.sampled_from(["float32", "int64", "float64"])),
        min_size=1, max_size=3,
    ),
    st.sampled_from([0, 1, -1, 2, -3, 5]),
)  # fmt: skip
def test_cat_with_a_meta_operand_checks_as_torchs_python_reference(tensors, dim):
    """A meta operand takes cat to PyTorch's Meta kernel, torch._refs.cat: devices first,
    ranks, the dim, then sizes counted among the tensors kept."""

    def program(lib):
        inputs = [lib.ones(shape, device=device, dtype=getattr(lib, dtype))
                  for shape, device, dtype in tensors]  # fmt: skip
        result = lib.cat(inputs, dim)
        return tuple(result.shape), result.stride(), str(result.dtype).split(".")[1]

    same_outcome(program)
