"""The legacy constructor ``torch.Tensor(...)`` / ``Subclass(...)``, ``torch.layout`` /
``Tensor.layout`` and ``torch.is_inference``, against PyTorch 2.13.

Mirrors legacy_tensor_generic_ctor_new (torch/csrc/utils/tensor_new.cpp): which argument
forms are sizes, which are data, and the errors for the others (type and full text).
"""

from __future__ import annotations

import copy
import pickle
import re

import numpy as np
import pytest
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode as EmberMode

LIBS = {"torch": lambda: torch, "ember": lambda: ember}


def _text(value) -> str:
    return re.sub(r"\btorch\b", "ember", str(value))


def _observe(fn, lib):
    try:
        result = fn(lib)
    except Exception as error:  # noqa: BLE001 (the differential compares the error)
        return (type(error).__name__, _text(error))
    if isinstance(result, lib.Tensor):  # (values unread: a sized tensor is uninitialised)
        return ("ok", type(result).__name__, _text(result.dtype), tuple(result.shape),
                str(result.device), result.requires_grad)  # fmt: skip
    return ("ok", _text(result))


CASES = {
    "empty": lambda t: t.Tensor(),
    "sizes": lambda t: t.Tensor(2, 3),
    "one size": lambda t: t.Tensor(3),
    "Size": lambda t: t.Tensor(t.Size([2, 3])),
    "size keyword": lambda t: t.Tensor(size=(2,)),
    "numpy int size": lambda t: t.Tensor(np.int64(3)),
    "0-dim tensor in sizes": lambda t: t.Tensor(t.tensor(3), 2),
    "negative size": lambda t: t.Tensor(-1),
    "list data": lambda t: t.Tensor([1, 2]).tolist(),
    "tuple data": lambda t: t.Tensor((2, 3)).tolist(),
    "nested data": lambda t: t.Tensor([[1, 2]]),
    "empty list": lambda t: t.Tensor([]),
    "empty tuple": lambda t: t.Tensor(()),
    "data keyword": lambda t: t.Tensor(data=[1]).tolist(),
    "range data": lambda t: t.Tensor(range(3)).tolist(),
    "numpy data": lambda t: t.Tensor(np.ones(2)).tolist(),
    "ragged data": lambda t: t.Tensor([[1], [1, 2]]),
    "str in data": lambda t: t.Tensor([1, "a"]),
    "str data": lambda t: t.Tensor("a"),
    "float": lambda t: t.Tensor(2.5),
    "bool": lambda t: t.Tensor(True),
    "None": lambda t: t.Tensor(None),
    "dict": lambda t: t.Tensor({1: 2}),
    "other tensor": lambda t: t.Tensor(t.ones(2, dtype=t.int64)),
    "other keyword": lambda t: t.Tensor(other=t.ones(1)),
    "other 0-dim": lambda t: t.Tensor(t.tensor(3)),
    "other meta": lambda t: t.Tensor(t.ones(2, device="meta")),
    "other with device": lambda t: t.Tensor(t.ones(2), device="cpu"),
    "two tensors": lambda t: t.Tensor(t.ones(2), t.ones(2)),
    "size then list": lambda t: t.Tensor(2, [3]),
    "size then str": lambda t: t.Tensor(3, "a"),
    "float then int": lambda t: t.Tensor(2.0, 3),
    "dtype keyword": lambda t: t.Tensor(2, dtype=t.float64),
    "unknown keyword": lambda t: t.Tensor(x=1),
    "device cpu": lambda t: t.Tensor(2, 3, device=t.device("cpu")),
    "device keyword only": lambda t: t.Tensor(device="cpu"),
    "data on cpu": lambda t: t.Tensor([1.5, 2], device="cpu").tolist(),
    "device meta": lambda t: t.Tensor(2, device="meta"),
    "data on meta": lambda t: t.Tensor([1, 2], device="meta"),
    "empty on meta": lambda t: t.Tensor(device="meta"),
    "storage": lambda t: t.Tensor(t.ones(2).untyped_storage()).tolist(),
    "layout": lambda t: (
        t.Tensor().layout,
        type(t.strided).__name__,
        t.ones(1).layout is t.strided,
    ),
    "layout pickles": lambda t: pickle.loads(pickle.dumps(t.strided)) is t.strided,
    "layout copies": lambda t: (copy.copy(t.strided), copy.deepcopy(t.strided)) == (t.strided,) * 2,
    "is_inference": lambda t: (t.is_inference(t.ones(1)), t.ones(1).is_inference()),
    "is_inference keyword": lambda t: t.is_inference(input=t.ones(1)),
    "is_inference int": lambda t: t.is_inference(3),
    "is_inference none": lambda t: t.is_inference(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_legacy_constructor_matches_torch(name):
    assert _observe(CASES[name], ember) == _observe(CASES[name], torch)


@pytest.mark.parametrize("lib_name", ["torch", "ember"])
def test_default_dtype_and_inference(lib_name):
    lib = LIBS[lib_name]()
    lib.set_default_dtype(lib.float64)
    try:
        seen = (str(lib.Tensor(2).dtype), str(lib.Tensor([1]).dtype), str(lib.Tensor().dtype))
    finally:
        lib.set_default_dtype(lib.float32)
    with lib.inference_mode():
        seen += (lib.is_inference(lib.ones(1)), lib.Tensor(2).is_inference())
    assert _text(seen) == _text(("torch.float64",) * 3 + (True, True))


@pytest.mark.parametrize("lib_name", ["torch", "ember"])
def test_tensor_of_a_tensor_is_an_alias(lib_name):
    lib = LIBS[lib_name]()
    base = lib.Tensor([1, 2])
    alias = lib.Tensor(base)
    assert alias is not base and alias.data_ptr() == base.data_ptr()
    leaf = lib.ones(2, requires_grad=True)
    assert type(lib.Tensor(leaf).grad_fn).__name__ == "AliasBackward0"


def _subclasses(lib):
    class Dispatching(lib.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    class Plain(lib.Tensor):
        pass

    return Dispatching, Plain


SUBCLASS_CASES = {
    "dispatching size": lambda t, D, P: (type(D(3)).__name__, t._C._dispatch_keys(D(3))),
    "plain data": lambda t, D, P: (type(P([1, 2])).__name__, P([1, 2]).tolist()),
    "plain keys": lambda t, D, P: t._C._dispatch_keys(P(2, 2)),
    "plain bad": lambda t, D, P: P(2.5),
}


@pytest.mark.parametrize("name", sorted(SUBCLASS_CASES))
def test_subclass_constructor_matches_torch(name):
    def run(lib):
        return SUBCLASS_CASES[name](lib, *_subclasses(lib))

    assert _observe(run, ember) == _observe(run, torch)


def test_subclass_constructor_under_a_mode_raises_as_torch():
    """Under a mode the factory's result already has its Python object, so PyTorch cannot
    make it a subclass instance."""

    def run(lib, mode_class):
        dispatching, _ = _subclasses(lib)

        class Passthrough(mode_class):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))

        with Passthrough():
            plain = lib.Tensor(2, 3)
            try:
                dispatching(3)
            except RuntimeError as error:
                return type(plain).__name__, tuple(plain.shape), str(error)
        return None

    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    assert run(ember, EmberMode) == run(torch, TorchMode)


def _views(lib):
    a = lib.ones(2, 3)
    r = lib.ones(2, 3, requires_grad=True)
    cases = {"view": a.view(6), "view rg": r.view(6), "detach": a.detach(), "plain": a}
    cases.update({"transpose": a.t(), "view of view": a.view(6).view(2, 3)})
    cases.update({"unbind": a.unbind(0)[0], "legacy alias": lib.Tensor(a)})
    with lib.no_grad():
        cases["no_grad view"] = r.view(6)
    with lib.inference_mode():
        inference = lib.ones(2, 3)
        cases["inference view of normal"] = a.view(6)
        cases["inference view of inference"] = inference.view(6)
    cases["normal view of inference"] = inference.view(6)
    seen = {
        name: (t._is_view(), t._base is not None, t.is_inference()) for name, t in cases.items()
    }
    seen["refusal"] = _observe(lambda lib: a._is_view(1), lib)
    return seen


def test_is_view_and_views_of_inference_tensors_match_torch():
    """_is_view() is _base's presence; a view of an inference tensor is no autograd view,
    in inference mode or out of it (as_view in VariableTypeUtils.h)."""
    assert _views(ember) == _views(torch)
