"""__torch_function__ for Tensor's getters: itemsize, nbytes, the kind flags and the others.

PyTorch hands a getter to a TorchFunctionMode or a subclass's handler as
``Tensor.<name>.__get__``; ``func.__self__.__name__`` names the field. Each scenario runs on
ember and on torch and records what the handler saw (the field's name, the types, what the
read returned); the records must agree.
"""

from __future__ import annotations

import pytest
from oracle import torch

import ember

# The getters PyTorch 2.13 routes through __torch_function__ (each one seen by a mode).
GETTERS = [
    "shape", "requires_grad", "grad", "is_leaf", "ndim", "data",
    "T", "mT", "H", "is_sparse", "is_cpu", "itemsize", "nbytes", "grad_fn", "is_quantized",
    "is_meta", "output_nr", "_version", "is_nested", "real", "retains_grad",
]  # fmt: skip


def _field(func) -> str:
    return getattr(getattr(func, "__self__", None), "__name__", "?")


def _mode_records(lib, name):
    seen = []

    class Recording(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((_field(func), func.__name__, [t.__name__ for t in types], kwargs))
            return func(*args, **(kwargs or {}))

    x = lib.ones(2, 2)
    with Recording():
        value = getattr(x, name)
    return seen, repr(value).replace("ember", "torch")


# PyTorch routes these too; ember's kernels read them on the tensors they are given, so
# routing them waits for Note [Field reads a handler does not see] (aten/torch_function.py).
NOT_ROUTED = ["dtype", "device", "layout"]


@pytest.mark.parametrize(
    "name",
    GETTERS
    + [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="not routed"))
        for n in NOT_ROUTED
    ],
)
def test_a_mode_sees_each_getter(name):
    ours, theirs = _mode_records(ember, name), _mode_records(torch, name)
    assert ours[0] == theirs[0]
    assert ours[0], "torch's mode sees the read"
    assert ours[1] == theirs[1]


def _subclass_records(lib):
    seen = []

    class Sub(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(_field(func))
            return super().__torch_function__(func, types, args, kwargs)

    s = lib.ones(3).as_subclass(Sub)
    seen.clear()
    values = [s.is_sparse, s.is_quantized, s.itemsize, s.nbytes, s.is_nested]
    return seen, values


def test_a_subclass_handler_sees_the_kind_flags_and_sizes():
    ours, theirs = _subclass_records(ember), _subclass_records(torch)
    assert ours == theirs
    assert ours[0] == ["is_sparse", "is_quantized", "itemsize", "nbytes", "is_nested"]


def _answers(lib):
    class Lying(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func == lib.Tensor.itemsize.__get__:
                return "an itemsize of the mode's"
            return func(*args, **(kwargs or {}))

    x = lib.ones(2)
    with Lying():
        inside = x.itemsize
    return inside, x.itemsize


def test_the_handlers_answer_is_the_read():
    assert _answers(ember) == _answers(torch) == ("an itemsize of the mode's", 4)


def test_getters_still_read_plain_after_the_mode():
    # The checking wrappers leave ember.Tensor once the mode is gone; reads are the fields.
    ours = _mode_records(ember, "itemsize")
    assert ours[1] == "4"
    ember.ones(1).dim()  # a plain tensor's call finds the wrappers idle and takes them away
    original = ember.Tensor.__dict__["itemsize"]
    assert not hasattr(original.fget, "torch_function_checked")
    assert ember.zeros(2, dtype=ember.float64).itemsize == 8


def test_kind_flags_match_torch():
    for name in ["is_sparse", "is_sparse_csr", "is_quantized", "is_nested", "is_mkldnn"]:
        assert getattr(ember.ones(2), name) is getattr(torch.ones(2), name) is False
