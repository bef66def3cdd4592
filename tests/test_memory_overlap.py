"""Memory overlap of in-place and out= operators: ember refuses exactly when PyTorch refuses.

Differential tests against PyTorch 2.13 (Note [Memory overlap checks] in
aten/memory_overlap.py). Hypothesis draws a written-to view and input views
of one storage (slices, expands, transposes, steps, offsets, aliasing as_strided
views), runs one operator under both libraries and compares: the exception's
type and text, the warnings, the storage's bytes and its version afterwards.
Where PyTorch accepts a written-to tensor whose memory meets an input's in
another order (ember then computes in PyTorch's loop order, or refuses with
NotImplementedError where it cannot: the storage must then be untouched) (the "TooHard" cases its checks let through, and the kernels it
never checks), its result depends on its loop order: the storage is compared
only when no element is both read and written in two different positions.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

N = 24  # elements in the shared storage
PARTIAL = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)
INTERNAL = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


# -- geometry -------------------------------------------------------------------------


def _span(sizes, strides) -> int:
    if 0 in sizes:
        return 0
    return 1 + sum((size - 1) * stride for size, stride in zip(sizes, strides))


def _contiguous(sizes) -> list[int]:
    strides, running = [], 1
    for size in reversed(sizes):
        strides.insert(0, running)
        running *= max(size, 1)
    return strides


@st.composite
def strides_for(draw, sizes):
    """Strides of a view of `sizes`: dense, permuted, expanded, stepped or arbitrary."""
    kind = draw(st.sampled_from(["contiguous", "permuted", "expanded", "stepped", "any"]))
    strides = _contiguous(sizes)
    if kind == "permuted" and len(sizes) > 1:
        order = draw(st.permutations(range(len(sizes))))
        running = 1
        for d in reversed(order):
            strides[d] = running
            running *= max(sizes[d], 1)
    elif kind == "expanded" and sizes:
        strides[draw(st.integers(0, len(sizes) - 1))] = 0
    elif kind == "stepped":
        step = draw(st.integers(2, 3))
        strides = [stride * step for stride in strides]
    elif kind == "any":
        strides = [draw(st.integers(0, 5)) for _ in sizes]
    return strides


@st.composite
def view_in_storage(draw, sizes, near=None):
    """(sizes, strides, offset) of a view that fits the storage; `near` biases it towards
    the written-to view's geometry (the same one, or shifted)."""
    if near is not None and near[0] == tuple(sizes) and draw(st.booleans()):
        _, strides, offset = near
        offset += draw(st.sampled_from([0, 0, -1, 1, 2, -2]))
    else:
        strides = draw(strides_for(sizes))
        offset = draw(st.integers(0, N))
    span = _span(sizes, strides)
    offset = max(0, min(offset, N - span))
    if span > N:
        strides = _contiguous(sizes)
    return tuple(sizes), tuple(strides), offset


SIZES = st.lists(st.integers(0, 4), min_size=0, max_size=2).filter(lambda s: int(np.prod(s)) <= 12)


def _make(lib, base, geometry):
    sizes, strides, offset = geometry
    return base.as_strided(sizes, strides, offset)


def _addresses(geometry) -> list[int]:
    sizes, strides, offset = geometry
    if 0 in sizes:
        return []
    grid = np.indices(sizes).reshape(len(sizes), -1) if sizes else np.zeros((0, 1), int)
    return [offset + int(np.dot(strides, index)) for index in grid.T]


def _ambiguous(written, inputs, elementwise: bool) -> bool:
    """Whether PyTorch's accepted result depends on the order its loops run in."""
    out = _addresses(written)
    if len(set(out)) != len(out):
        return True  # internal overlap it could not detect
    for geometry in inputs:
        read = _addresses(geometry)
        if not set(read) & set(out):
            continue
        if elementwise and read == out:
            continue  # the same elements in the same order: each reads its own location
        return True
    return False


# -- running under both libraries -----------------------------------------------------


