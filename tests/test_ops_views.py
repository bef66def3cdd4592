"""View and shape operators against PyTorch 2.13: geometry, aliasing, versions, meta, errors.

Every case runs the same function on an ember tensor and a torch tensor built
with the same (often non-contiguous) geometry, then compares sizes, strides,
storage offsets, contiguity, values, whether the result aliases the input
(a write through it shows in the base), `_base`, and the error type and text.
"""

import warnings

import numpy as np
import pytest
from autograd_support import same_outcome as autograd_same_outcome
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import torch

import ember
from ember._tensor import tensor_from_numpy
from ember.aten.native import at

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def _pair(array, device="cpu"):
    array = np.asarray(array)
    source = torch.from_numpy(np.array(array, order="C", copy=True))
    theirs = torch.empty(array.shape, dtype=source.dtype, device=device)
    if device == "cpu":
        theirs.copy_(source)
    return tensor_from_numpy(array, device=device), theirs


def _strided_pair(shape, perm, steps, offset=0, device="cpu"):
    """A (possibly non-contiguous) view of a bigger arange, the same in both libraries."""
    full = [size * step for size, step in zip(shape, steps)]
    numel = offset + int(np.prod([max(f, 1) for f in full])) + 1
    base_e, base_t = _pair(np.arange(numel, dtype=np.float32), device)
    strides = [0] * len(shape)
    step = 1
    for d in reversed(perm):
        strides[d] = step * steps[d]
        step *= max(full[d], 1)
    return (
        base_e.as_strided(list(shape), strides, offset),
        base_t.as_strided(list(shape), strides, offset),
        base_e,
        base_t,
    )


@st.composite
def inputs(draw, max_dims=4):
    shape = draw(st.lists(st.integers(0, 4), min_size=0, max_size=max_dims))
    perm = draw(st.permutations(range(len(shape))))
    steps = draw(st.lists(st.integers(1, 2), min_size=len(shape), max_size=len(shape)))
    offset = draw(st.integers(0, 2))
    return shape, list(perm), steps, offset


def _outcome(fn, lib, x):
    try:
        return fn(lib, x), None
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, error


