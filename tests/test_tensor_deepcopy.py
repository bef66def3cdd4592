"""copy.deepcopy of tensors and tensor subclasses against PyTorch 2.13 (Tensor.__deepcopy__).

Each program runs on torch and on ember; what it returns (values, geometry, classes,
shared storages, attributes, the error type and text) must agree.
"""

from __future__ import annotations

import copy
import importlib

import pytest
from oracle import torch

import ember


def _outcome(program, lib):
    try:
        return ("ok", program(lib))
    except Exception as error:  # noqa: BLE001 (the differential compares the error)
        return (type(error).__name__, str(error).replace("ember", "torch"))


def _both(program):
    ours, theirs = _outcome(program, ember), _outcome(program, torch)
    assert ours == theirs
    return ours


def _geometry(t):
    return (
        type(t).__name__,
        tuple(t.shape),
        t.stride(),
        t.storage_offset(),
        str(t.dtype).split(".")[-1],
    )


def _wrapper_class(lib, clone_keeps_class=True):
    tree_map = importlib.import_module(lib.__name__ + ".utils._pytree").tree_map

    class Wrapper(lib.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = lib.Tensor._make_wrapper_subclass(
                cls, elem.size(), dtype=elem.dtype, requires_grad=elem.requires_grad
            )
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            def unwrap(e):
                return e.elem if isinstance(e, Wrapper) else e

            out = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
            if func.overloadpacket.__name__ == "clone" and not clone_keeps_class:
                return out
            return tree_map(lambda e: Wrapper(e) if isinstance(e, lib.Tensor) else e, out)

    return Wrapper


PROGRAMS = {
    "plain": lambda lib: lib.arange(6.0).view(2, 3).t(),
    "offset view": lambda lib: lib.arange(6.0)[2:],
    "int64": lambda lib: lib.arange(4),
    "meta": lambda lib: lib.empty(2, 3, device="meta"),
    "requires grad": lambda lib: lib.ones(2, requires_grad=True),
    "empty": lambda lib: lib.empty(0, 3),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_copy_has_the_geometry_values_and_a_storage_of_its_own(name):
    def program(lib):
        x = PROGRAMS[name](lib)
        y = copy.deepcopy(x)
        seen = [_geometry(y), y.requires_grad, y.is_leaf, y._version, y.device.type]
        if x.device.type != "meta":
            nbytes = y.untyped_storage().nbytes  # ember's storage: an attribute
            seen += [y.tolist() == x.tolist(), nbytes() if callable(nbytes) else nbytes]
            if y.numel():
                with lib.no_grad():
                    y.add_(1)
                seen += [x.tolist() != y.tolist(), x._version, y._version]
        return seen

    _both(program)


def test_tensors_sharing_a_storage_share_its_copy_and_the_memo_keeps_identity():
    def program(lib):
        x = lib.arange(6.0)
        v = x[2:]
        a, b, c = copy.deepcopy([x, v, x])
        with lib.no_grad():
            a.mul_(10)
        return [b.tolist(), a is c, x.tolist(), a.data_ptr() + 8 == b.data_ptr()]

    _both(program)


def test_grad_and_python_attributes_are_copied():
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        (x * 3).sum().backward()
        x.note = {"k": [1, 2]}
        y = copy.deepcopy(x)
        y.note["k"].append(3)
        return [y.grad.tolist(), y.grad is x.grad, x.note, y.note, y.requires_grad]

    _both(program)


def test_a_non_leaf_is_refused():
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        copy.deepcopy(x * 2)

    assert _both(program)[0] == "RuntimeError"


def test_non_wrapper_subclasses_need_a_new_empty_of_their_class():
    def program(lib):
        class NoNewEmpty(lib.Tensor):
            pass

        class WrongNewEmpty(lib.Tensor):
            def new_empty(self, shape):
                return lib.Tensor(shape)

        class Good(lib.Tensor):
            __slots__ = ["tag"]

            def new_empty(self, shape):
                return type(self)(shape)

        seen = []
        for cls in (NoNewEmpty, WrongNewEmpty):
            try:
                copy.deepcopy(cls(3))
            except RuntimeError as error:
                seen.append(str(error))
        good = Good([1.0, 2.0])
        good.tag = ["slot"]
        good.extra = 5
        copied = copy.deepcopy(good)
        seen += [_geometry(copied), copied.tolist(), copied.tag, copied.tag is good.tag]
        seen.append(copied.extra)
        return seen

    _both(program)


def test_wrapper_subclasses_are_copied_by_clone():
    def program(lib):
        x = _wrapper_class(lib)(lib.arange(3.0))
        x.label = ["a"]
        y = copy.deepcopy(x)
        return [_geometry(y), y.elem.tolist(), y.elem is x.elem, y.label, y.label is x.label]

    _both(program)


def test_a_wrapper_whose_clone_changes_class_is_refused():
    def program(lib):
        copy.deepcopy(_wrapper_class(lib, clone_keeps_class=False)(lib.arange(3.0)))

    assert _both(program)[0] == "RuntimeError"