def _run(lib, op, written, inputs, same_object):
    base = lib.arange(1.0, N + 1.0, dtype=lib.float64)
    w = _make(lib, base, written)
    views = [w if same_object and i == 0 else _make(lib, base, g) for i, g in enumerate(inputs)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            op.call(lib, w, *views)
            error = None
        except Exception as exc:  # noqa: BLE001 (compared with torch's)
            error = (type(exc).__name__, str(exc))
    messages = [(w.category.__name__, str(w.message)) for w in caught]
    return error, messages, base.numpy().copy(), base._version


class Op:
    def __init__(self, name, call, inputs=1, input_sizes=None, elementwise=True, sizes=SIZES):
        self.name = name
        self.call = call
        self.inputs = inputs
        self.input_sizes = input_sizes or (lambda sizes: sizes)
        self.elementwise = elementwise
        self.sizes = sizes

    def __repr__(self) -> str:
        return self.name


def _index(lib, n, size):
    """A fixed permutation-like index of n positions in range(size)."""
    return lib.tensor([(3 * i + 1) % size for i in range(n)], dtype=lib.int64)


def _first_dim(sizes):
    return (max(1, (sizes[0] + 1) // 2), *sizes[1:])


ONE_OR_TWO_DIMS = st.lists(st.integers(1, 4), min_size=1, max_size=2)
MATRIX = st.lists(st.integers(1, 3), min_size=2, max_size=2)
VECTOR = st.lists(st.integers(1, 6), min_size=1, max_size=1)

OPS = [
    # TensorIterator: in-place and out=, unary and binary (generated kernels, fast paths)
    Op("add_", lambda t, w, a: w.add_(a)),
    Op("sub_alpha", lambda t, w, a: w.sub_(a, alpha=2)),
    Op("mul_", lambda t, w, a: w.mul_(a)),
    Op("div_", lambda t, w, a: w.div_(a)),
    Op("pow_", lambda t, w, a: w.pow_(a)),
    Op("lt_", lambda t, w, a: w.lt_(a)),
    Op("clamp_min_tensor", lambda t, w, a: w.clamp_(min=a)),
    Op("add_scalar_", lambda t, w: w.add_(1.5), inputs=0),
    Op("mul_scalar_", lambda t, w: w.mul_(2), inputs=0),
    Op("exp_", lambda t, w: w.exp_(), inputs=0),
    Op("relu_", lambda t, w: w.relu_(), inputs=0),
    Op("cumsum_", lambda t, w: w.cumsum_(0), inputs=0, sizes=ONE_OR_TWO_DIMS),
    Op("add_out", lambda t, w, a, b: t.add(a, b, out=w), inputs=2),
    Op("mul_out", lambda t, w, a: t.mul(a, 3.0, out=w)),
    Op("maximum_out", lambda t, w, a, b: t.maximum(a, b, out=w), inputs=2),
    Op("floor_divide_out", lambda t, w, a: t.floor_divide(a, 2.0, out=w)),
    Op("exp_out", lambda t, w, a: t.exp(a, out=w)),
    Op("neg_out", lambda t, w, a: t.neg(a, out=w)),
    Op("abs_out", lambda t, w, a: t.abs(a, out=w)),
    Op("sqrt_out", lambda t, w, a: t.sqrt(a, out=w)),
    Op("logical_not_out", lambda t, w, a: t.logical_not(a, out=w)),
    Op("logical_and_out", lambda t, w, a, b: t.logical_and(a, b, out=w), inputs=2),
    Op("eq_out", lambda t, w, a: t.eq(a, 3.0, out=w)),
    Op("where_out", lambda t, w, a, b: t.where(a > 10, a, b, out=w), inputs=2),
    Op("clamp_out", lambda t, w, a: t.clamp(a, min=5.0, out=w)),
    Op("copy_", lambda t, w, a: w.copy_(a)),
    Op("setitem_slice", lambda t, w, a: w.__setitem__(..., a)),
    Op("fill_", lambda t, w: w.fill_(2.0), inputs=0),
    Op("zero_", lambda t, w: w.zero_(), inputs=0),
    Op("fill_tensor", lambda t, w, a: w.fill_(a), input_sizes=lambda sizes: ()),
    Op("cumsum_out", lambda t, w, a: t.cumsum(a, 0, out=w), sizes=ONE_OR_TWO_DIMS),
    # kernels with their own checks (cat, index_select, gather, scatter, index_put_, ...)
    Op(
        "cat_out",
        lambda t, w, a: t.cat(
            [a, t.ones(w.shape[0] - a.shape[0], *w.shape[1:], dtype=t.float64)], out=w
        ),
        input_sizes=_first_dim,
        sizes=ONE_OR_TWO_DIMS,
    ),
    Op(
        "index_select_out",
        lambda t, w, a: t.index_select(a, 0, _index(t, w.shape[0], a.shape[0]), out=w),
        elementwise=False,
        sizes=VECTOR,
    ),
    Op(
        "gather_out",
        lambda t, w, a: t.gather(a, 0, _index(t, w.shape[0], a.shape[0]), out=w),
        elementwise=False,
        sizes=VECTOR,
    ),
    Op(
        "scatter_src",
        lambda t, w, a: w.scatter_(0, t.arange(w.shape[0]).flip(0), a),
        elementwise=False,
        sizes=VECTOR,
    ),
    Op("scatter_value", lambda t, w: w.scatter_(0, t.tensor([0]), 5.0), inputs=0, sizes=VECTOR),
    Op(
        "index_put_",
        lambda t, w, a: w.index_put_((t.arange(w.shape[0]).flip(0),), a),
        elementwise=False,
        sizes=VECTOR,
    ),
    Op(
        "setitem_index",
        lambda t, w, a: w.__setitem__(t.arange(w.shape[0]).flip(0), a),
        elementwise=False,
        sizes=VECTOR,
    ),
    Op("masked_fill_", lambda t, w: w.masked_fill_(t.ones(w.shape, dtype=t.bool), 7.0), inputs=0),
    Op(
        "setitem_mask_scalar",
        lambda t, w: w.__setitem__(t.ones(w.shape, dtype=t.bool), 7.0),
        inputs=0,
    ),
    Op("sort_out", lambda t, w, a: t.sort(a, out=(w, t.empty(0, dtype=t.int64))), sizes=VECTOR),
    Op(
        "max_dim_out",
        lambda t, w, a: t.max(a, 0, out=(w, t.empty(0, dtype=t.int64))),
        input_sizes=lambda sizes: (2, *sizes),
        elementwise=False,
        sizes=VECTOR,
    ),
    # kernels PyTorch checks only partly (matrix products, reductions)
    Op(
        "mm_out",
        lambda t, w, a: t.mm(a, t.ones(w.shape[1], w.shape[1], dtype=t.float64), out=w),
        elementwise=False,
        sizes=MATRIX,
    ),
    Op(
        "addmm_",
        lambda t, w, a: w.addmm_(a, t.ones(w.shape[1], w.shape[1], dtype=t.float64)),
        elementwise=False,
        sizes=MATRIX,
    ),
    Op(
        "addmm_out_bias",
        lambda t, w, a: t.addmm(
            a, t.ones(w.shape[0], 2, dtype=t.float64), t.ones(2, w.shape[1], dtype=t.float64), out=w
        ),
        elementwise=False,
        sizes=MATRIX,
    ),
    Op(
        "sum_out",
        lambda t, w, a: t.sum(a, 0, out=w),
        input_sizes=lambda sizes: (2, *sizes),
        elementwise=False,
        sizes=VECTOR,
    ),
    Op(
        "mean_out",
        lambda t, w, a: t.mean(a, 0, out=w),
        input_sizes=lambda sizes: (2, *sizes),
        elementwise=False,
        sizes=VECTOR,
    ),
]


@st.composite
def case(draw, op):
    sizes = tuple(draw(op.sizes))
    written = draw(view_in_storage(sizes))
    inputs = [
        draw(view_in_storage(tuple(op.input_sizes(sizes)), near=written)) for _ in range(op.inputs)
    ]
    same_object = (
        op.inputs > 0 and tuple(op.input_sizes(sizes)) == sizes and draw(st.integers(0, 4)) == 0
    )
    if same_object:
        inputs[0] = written
    return written, inputs, same_object


def _compare(op, written, inputs, same_object):
    t_error, t_warnings, t_data, t_version = _run(torch, op, written, inputs, same_object)
    e_error, e_warnings, e_data, e_version = _run(ember, op, written, inputs, same_object)
    if t_error is None and e_error is not None and _ambiguous(written, inputs, op.elementwise):
        # PyTorch's values depend on its loop order here: ember may refuse, untouched
        assert e_error[0] == "NotImplementedError" and "Please clone() the input" in e_error[1]
        np.testing.assert_array_equal(e_data, np.arange(1.0, N + 1.0))
        return
    assert e_error == t_error
    assert e_warnings == t_warnings
    assert e_version == t_version
    if e_error is not None:  # refused before writing anything (PyTorch may have written some)
        np.testing.assert_array_equal(e_data, np.arange(1.0, N + 1.0))
    elif not _ambiguous(written, inputs, op.elementwise):
        np.testing.assert_allclose(e_data, t_data, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("op", OPS, ids=repr)
def test_overlap_agrees_with_torch(op):
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(case(op))
    def check(drawn):
        _compare(op, *drawn)

    check()


# -- the cases of issue 11, spelled out ---------------------------------------------------


def _same(fn):
    results = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = fn(lib)
                results.append(("ok", np.asarray(value.numpy()).tolist()))
            except Exception as exc:  # noqa: BLE001 (compared with torch's)
                results.append((type(exc).__name__, str(exc)))
        results[-1] += tuple((w.category.__name__, str(w.message)) for w in caught)
    assert results[1] == results[0]
    return results[0]


def _partial(fn):
    assert _same(fn) == ("RuntimeError", PARTIAL)


def _internal(fn):
    assert _same(fn) == ("RuntimeError", INTERNAL)


def test_issue_examples_are_refused():
    def shifted(op):
        def fn(t):
            x = t.arange(6.0)
            op(t, x)
            return x

        return fn

    _partial(shifted(lambda t, x: x[1:].add_(x[:-1])))
    _partial(shifted(lambda t, x: x[1:].mul_(x[:-1])))
    _partial(shifted(lambda t, x: t.exp(x[:-1], out=x[1:])))
    _partial(shifted(lambda t, x: t.cumsum(x[:-1], 0, out=x[1:])))
    _partial(shifted(lambda t, x: t.cat([x[:2], x[2:4]], out=x[:4])))
    _partial(shifted(lambda t, x: t.index_select(x[:3], 0, t.tensor([2, 1, 0]), out=x[1:4])))
    _partial(shifted(lambda t, x: t.index_select(x, 0, t.arange(6).flip(0), out=x)))
    _partial(shifted(lambda t, x: x[1:].copy_(x[:2])))  # before the broadcast error
    _partial(shifted(lambda t, x: x[1:].add_(x[:2])))  # before the broadcast error
    _internal(lambda t: t.exp(t.ones(4), out=t.zeros(4)[:1].expand(4)))
    _internal(lambda t: t.zeros(1).expand(4).scatter_(0, t.tensor([0, 1]), t.ones(2)))
    _internal(lambda t: t.zeros(1).expand(2, 2).addmm_(t.ones(2, 2), t.ones(2, 2)))


def test_exact_self_aliasing_is_allowed():
    def fn(op):
        def run(t):
            x = t.arange(6.0, dtype=t.float64)
            op(t, x)
            return x

        return run

    assert _same(fn(lambda t, x: x.add_(x)))[0] == "ok"
    assert _same(fn(lambda t, x: t.add(x, x, out=x)))[0] == "ok"
    assert _same(fn(lambda t, x: x[:].mul_(x[:])))[0] == "ok"
    assert _same(fn(lambda t, x: t.exp(x[::2], out=x[1::2])))[0] == "ok"  # TooHard


def test_expanded_writes_that_torch_allows_warn_as_torch_does():
    def masked(t):
        y = t.zeros(1)
        y.expand(4)[t.tensor([True, False, True, False])] = 2.0
        return y

    def indexed(t):
        y = t.zeros(1)
        y.expand(4).index_put_((t.tensor([0, 1]),), t.ones(2), accumulate=True)
        return y

    assert _same(masked)[0] == "ok"
    assert len(_same(masked)) == 4  # index_put_'s warning, then masked_fill_'s
    assert _same(indexed)[0] == "ok"
    assert _same(lambda t: t.zeros(1).expand(4).fill_(3))[0] == "ok"


def test_warnings_point_at_the_callers_line():
    for lib in (torch, ember):
        y = lib.zeros(1).expand(4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y.masked_fill_(lib.tensor([True, False, True, False]), 1.0)
        assert [w.filename for w in caught] == [__file__]


def test_meta_tensors_are_not_checked():
    x = ember.empty(6, device="meta")
    x[1:].add_(x[:-1])
    ember.exp(x[:-1], out=x[1:])
    x[:1].expand(3).add_(1)
