"""Resizing out= arguments: when PyTorch resizes silently, warns, or refuses.

Differential tests against PyTorch 2.13 (Note [Resizing out= arguments] in
aten/native/resize.py): for each family of out= kernels (TensorIterator ops,
reductions, cat, matrix products, index_select, gather, scatter, cumsum,
sort/topk, the hand-written pointwise kernels) the outcome, the warnings (type,
text and the line they are attributed to), and the out tensor's shape,
strides, storage offset and values, with the views of its old memory.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from oracle import torch

import ember


def _norm(t, out):
    # torch.norm is Python code in PyTorch (torch/functional.py), where its warning points
    if t is torch:
        return torch._VF.norm(x23(t), 2, [0], keepdim=False, out=out)
    return t.norm(x23(t), 2, 0, out=out)


def _outcome(lib, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(lib)
        except Exception as exc:  # noqa: BLE001 (compared with torch's)
            result = (type(exc).__name__, str(exc))
    messages = [(w.category.__name__, str(w.message), w.filename) for w in caught]
    return result, messages


def _describe(t):
    """What an out tensor looks like afterwards."""
    return (
        tuple(t.shape),
        tuple(t.stride()),
        t.storage_offset(),
        str(t.dtype).rpartition(".")[2],
        np.asarray(t.numpy()).tolist(),
    )


def same(fn):
    """fn(lib) returns a tuple of tensors to describe; both libraries must agree."""

    def run(lib):
        return tuple(_describe(t) for t in fn(lib))

    expected = _outcome(torch, run)
    assert _outcome(ember, run) == expected
    return expected


RESIZED = (
    "An output with one or more elements was resized since it had shape {old}, which does not "
    "match the required output shape {new}. This behavior is deprecated, and in a future "
    "PyTorch release outputs will not be resized unless they have zero elements. You can "
    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0). (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)"
)


def x23(t):
    return t.arange(6.0, dtype=t.float64).view(2, 3)


# Each family: fn(lib, out) computing into `out` (the result's shape is never [5]).
FAMILIES = {
    "add": lambda t, o: t.add(x23(t), 1, out=o),
    "add_transposed": lambda t, o: t.add(x23(t).t(), 1, out=o),  # strides from the meta function
    "mul_broadcast": lambda t, o: t.mul(x23(t), t.ones(3, dtype=t.float64), out=o),
    "exp": lambda t, o: t.exp(x23(t), out=o),
    "clamp": lambda t, o: t.clamp(x23(t), min=1, out=o),
    "pow_scalar": lambda t, o: t.pow(2, x23(t), out=o),
    "eq": lambda t, o: t.eq(x23(t), 1, out=o),
    "abs": lambda t, o: t.abs(x23(t), out=o),
    "logical_or": lambda t, o: t.logical_or(x23(t), t.zeros(3), out=o),
    "where": lambda t, o: t.where(x23(t) > 2, x23(t), t.zeros(3, dtype=t.float64), out=o),
    "floor_divide": lambda t, o: t.floor_divide(x23(t), 2, out=o),
    "sum": lambda t, o: t.sum(x23(t), 0, out=o),
    "mean": lambda t, o: t.mean(x23(t), 1, out=o),
    "amax": lambda t, o: t.amax(x23(t), 0, out=o),
    "prod": lambda t, o: t.prod(x23(t), 1, out=o),
    "var": lambda t, o: t.var(x23(t), 0, out=o),
    "std": lambda t, o: t.std(x23(t), 1, out=o),
    "norm": _norm,
    "cumsum": lambda t, o: t.cumsum(x23(t), 1, out=o),
    "cat": lambda t, o: t.cat([x23(t), x23(t)], out=o),
    "mm": lambda t, o: t.mm(x23(t), x23(t).t(), out=o),
    "addmm": lambda t, o: t.addmm(t.ones(2, dtype=t.float64), x23(t), x23(t).t(), out=o),
    "bmm": lambda t, o: t.bmm(x23(t)[None], x23(t).t()[None], out=o),
    "index_select": lambda t, o: t.index_select(x23(t), 1, t.tensor([2, 0]), out=o),
    "gather": lambda t, o: t.gather(x23(t), 1, t.tensor([[2], [0]]), out=o),
    "scatter": lambda t, o: t.scatter(x23(t), 1, t.tensor([[2], [0]]), 7.0, out=o),
    "triu": lambda t, o: t.triu(x23(t), out=o),
}


@pytest.mark.parametrize("family", FAMILIES, ids=str)
@pytest.mark.parametrize("size", [0, 5], ids=["empty", "non-empty"])
def test_out_is_resized_as_torch_resizes_it(family, size):
    fn = FAMILIES[family]

    def run(t):
        out = t.zeros(size, dtype=t.float64) if family != "eq" else t.zeros(size, dtype=t.bool)
        fn(t, out)
        return (out,)

    _, messages = same(run)
    assert bool(messages) == (size != 0)  # silently when empty, else the deprecation warning
    assert all(category == "UserWarning" for category, _, _ in messages)
    assert all(filename == __file__ for _, _, filename in messages)


def test_the_resize_warning_text():
    def run(t):
        out = t.empty(5)
        t.add(t.ones(2, 3), 1, out=out)
        return (out,)

    _, messages = same(run)
    assert messages == [("UserWarning", RESIZED.format(old="[5]", new="[2, 3]"), __file__)]


def test_multiple_outputs_are_resized_each():
    def sort(t):
        values, indices = t.empty(5, dtype=t.float64), t.empty(0, dtype=t.int64)
        t.sort(t.tensor([3.0, 1.0, 2.0], dtype=t.float64), out=(values, indices))
        return values, indices

    def max_dim(t):
        values, indices = t.empty(5, dtype=t.float64), t.empty(5, dtype=t.int64)
        t.max(x23(t), 1, out=(values, indices))
        return values, indices

    def topk(t):
        values, indices = t.empty(0, dtype=t.float64), t.empty(5, dtype=t.int64)
        t.topk(t.tensor([3.0, 1.0, 2.0], dtype=t.float64), 2, out=(values, indices))
        return values, indices

    assert len(same(sort)[1]) == 1
    assert len(same(max_dim)[1]) == 2
    assert len(same(topk)[1]) == 1


def test_resizing_keeps_the_storage_and_its_offset():
    def shrink(t):
        buf = t.zeros(10, dtype=t.float64)
        out = buf[2:8]
        t.add(t.ones(2, dtype=t.float64), 1, out=out)  # [6] -> [2]: the same memory
        return buf, out

    def grow(t):
        buf = t.zeros(3, dtype=t.float64)
        out = buf[1:]
        t.add(t.ones(4, dtype=t.float64), 1, out=out)  # [2] -> [4]: the storage grows
        return (out,)

    def restrided(t):
        out = t.zeros(8, dtype=t.float64)[3:3]
        t.add(x23(t).t(), 1, out=out)  # empty: resized silently to the meta function's strides
        return (out,)

    same(shrink)
    same(grow)
    same(restrided)


# -- an out= tensor that is also an input --------------------------------------------------


READ_WRITE = {
    # TensorIterator never resizes a read-write output
    "add": lambda t, b: t.add(t.ones(2, 3), b, out=b),
    "add_self": lambda t, b: t.add(b, t.ones(2, 3), out=b),
    "sub": lambda t, b: t.sub(t.ones(2, 3), b, out=b),
    "mul_inplace_twin": lambda t, b: t.mul(b, t.ones(2, 3), out=b),
    "eq": lambda t, b: t.eq(t.ones(2, 3), b, out=b),
    "clamp_min": lambda t, b: t.clamp(t.ones(2, 3), min=b, out=b),
    "logical_and": lambda t, b: t.logical_and(t.ones(2, 3), b, out=b),
    "where": lambda t, b: t.where(t.ones(2, 3) > 0, t.ones(2, 3), b, out=b),
    "floor_divide": lambda t, b: t.floor_divide(t.ones(2, 3), b, out=b),
    "threshold_backward": lambda t, b: t.ops.aten.threshold_backward.grad_input(
        t.ones(2, 3), b, 0, grad_input=b
    ),
    "mse_loss_none": lambda t, b: t.ops.aten.mse_loss.out(b, t.ones(2, 3), 0, out=b),
    # gathering kernels refuse any overlap of the result with what they read
    "cat": lambda t, b: t.cat([b, b], out=b),
    "index_select": lambda t, b: t.index_select(b, 0, t.tensor([0, 1, 0, 2]), out=b),
    "gather": lambda t, b: t.gather(b, 0, t.tensor([0, 1, 0, 2]), out=b),
    "scatter_src": lambda t, b: t.scatter(t.ones(5), 0, t.tensor([0, 1]), b, out=b),
    "index": lambda t, b: t.ops.aten.index.Tensor_out(b, [t.tensor([0, 1, 0, 2])], out=b),
}


@pytest.mark.parametrize("case", READ_WRITE, ids=str)
def test_an_input_given_as_out_is_refused_as_torch_refuses_it(case):
    fn = READ_WRITE[case]

    def run(t):
        b = t.ones(3)
        fn(t, b)
        return (b,)

    result, _ = same(run)
    assert result[0] == "RuntimeError"


def test_read_write_message():
    def run(t):
        b = t.ones(3)
        t.add(t.ones(2, 3), b, out=b)
        return (b,)

    result, messages = same(run)
    assert result == (
        "RuntimeError",
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
    )
    assert messages == []


# PyTorch resizes these inputs before reading them (with its warning) and computes from the
# resized memory; ember cannot reproduce that, so it refuses (Note [Resizing out= arguments]).
RESIZED_INPUTS = {
    "sum": lambda t, x: t.sum(x, 0, out=x),
    "mean": lambda t, x: t.mean(x, 0, out=x),
    "amax": lambda t, x: t.amax(x, 1, out=x),  # PyTorch then fails to find dim 1
    "var": lambda t, x: t.var(x, 0, out=x),
    "std": lambda t, x: t.std(x, 0, out=x),
    "max_dim": lambda t, x: t.max(x, 0, out=(x, t.empty(0, dtype=t.int64))),
    "mm": lambda t, x: t.mm(x, t.ones(3, 2), out=x),
    "addmm_bias": lambda t, x: (lambda b: t.addmm(b, t.ones(2, 3), t.ones(3, 2), out=b))(x[0]),
}


@pytest.mark.parametrize("case", RESIZED_INPUTS, ids=str)
def test_an_input_that_would_be_resized_is_refused(case):
    fn = RESIZED_INPUTS[case]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(torch, torch.arange(6.0).view(2, 3))  # PyTorch: resized, then read
        except IndexError:
            pass
    assert any("was resized" in str(w.message) for w in caught)
    x = ember.arange(6.0).view(2, 3)
    before = (tuple(x.shape), x.numpy().tolist())
    with pytest.raises(RuntimeError) as info:
        fn(ember, x)
    assert str(info.value).startswith(
        "unsupported operation: the out= tensor is also an input of the operation and would be "
        "resized from shape ["
    )
    assert (tuple(x.shape), x.numpy().tolist()) == before  # nothing changed


def test_a_view_of_an_input_given_as_out_is_resized_in_its_memory():
    def run(t):
        b = t.ones(6)
        out = b[:3]  # [3] -> [2, 3]: b's storage holds it, and b sees the result
        t.mul(t.ones(2, 3), b[:3], out=out)
        return b, out

    same(run)


ALL_ANY = {
    "all_dim_float": lambda t, x: t.all(x, 0, out=t.empty(3)),
    "any_dim_float": lambda t, x: t.any(x, 0, out=t.empty(3)),
    "all_float": lambda t, x: t.all(x, out=t.empty(())),
    "any_dims_long": lambda t, x: t.any(x, (0,), out=t.empty(3, dtype=t.int64)),
    "all_uint8": lambda t, x: t.all(x, 0, out=t.empty(3, dtype=t.uint8)),
    "any_uint8_input_bool_out": lambda t, x: t.any(x.byte(), 0, out=t.empty(3, dtype=t.bool)),
}


@pytest.mark.parametrize("case", ALL_ANY, ids=str)
def test_all_any_results_are_bool_or_uint8(case):
    fn = ALL_ANY[case]
    same(lambda t: (fn(t, t.tensor([[1.0, 0.0, 2.0], [3.0, 4.0, 5.0]])),))


def test_meta_outputs_that_are_inputs_are_resized():
    def run(t):
        b = t.ones(3, device="meta")
        t.floor_divide(t.ones(2, 3, device="meta"), b, out=b)
        x = t.ones(2, 3, device="meta")
        t.var(x, 0, out=x)
        return b.shape, x.shape

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tuple(map(tuple, run(ember))) == tuple(map(tuple, run(torch)))


def test_a_storage_grown_by_a_resize_is_seen_by_every_tensor_on_it():
    """resize_ / an out= resize that grows a shared storage: the other tensors on it read the
    new memory (PyTorch's views share one StorageImpl), not a NumPy view of the old buffer."""

    def program(lib):
        base = lib.arange(6.0)
        view = base[2:4]
        _ = view.tolist(), base.tolist()  # both have looked at the old buffer
        out = base[4:4]
        lib.add(lib.ones(4), 10, out=out)  # grows the storage to 8 elements
        return base.tolist(), view.tolist(), out.tolist()

    assert program(ember) == program(torch)
