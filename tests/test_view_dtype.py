"""`Tensor.view(dtype)` against PyTorch 2.13: the same bytes read as another dtype.

Sizes, strides and storage offset follow TensorConversions.cpp's view_dtype
(the last dim grows or shrinks by the element-size ratio; its stride must be 1;
size, offset and the other strides must divide by the ratio; a 0-dim tensor
keeps its dtype's size), with PyTorch's messages. The result shares storage
and version counter with its input, so writes go through both ways; it is no
view for autograd (derivatives.yaml: output_differentiability [False]): it
never requires grad, has no `_base`, and may be written in place even when
its input is a leaf that requires grad.
"""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember
from ember.autograd import views as autograd_views
from ember.codegen.autograd_model import load_derivatives

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]  # fmt: skip


def _raw(t) -> np.ndarray:
    """The tensor's elements as raw bytes, row by row (NaN payloads and bool bytes kept)."""
    if isinstance(t, torch.Tensor):
        t = t.detach().contiguous()
        array = t.view(torch.int16).numpy() if t.dtype == torch.bfloat16 else t.numpy()
    else:
        array = t.detach().ndarray()
        if array.dtype == np.dtype(ml_dtypes.bfloat16):
            array = array.view(np.int16)
    return np.ascontiguousarray(array).view(np.uint8).reshape(-1)


