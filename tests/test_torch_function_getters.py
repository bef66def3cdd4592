"""__torch_function__ for Tensor's getters: dtype, device, layout and the other fields.

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
    "dtype", "device", "layout", "shape", "requires_grad", "grad", "is_leaf", "ndim", "data",
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


@pytest.mark.parametrize("name", GETTERS)
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
    values = [repr(s.dtype), repr(s.device), repr(s.layout), s.is_sparse, s.itemsize, s.nbytes]
    return seen, [v.replace("ember", "torch") if isinstance(v, str) else v for v in values]


def test_a_subclass_handler_sees_dtype_device_layout():
    ours, theirs = _subclass_records(ember), _subclass_records(torch)
    assert ours == theirs
    assert ours[0] == ["dtype", "device", "layout", "is_sparse", "itemsize", "nbytes"]


def _answers(lib):
    class Lying(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func == lib.Tensor.dtype.__get__:
                return "a dtype of the mode's"
            return func(*args, **(kwargs or {}))

    x = lib.ones(2)
    with Lying():
        inside = x.dtype
    return inside, repr(x.dtype).replace("ember", "torch")


def test_the_handlers_answer_is_the_read():
    assert _answers(ember) == _answers(torch) == ("a dtype of the mode's", "torch.float32")


def test_getters_still_read_plain_after_the_mode():
    # The checking wrappers leave ember.Tensor once the mode is gone; reads are the fields.
    ours = _mode_records(ember, "dtype")
    assert ours[1] == "torch.float32"
    x = ember.zeros(2, dtype=ember.float64)
    assert x.dtype is ember.float64 and x.device.type == "cpu" and x.layout is ember.strided
    assert type(ember.Tensor.__dict__["dtype"]).__name__ == "member_descriptor"


def test_kind_flags_match_torch():
    for name in ["is_sparse", "is_sparse_csr", "is_quantized", "is_nested", "is_mkldnn"]:
        assert getattr(ember.ones(2), name) is getattr(torch.ones(2), name) is False
