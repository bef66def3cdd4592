"""Tensor.__getitem__ / __setitem__ against PyTorch 2.13: results, aliasing, errors and
the aten calls made (the ops a TorchDispatchMode sees in torch, the depth-0 dispatches
in ember; torch's `lift_fresh` calls are left out, ember has no such operator).
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import torch

from ember._dispatch import trace
from ember._tensor import Tensor, tensor_from_numpy
from ember.aten import indexing

indexing.install(Tensor)

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))


def _pair(array, device="cpu"):
    array = np.asarray(array)
    source = torch.from_numpy(np.array(array, order="C", copy=True))
    theirs = torch.empty(array.shape, dtype=source.dtype, device=device)
    if device == "cpu":
        theirs.copy_(source)
    return tensor_from_numpy(array, device=device), theirs


def _x(shape=(2, 3, 4), device="cpu"):
    return _pair(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape), device)


def _torch_ops_mode():
    """A TorchDispatchMode of torch's recording the aten calls (built here: it needs torch)."""

    class TorchOps(torch.utils._python_dispatch.TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = str(func).removesuffix(".default")
            if name != "aten.lift_fresh":
                self.ops.append(name)
            return func(*args, **(kwargs or {}))

    return TorchOps()


def _run_torch(fn):
    mode = _torch_ops_mode()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with mode:
                result = fn()
        except Exception as error:  # noqa: BLE001 (compared with ember's)
            result = error
    return result, mode.ops, [str(w.message).split(" (Triggered internally")[0] for w in caught]


def _run_ember(fn):
    ops = []

    def listen(label, op_name, bits, depth):
        if label == "[call]" and depth == 0:
            ops.append(op_name.replace("::", "."))

    remove = trace.add_listener(listen)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn()
        except Exception as error:  # noqa: BLE001
            result = error
        finally:
            remove()
    return result, ops, [str(w.message) for w in caught]


# index.Tensor (native/indexing.py, not this file's subject) words its size-0 error its own way.
INDEX_SIZE_0 = "index is out of bounds for dimension with size 0"


def _same_error(ours, theirs):
    assert type(ours) is type(theirs), (ours, theirs)
    if str(theirs) != INDEX_SIZE_0:
        assert str(ours) == str(theirs)


def _tensors(value, lib):
    """Index objects holding tensors are built per library (indices must be of its kind)."""
    if isinstance(value, tuple):
        return tuple(_tensors(v, lib) for v in value)
    if isinstance(value, np.ndarray):
        if lib == "torch":
            return torch.from_numpy(value.copy())
        return tensor_from_numpy(value)
    return value


def check_getitem(index, x_e, x_t, check_ops=True):
    ours, our_ops, our_warnings = _run_ember(lambda: x_e[_tensors(index, "ember")])
    theirs, their_ops, their_warnings = _run_torch(lambda: x_t[_tensors(index, "torch")])
    assert our_warnings == their_warnings
    if isinstance(theirs, Exception) or isinstance(ours, Exception):
        _same_error(ours, theirs)
        return
    if check_ops:
        assert our_ops == their_ops
    assert tuple(ours.shape) == tuple(theirs.shape)
    if theirs.numel() or "aten.index.Tensor" not in their_ops:  # index.Tensor's own business
        assert ours.stride() == theirs.stride()
        assert ours.storage_offset() == theirs.storage_offset()
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    assert (ours._base is x_e) == (theirs._base is x_t)
    assert ours is not x_e
    if x_e.device.type == "cpu":
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


# -- __getitem__ -----------------------------------------------------------------------------

GETITEM_CASES = [
    0,
    -1,
    5,
    -3,
    (0, 1),
    slice(None),
    (slice(None), slice(1, None)),
    slice(None, None, 2),
    slice(None, None, 0),
    slice(None, None, -1),
    slice(-100, 100),
    (slice(0, 2), 0),
    None,
    ...,
    (...,),
    (..., 0),
    (1, None, ..., 0),
    (None, 5),
    (0, 0, 0, 0),
    (slice(None), slice(None)),
    [0, 1],
    [[0, 1]],
    [True, False],
    (slice(None), [0, 1]),
    True,
    False,
    (True, 0),
    (0, False),
    ([0, 1], [0, 1]),
    ([0, 1], slice(None), [1, 2]),
    (slice(1, None), np.array([0, 1]), slice(1, None)),
    (slice(None), None, [0, 1]),
    np.array(1),
    np.array(True),
    np.array([True, False]),
    np.arange(12).reshape(3, 4) > 5,
    (0, np.arange(12).reshape(3, 4) > 5),
    np.array([[0, 1], [1, 0]]),
    np.int64(1),
    1.5,
    "x",
    (0, "x"),
    (slice(None), 1.5),
    [0, slice(None)],
    [None, 0],
    (0, [5]),
    ([],),
    (slice(0, 0), [0]),
    (False, [1]),  # the indices broadcast to nothing: the kernel reads (and checks) none
    (slice(0, 0), [7]),
    ([], [7]),
    (True, [1]),
]


@pytest.mark.parametrize("index", GETITEM_CASES, ids=repr)
def test_getitem_matches_torch(index):
    x_e, x_t = _x()
    check_getitem(index, x_e, x_t)


@pytest.mark.parametrize("index", [0, ..., None, (None, 0), slice(0, 1), True, [0], ()])
def test_getitem_of_0_dim_and_empty(index):
    check_getitem(index, *_x(()))
    check_getitem(index, *_x((0, 2)))


@pytest.mark.parametrize("index", [0, (slice(None), 1), (None, ..., 2), slice(1, None, 2)])
def test_getitem_on_meta(index):
    check_getitem(index, *_x((3, 4), "meta"))


def test_getitem_of_a_non_contiguous_view():
    x_e, x_t = _x((4, 6))
    check_getitem((slice(1, None, 2), slice(None, None, 3)), x_e.t(), x_t.t())
    check_getitem((..., 1), x_e.t()[1:], x_t.t()[1:])


def test_basic_index_results_alias_the_input():
    x_e, x_t = _x()
    for index in [0, (slice(None), 1), (..., 2), (None, 1, slice(0, 2))]:
        x_e[index].ndarray()[...] = -1
        x_t[index].numpy()[...] = -1
    np.testing.assert_array_equal(x_e.numpy(), x_t.numpy())
    assert x_e[0].version_counter() is x_e.version_counter()


@st.composite
def index_tuples(draw, shape):
    parts = []
    ellipsis_used = False
    for size in shape:
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "list", "mask", "bool"]))
        if kind == "int":
            parts.append(draw(st.integers(-size - 1, size)))
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-size - 2, size + 2))
            parts.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1, 2, 3]))))
        elif kind == "none":
            parts.append(None)
        elif kind == "ellipsis" and not ellipsis_used:
            ellipsis_used = True
            parts.append(...)
        elif kind == "list" and size:
            parts.append(draw(st.lists(st.integers(-size, size - 1), min_size=1, max_size=3)))
        elif kind == "mask":
            parts.append(np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size))))
        elif kind == "bool":
            parts.append(draw(st.booleans()))
    return tuple(parts[: draw(st.integers(0, len(parts)))])