def _same(e_fn, t_fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = t_fn()
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        with pytest.raises(type(error)) as info:
            e_fn()
        # ember's names print as `ember.dtype` where torch's print `torch.dtype`
        assert str(info.value).replace("ember.", "torch.") == str(error)
        return None, None
    e = e_fn()
    assert str(e.dtype).rpartition(".")[2] == str(t.dtype).rpartition(".")[2]
    assert tuple(e.shape) == tuple(t.shape)
    assert tuple(e.stride()) == tuple(t.stride())
    assert e.storage_offset() == t.storage_offset()
    assert e.requires_grad == t.requires_grad
    assert (e._base is None) == (t._base is None)
    if t.device.type != "meta":
        np.testing.assert_array_equal(_raw(e), _raw(t))
    return e, t


def _source(lib, dtype: str, data: bytes, shape, view):
    """A tensor of ``dtype`` over ``data``'s bytes, viewed as ``view`` describes."""
    size = getattr(lib, dtype).itemsize
    count = len(data) // size
    flat = np.frombuffer(data[: count * size], dtype=np.uint8).copy()
    base = lib.from_numpy(flat).view(getattr(lib, dtype)) if count else lib.empty(0)
    base = base.to(getattr(lib, dtype))
    numel = int(np.prod(shape))
    base = base[:numel].reshape(shape) if numel <= count else base[:0]
    kind, amount = view
    if kind == "transpose" and base.dim() >= 2:
        return base.transpose(0, 1)
    if kind == "slice_last" and base.dim() >= 1:
        return base[..., amount:]
    if kind == "slice_first" and base.dim() >= 1:
        return base[amount:]
    if kind == "step" and base.dim() >= 1:
        return base[..., ::2]
    if kind == "expand" and base.dim() >= 1:
        return base.unsqueeze(0).expand(2, *base.shape)
    return base


VIEWS = st.sampled_from(
    [("none", 0), ("transpose", 0), ("slice_last", 1), ("slice_last", 2), ("slice_first", 1),
     ("step", 0), ("expand", 0)]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    source=st.sampled_from(DTYPES),
    target=st.sampled_from(DTYPES),
    shape=st.lists(st.integers(0, 4), min_size=0, max_size=3),
    view=VIEWS,
    data=st.binary(min_size=512, max_size=512),
)
def test_view_dtype_matches_torch(source, target, shape, view, data):
    # bool bytes other than 0 and 1 are undefined behaviour in C++ (a copy normalises them)
    if "bool" in (source, target):
        data = bytes(b & 1 for b in data)

    def run(lib):
        return _source(lib, source, data, shape, view).view(getattr(lib, target))

    _same(lambda: run(ember), lambda: run(torch))


@pytest.mark.parametrize("target", DTYPES)
@pytest.mark.parametrize("source", ["float32", "int64", "uint8", "complex64", "bfloat16"])
def test_writes_go_through_both_ways(source, target):
    def run(lib):
        base = lib.arange(32).to(getattr(lib, source)).reshape(2, 16)
        view = base.view(getattr(lib, target))
        before = base._version
        view.zero_()  # through the view into the base
        after_view = base._version - before, view._version == base._version
        base.fill_(3)  # through the base into the view
        return base, view, after_view

    e_base, e_view, e_versions = run(ember)
    t_base, t_view, t_versions = run(torch)
    assert e_versions == t_versions
    np.testing.assert_array_equal(_raw(e_base), _raw(t_base))
    np.testing.assert_array_equal(_raw(e_view), _raw(t_view))
    assert e_view.data_ptr() - e_base.data_ptr() == t_view.data_ptr() - t_base.data_ptr() == 0


EXAMPLES = [
    "lib.ones(2).view(lib.int32)",
    "lib.tensor(1.0).view(lib.int32)",
    "lib.tensor(1.0).view(lib.int16)",
    "lib.tensor(1.0).view(lib.float64)",
    "lib.ones(2, 3)[:, 1:].view(lib.int16)",
    "lib.ones(2, 4)[:, 1:].view(lib.float64)",
    "lib.ones(2, 4)[:, 2:].view(lib.float64)",
    "lib.ones(3, 2).t().view(lib.int16)",
    "lib.ones(3, 2).t().view(lib.int32)",
    "lib.ones(3, 2)[::2].view(lib.float64)",
    "lib.ones(3, 6)[:, 1:5].view(lib.float64)",
    "lib.ones(3, 6, 4)[:, 1:].view(lib.float64)",
    "lib.ones(6, 4)[1:].view(lib.float64)",
    "lib.ones(4, 4)[:, ::2].view(lib.int8)",
    "lib.ones(0, 3).view(lib.int8)",
    "lib.ones(1).view(lib.float64)",
    "lib.ones(2).expand(3, 2).view(lib.int16)",
    "lib.ones(2, 1).expand(2, 4).view(lib.int16)",
    "lib.ones(4, 2, dtype=lib.int16)[:, :1].view(lib.int32)",
    "lib.ones(2, 2, dtype=lib.uint8).view(lib.int16)",
    "lib.tensor([1.5, -2.0]).view(lib.complex64)",
    "lib.tensor([1 + 2j]).view(lib.float64)",
    "lib.tensor([1.0, 2.0], dtype=lib.float16).view(lib.bfloat16)",
    "lib.ones(2).view(dtype=lib.int32)",
    "lib.ones(2).view(lib.int32, 1)",
    "lib.ones(2).view('int32')",
    "lib.ones(2, device='meta').view(lib.int64)",
    "lib.ones(3, device='meta').view(lib.int64)",
]


@pytest.mark.parametrize("call", EXAMPLES)
def test_examples(call):
    _same(lambda: eval(call, {"lib": ember}), lambda: eval(call, {"lib": torch}))


def _autograd_cases(lib):
    leaf = lib.ones(2, requires_grad=True)
    yield "view", leaf.view(lib.int32)
    yield "same dtype", leaf.view(lib.float32)
    yield "float64", leaf.view(lib.float64)
    nonleaf = leaf * 1
    yield "non-leaf", nonleaf.view(lib.int32)
    yield "non-leaf float", nonleaf.view(lib.float32)
    view = lib.ones(2, requires_grad=True).view(lib.int32)
    yield "in place on a leaf's view", view.add_(1)


def test_no_view_for_autograd():
    for (name, e), (_, t) in zip(_autograd_cases(ember), _autograd_cases(torch)):
        assert (e.requires_grad, e.grad_fn, e._base is None) == (
            t.requires_grad,
            t.grad_fn,
            t._base is None,
        ), name


def test_in_place_through_an_integer_view_of_a_graph_tensor():
    def run(lib):
        leaf = lib.ones(2, requires_grad=True)
        a = leaf * 1
        view = a.view(lib.int32)
        view.add_(1)  # changes a's bits; autograd does not see it
        a.sum().backward()
        return leaf.grad, a, a._version

    e_grad, e_a, e_version = run(ember)
    t_grad, t_a, t_version = run(torch)
    np.testing.assert_array_equal(e_grad.numpy(), t_grad.numpy())
    np.testing.assert_array_equal(_raw(e_a), _raw(t_a))
    assert e_version == t_version


def test_backward_through_a_dtype_view_is_refused():
    def run(lib):
        leaf = lib.ones(2, requires_grad=True)
        leaf.view(lib.float32).sum().backward()

    with pytest.raises(RuntimeError) as expected:
        run(torch)
    with pytest.raises(RuntimeError) as got:
        run(ember)
    assert str(got.value) == str(expected.value)


def test_the_non_differentiable_views_agree_with_derivatives_yaml():
    """autograd/views.py names the views that are no autograd views; derivatives.yaml says
    which view operators have no differentiable output."""
    entries = load_derivatives()
    nondiff_views = {
        name
        for name, entry in entries.items()
        if entry.output_differentiability is not None
        and not any(entry.output_differentiability)
        and getattr(ember.ops.aten, name.partition(".")[0])
        .__getattr__(name.partition(".")[2] or "default")
        ._schema.returns[0]
        .alias_info
        is not None
    }
    assert nondiff_views == set(autograd_views._NOT_DIFFERENTIABLE_VIEWS) - {"detach"}