def _as_list(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _check_geometry(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert tuple(ours.stride()) == tuple(theirs.stride())
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")


def compare(fn, x_e, x_t, base_e=None, base_t=None, check_base=True, check_values=True):
    """fn(lib, x) on both sides: same errors, or same geometry, values and aliasing."""
    ours, our_error = _outcome(fn, ember, x_e)
    theirs, their_error = _outcome(fn, torch, x_t)
    if their_error is not None or our_error is not None:
        assert type(our_error) is type(their_error), (our_error, their_error)
        assert str(our_error) == str(their_error).split("\nException raised from")[0]
        return None
    assert isinstance(ours, (list, tuple)) == isinstance(theirs, (list, tuple))
    ours, theirs = _as_list(ours), _as_list(theirs)
    assert len(ours) == len(theirs)
    root_e = x_e if x_e._base is None else x_e._base
    for o, t in zip(ours, theirs):
        _check_geometry(o, t)
        if check_base:
            root_t = x_t if x_t._base is None else x_t._base
            assert (o._base is root_e) == (t._base is root_t)
        if o.device.type == "meta" or not check_values:
            continue
        np.testing.assert_array_equal(o.numpy(), t.numpy())
        assert (o.untyped_storage() is x_e.untyped_storage()) == (
            t.untyped_storage().data_ptr() == x_t.untyped_storage().data_ptr()
        )
    if base_e is not None and x_e.device.type == "cpu":
        for o, t in zip(ours, theirs):  # a write through each result shows in the base
            if o.numel():
                o.ndarray()[...] = -1
                t.numpy()[...] = -1
        np.testing.assert_array_equal(base_e.numpy(), base_t.numpy())
    return ours


# -- property tests over random layouts -------------------------------------------------


def _shapes_for(numel, draw):
    factors = [f for f in range(1, numel + 1) if numel % f == 0] if numel else [0, 1, 2]
    shape = draw(st.lists(st.sampled_from(factors or [1]), max_size=3))
    if draw(st.booleans()):
        shape.insert(draw(st.integers(0, len(shape))), -1)
    return shape


@SETTINGS
@given(inputs(), st.data())
def test_view_and_reshape(spec, data):
    x_e, x_t, b_e, b_t = _strided_pair(*spec)
    shape = _shapes_for(x_t.numel(), data.draw)
    compare(lambda lib, x: x.view(shape), x_e, x_t, b_e, b_t)
    compare(lambda lib, x: x.reshape(shape), x_e, x_t, b_e, b_t)
    compare(lambda lib, x: x.view(x.shape).flatten(), x_e, x_t)

    def unsafe_view(lib, x):
        op = at._unsafe_view if lib is ember else torch.ops.aten._unsafe_view
        return op(x, shape)

    compare(unsafe_view, x_e, x_t)


@SETTINGS
@given(inputs(), st.data())
def test_restriding_views(spec, data):
    x_e, x_t, b_e, b_t = _strided_pair(*spec)
    ndim = x_t.dim()
    dim = data.draw(st.integers(-ndim - 1, ndim))
    dim2 = data.draw(st.integers(-ndim - 1, ndim))
    perm = data.draw(st.permutations(range(ndim)))
    index = data.draw(st.integers(-5, 5))

    def check(fn):
        compare(fn, x_e, x_t, b_e, b_t)

    check(lambda lib, x: x.transpose(dim, dim2))
    check(lambda lib, x: x.t())
    check(lambda lib, x: x.permute(*perm))
    check(lambda lib, x: x.squeeze())
    check(lambda lib, x: x.squeeze(dim))
    check(lambda lib, x: x.squeeze((dim, dim2)))
    check(lambda lib, x: x.unsqueeze(dim))
    check(lambda lib, x: x.select(dim, index))
    check(lambda lib, x: x.diagonal(index, dim, dim2))
    check(lambda lib, x: x.unbind(dim))
    check(lambda lib, x: x.movedim(dim, dim2))
    check(lambda lib, x: x.movedim((dim, dim2), (dim2, dim)))
    check(lambda lib, x: x.flatten(dim, dim2))
    check(lambda lib, x: x.alias() if lib is ember else torch.ops.aten.alias(x))
    # detach is a non-differentiable view: PyTorch leaves its _base unset.
    compare(lambda lib, x: x.detach(), x_e, x_t, b_e, b_t, check_base=False)


@SETTINGS
@given(inputs(), st.data())
def test_slicing_views(spec, data):
    x_e, x_t, b_e, b_t = _strided_pair(*spec)
    ndim = x_t.dim()
    dim = data.draw(st.integers(-ndim - 1, ndim))
    start = data.draw(st.one_of(st.none(), st.integers(-6, 6)))
    end = data.draw(st.one_of(st.none(), st.integers(-6, 6)))
    step = data.draw(st.integers(-1, 3))
    length = data.draw(st.integers(-1, 4))
    size = data.draw(st.integers(-1, 3))
    sizes = data.draw(st.lists(st.integers(-1, 3), max_size=4))

    def sliced(lib, x):
        op = at.slice_Tensor if lib is ember else torch.ops.aten.slice.Tensor
        return op(x, dim, start, end, step)

    def check(fn):
        compare(fn, x_e, x_t, b_e, b_t)

    check(sliced)
    check(lambda lib, x: x.narrow(dim, 0 if start is None else start, length))
    check(lambda lib, x: x.split(size, dim))
    check(lambda lib, x: x.split(sizes, dim))
    check(lambda lib, x: x.chunk(size, dim))
    check(lambda lib, x: x.unflatten(dim, sizes))


@SETTINGS
@given(inputs(max_dims=3), st.data())
def test_expand(spec, data):
    x_e, x_t, b_e, b_t = _strided_pair(*spec)
    target = [data.draw(st.sampled_from([-1, 1, s, 3])) for s in x_t.shape]
    leading = data.draw(st.lists(st.integers(-1 if x_t.dim() else 0, 3), max_size=2))
    compare(lambda lib, x: x.expand(*leading, *target), x_e, x_t, b_e, b_t)
    other_e, other_t = _pair(np.zeros([abs(s) for s in leading] + list(x_t.shape)))
    compare(lambda lib, x: x.expand_as(other_e if lib is ember else other_t), x_e, x_t)


@SETTINGS
@given(inputs(), st.data())
def test_meta_geometry_matches(spec, data):
    shape, perm, steps, offset = spec
    x_e, x_t, _, _ = _strided_pair(shape, perm, steps, offset, device="meta")
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim - 1, ndim))
    compare(lambda lib, x: x.transpose(dim, -1), x_e, x_t)
    compare(lambda lib, x: x.unsqueeze(dim).squeeze(), x_e, x_t)
    compare(lambda lib, x: x.reshape(-1), x_e, x_t)
    compare(lambda lib, x: x.view(-1), x_e, x_t)
    compare(lambda lib, x: x.select(dim, 0), x_e, x_t)