@SETTINGS
@given(st.lists(st.integers(0, 3), min_size=1, max_size=3), st.data())
def test_random_index_tuples(shape, data):
    index = data.draw(index_tuples(shape))
    x_e, x_t = _x(tuple(shape))
    check_getitem(index, x_e, x_t)
    if len(index) == 1:
        check_getitem(index[0], x_e, x_t)


# -- __setitem__ -----------------------------------------------------------------------------


def check_setitem(index, value, shape=(2, 3, 4), dtype=np.float32):
    x_e, x_t = _pair(np.arange(int(np.prod(shape))).reshape(shape).astype(dtype))

    def run(x, lib):
        x[_tensors(index, lib)] = _tensors(value, lib)

    versions = x_e._version, x_t._version
    ours, our_ops, _ = _run_ember(lambda: run(x_e, "ember"))
    theirs, their_ops, _ = _run_torch(lambda: run(x_t, "torch"))
    if isinstance(theirs, Exception) or isinstance(ours, Exception):
        _same_error(ours, theirs)
        return
    assert our_ops == their_ops
    np.testing.assert_array_equal(x_e.numpy(), x_t.numpy())
    assert x_e._version - versions[0] == x_t._version - versions[1]


SETITEM_CASES = [
    (0, 1),
    (0, np.ones((3, 4), np.float32)),
    (slice(None), 2),
    ((0, 1), 3.5),
    (..., 1),
    (None, 1),
    (True, 1),
    (False, 1),
    (0, np.array(5.0, np.float32)),
    (0, np.ones((1, 1, 4), np.float32)),
    (0, np.ones((1, 3, 4), np.float32)),
    (0, np.ones(4, np.float32)),
    (0, np.ones(3, np.float32)),
    ((..., 0), 7),
    ((0, 0, 0), 9),
    ((0, 0, 0), np.array(9.0, np.float32)),
    ((slice(None), slice(1, None)), np.arange(16, dtype=np.float32).reshape(2, 2, 4)),
    (np.array([0, 1]), 1),
    (np.array([0, 1]), np.ones((3, 4), np.float32)),
    (np.arange(24).reshape(2, 3, 4) > 3, 0),
    (np.array([True, False]), 0),
    (np.array([True, False]), np.ones((1, 1, 4), np.float32)),
    ((slice(None), np.array([0, 1])), 1),
    ((0, np.array([0, 1])), np.ones((1, 2, 4), np.float32)),
    ([0, 1], -1),
    (0, "x"),
    (0, [1]),
    (0, np.float32(1)),
    (5, 1),
    ((0, 0, 0, 0), 1),
    ((slice(0, 0), [7]), 1),  # nothing to write: no bounds check, as PyTorch's index_put_
    (([], [7]), 1),
]


@pytest.mark.parametrize("index, value", SETITEM_CASES, ids=repr)
def test_setitem_matches_torch(index, value):
    check_setitem(index, value)


@pytest.mark.parametrize("value", [300, 1e300, 1 + 2j, 2**70, True, -1])
def test_setitem_value_conversion(value):
    check_setitem(0, value, dtype=np.int8)
    check_setitem(0, value, dtype=np.float32)


def test_setitem_on_a_view_writes_the_base():
    x_e, x_t = _x()
    v_e, v_t = x_e.transpose(0, 2), x_t.transpose(0, 2)
    for index, value in [((1, slice(None)), 5.0), ((..., 1), -2.0)]:
        v_e[index] = value
        v_t[index] = value
    np.testing.assert_array_equal(x_e.numpy(), x_t.numpy())


def test_delitem_is_refused():
    x_e, x_t = _x()

    def delete(x):
        del x[0]

    _same_error(_run_ember(lambda: delete(x_e))[0], _run_torch(lambda: delete(x_t))[0])


def test_gradients_flow_through_indexing_like_torch():
    import ember

    grads = []
    for lib in (ember, torch):
        x = lib.arange(12.0).reshape(3, 4).requires_grad_()
        y = x * 2
        y[0] = 5.0
        y[:, 1] = x[:, 2]
        y[lib.tensor([True, False, True])] *= 3
        picked = y[1:, ::2].sum() + y[[0, 2]].sum() + y[..., None, 3].sum() + y[True][0, 1, 1]
        picked.backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]