@SETTINGS
@given(inputs(), st.data())
def test_unfold_swapaxes_and_transposes(spec, data):
    x_e, x_t, b_e, b_t = _strided_pair(*spec)
    ndim = x_t.dim()
    dim = data.draw(st.integers(-ndim - 1, ndim))
    size = data.draw(st.integers(-1, 4))
    step = data.draw(st.integers(0, 3))
    compare(lambda lib, x: x.unfold(dim, size, step), x_e, x_t, b_e, b_t)
    compare(lambda lib, x: x.swapaxes(dim, -1), x_e, x_t, b_e, b_t)
    compare(lambda lib, x: x.swapdims(0, dim), x_e, x_t, b_e, b_t)


@SETTINGS
@given(inputs(), st.sampled_from(["int8", "int16", "int32", "float64", "bool", "complex64"]))
def test_view_dtype(spec, dtype_name):
    x_e, x_t, b_e, b_t = _strided_pair(*spec)
    compare(lambda lib, x: x.view(getattr(lib, dtype_name)), x_e, x_t, b_e, b_t, check_base=False)


def test_numpy_T_and_mT():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for shape in [(), (3,), (2, 3), (2, 3, 4)]:
            x_e, x_t = _pair(np.zeros(shape, np.float32))
            compare(lambda lib, x: x.T, x_e, x_t)
            compare(lambda lib, x: x.mT, x_e, x_t)


# -- fixed cases and messages ------------------------------------------------------------


def _x():
    return _pair(np.arange(24.0, dtype=np.float32).reshape(2, 3, 4))


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x: x.view(5, 5),
        lambda lib, x: x.view(-1, -1),
        lambda lib, x: x.view(-2, 12),
        lambda lib, x: x.transpose(0, 1).view(24),
        lambda lib, x: x.view(0, -1),
        lambda lib, x: x.new_empty((0, 3)).view(-1, 0) if lib is torch else _empty03().view(-1, 0),
        lambda lib, x: x.t(),
        lambda lib, x: x.permute(0, 1),
        lambda lib, x: x.permute(0, 1, 1),
        lambda lib, x: x.expand(2, 2),
        lambda lib, x: x.expand(3, 3, 4),
        lambda lib, x: x.expand(-1, 2, 3, 4),
        lambda lib, x: x.narrow(0, 1, 2),
        lambda lib, x: x.narrow(0, -3, 1),
        lambda lib, x: x.flatten(2, 0),
        lambda lib, x: x.unflatten(1, (2, 2)),
        lambda lib, x: x.unflatten(1, ()),
        lambda lib, x: x.as_strided((3,), (-1,)),
        lambda lib, x: x.as_strided((30,), (1,)),
        lambda lib, x: x.as_strided((3,), (1,), -1),
        lambda lib, x: x.as_strided((3,), (1, 2)),
        lambda lib, x: x.diagonal(0, 0, 0),
        lambda lib, x: x.movedim((0, 1), (1,)),
        lambda lib, x: x.movedim((0, 0), (1, 2)),
        lambda lib, x: x.split(0),
        lambda lib, x: x.split(-1),
        lambda lib, x: x.split([1, 1], -1),
        lambda lib, x: x.chunk(0),
        lambda lib, x: x[0, 0, 0].select(0, 0),
        lambda lib, x: x[0, 0, 0].t(),
        lambda lib, x: x[0, 0, 0].unbind(),
        lambda lib, x: x[0, 0, 0].narrow(0, 0, 1),
        lambda lib, x: x[0, 0, 0].expand(3),
        lambda lib, x: x[0, 0, 0].split(1),
        lambda lib, x: x.int().expand(1) if lib is torch else _int_x().expand(1),
    ],
)
def test_errors_and_edge_cases_match(fn):
    x_e, x_t = _x()
    compare(fn, x_e, x_t)


def _empty03():
    return tensor_from_numpy(np.zeros((0, 3), dtype=np.float32))


def _int_x():
    return tensor_from_numpy(np.zeros((2, 3, 4), dtype=np.int32))


def test_reshape_of_non_viewable_copies():
    x_e, x_t = _x()
    ours = compare(lambda lib, x: x.transpose(0, 1).reshape(6, 4), x_e, x_t)
    assert ours[0]._base is None
    assert ours[0].untyped_storage() is not x_e.untyped_storage()


def test_views_share_the_version_counter():
    x_e, _ = _x()
    for view in (x_e.view(6, 4), x_e.transpose(0, 1), x_e[0], x_e.expand(2, 2, 3, 4)):
        assert view.version_counter() is x_e.version_counter()
    x_e.version_counter().bump()
    assert x_e.view(-1)._version == x_e._version == 1


def test_resize_grows_and_keeps_values():
    for sizes in [(30,), (3, 2), (2, 3, 4), (0,), (5, 5)]:
        x_e, x_t = _x()
        compare(lambda lib, x, s=sizes: x.resize_(*s), x_e, x_t, check_values=False)
        if 0 not in sizes:
            count = min(24, int(np.prod(sizes)))
            np.testing.assert_array_equal(
                x_e.numpy().reshape(-1)[:count], x_t.numpy().reshape(-1)[:count]
            )
    t_e, t_t = _x()
    compare(lambda lib, x: x[0].t().resize_(4, 3), t_e, t_t, check_values=False)
    m_e = tensor_from_numpy(np.zeros(2, np.float32), device="meta")
    assert m_e.resize_(3, 4).stride() == (4, 1)


def test_split_and_chunk_of_empty_dims():
    x_e, x_t = _pair(np.zeros((0, 3), np.float32))
    compare(lambda lib, x: x.chunk(3), x_e, x_t)
    compare(lambda lib, x: x.split(0), x_e, x_t)
    compare(lambda lib, x: x.split([0, 0]), x_e, x_t)


# -- the nested operator calls, as torch's profiler records them -----------------------------


def _torch_calls(fn):
    from torch.profiler import profile

    with profile() as prof:
        fn()
    calls = []
    for event in prof.events():
        if not event.name.startswith("aten::"):
            continue
        depth, parent = 0, event.cpu_parent
        while parent is not None:
            depth, parent = depth + 1, parent.cpu_parent
        calls.append((depth, event.name))
    return calls


def _ember_calls(fn):
    from ember._dispatch import trace

    events = []
    remove = trace.add_listener(lambda label, op, bits, depth: events.append((label, op, depth)))
    try:
        fn()
    finally:
        remove()
    calls, stack = [], []  # stack of (dispatch depth, is a [call])
    for label, op, depth in events:
        while stack and stack[-1][0] >= depth:
            stack.pop()
        is_call = label == "[call]"
        if is_call:
            calls.append((sum(1 for _, c in stack if c), op.split(".")[0]))
        stack.append((depth, is_call))
    return calls


@pytest.mark.parametrize(
    "expr",
    [
        "x.transpose(0, 1)",
        "x.transpose(1, 1)",
        "x[0].t()",
        "x.permute(2, 0, 1)",
        "x.select(1, -1)",
        "x.unsqueeze(0)",
        "x.squeeze()",
        "x.squeeze(0)",
        "x.squeeze((0, 1))",
        "x.expand(2, 2, 3, 4)",
        "x.expand_as(x)",
        "x.diagonal()",
        "x.unbind(1)",
        "x.split(2, 1)",
        "x.split_with_sizes([1, 2], 1)",
        "x.chunk(2, 1)",
        "x.view(6, 4)",
        "x.reshape(6, 4)",
        "x.flatten()",
        "x.flatten(1)",
        "x.flatten(0, 0)",
        "x.unflatten(1, (3, 1))",
        "x.narrow(1, 0, 2)",
        "x.movedim(0, 1)",
        "x.movedim((0, 1), (1, 0))",
        "x.view_as(x)",
        "x.detach()",
        "x.as_strided((2,), (1,))",
        "x.unfold(1, 2, 1)",
        "x.swapaxes(0, 1)",
    ],
)
def test_nested_calls_match_torch(expr):
    x_e, x_t = _x()
    assert _ember_calls(lambda: eval(expr, {"x": x_e})) == _torch_calls(
        lambda: eval(expr, {"x": x_t})
    )


@pytest.mark.parametrize(
    "expr",
    [
        "x.unsqueeze_(1)",
        "x.unsqueeze_(-1)",
        "x.unsqueeze_(5)",
        "x.squeeze_()",
        "x.squeeze_(1)",
        "x.squeeze_(0)",
        "x.squeeze_((1, 3))",
        "x.transpose_(0, 2)",
        "x.transpose_(1, 1)",
        "x.t_()",
        "x[0, :, 0].t_()",
        "x.as_strided_((2, 3), (1, 2))",
        "x.as_strided_((2, 3), (1, 2), 4)",
        "x.as_strided_((30,), (1,))",
    ],
)
def test_inplace_views_match_torch(expr):
    x_e, x_t = _pair(np.arange(12, dtype=np.float32).reshape(2, 3, 1, 2))
    versions = x_e._version, x_t._version
    ours, theirs = (
        _outcome(lambda lib, x: eval(expr), ember, x_e),
        _outcome(lambda lib, x: eval(expr), torch, x_t),
    )
    if theirs[1] is not None or ours[1] is not None:
        assert type(ours[1]) is type(theirs[1]) and str(ours[1]) == str(theirs[1])
        return
    _check_geometry(x_e, x_t)
    assert x_e._version - versions[0] == x_t._version - versions[1]
    np.testing.assert_array_equal(x_e.numpy(), x_t.numpy())
    fresh_e, fresh_t = _pair(np.zeros((2, 3, 1, 2), np.float32))
    assert _ember_calls(lambda: eval(expr, {"x": fresh_e})) == _torch_calls(
        lambda: eval(expr, {"x": fresh_t})
    )


_SPLIT_CASES = {
    "method_str": lambda t: t.arange(6.0).reshape(2, 3).split("a"),
    "method_float": lambda t: t.arange(6.0).reshape(2, 3).split(2.5),
    "method_0d_str": lambda t: t.tensor(1.0).split("a"),
    "method_int": lambda t: t.arange(6.0).split(2),
    "method_list": lambda t: t.arange(6.0).split([2, 4]),
    "method_tuple_dim": lambda t: t.arange(6.0).split((1, 5), 0),
    "method_int_tensor": lambda t: t.arange(6.0).split(t.tensor(3)),
    "method_tensor_of_two": lambda t: t.arange(6.0).split(t.tensor([1, 2])),
    "method_float_tensor": lambda t: t.arange(6.0).split(t.tensor(2.5)),
    "method_bool": lambda t: t.arange(6.0).split(True),
    "method_none": lambda t: t.arange(6.0).split(None),
    "method_negative": lambda t: t.arange(6.0).split(-1),
    "method_too_big": lambda t: t.arange(6.0).split([7]),
    "method_three": lambda t: t.arange(6.0).split(2, 0, 1),
    "method_dim_str": lambda t: t.arange(6.0).split(2, dim="a"),
    "function_int": lambda t: t.split(t.arange(6.0), 2),
    "function_bad_list": lambda t: t.split(t.arange(6.0), [1, "a"]),
    "function_float": lambda t: t.split(t.arange(6.0), 2.5),
    "function_keywords": lambda t: t.split(t.arange(6.0), split_size_or_sections=3, dim=0),
    "unbind_0d_far": lambda t: t.tensor(1.0).unbind(5),
    "unbind_0d_negative": lambda t: t.tensor(1.0).unbind(-5),
    "unbind_0d": lambda t: t.tensor(1.0).unbind(0),
    "unbind_function_0d": lambda t: t.unbind(t.tensor(1.0), 1),
    "unbind_out_of_range": lambda t: t.ones(2, 3).unbind(2),
}


@pytest.mark.parametrize("name", sorted(_SPLIT_CASES))
def test_split_and_unbind_arguments_as_torch(name):
    """Tensor.split dispatches on its sizes' type as torch/_tensor.py does (a str or float
    goes to split_with_sizes, whose parser names it); unbind wraps the dim first."""
    autograd_same_outcome(_SPLIT_CASES[name])
