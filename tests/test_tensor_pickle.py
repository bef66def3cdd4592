"""Tensors under plain pickle and copy, and Tensor subclasses under save/load, against
PyTorch 2.13: Tensor.__reduce_ex__ (values, strides, offsets, requires_grad, the math
bits, Python attributes and __slots__), views that do not share a storage after a
plain pickle (as PyTorch's), copy.copy sharing one, a wrapper subclass and a Python
subclass through save/load with safe_globals, the globals a checkpoint of them names,
and weights_only's refusal of an unlisted subclass."""

from __future__ import annotations

import copy
import io
import pickle
import pickletools
import zipfile

import pytest
from oracle import torch

import ember


def _describe(value):
    return (
        type(value).__name__,
        str(value.dtype).split(".")[-1],
        tuple(value.shape),
        tuple(value.stride()),
        value.storage_offset(),
        value.requires_grad,
        value.is_leaf,
        value.is_conj(),
        value.resolve_conj().detach().numpy().tolist(),
    )


def _tensors(lib):
    x = lib.arange(12.0).reshape(3, 4)
    return {
        "plain": x,
        "transposed": x.t(),
        "row": x[1],
        "strided": x[:, ::2],
        "int": lib.tensor([[1, -2], [3, 4]], dtype=lib.int16),
        "bool": lib.tensor([True, False]),
        "leaf": lib.tensor([1.0, 2.0], requires_grad=True),
        "non-leaf": lib.tensor([1.0, 2.0], requires_grad=True) * 2,
        "conj": lib.tensor([1 + 2j, 3 - 1j]).conj(),
        "empty": lib.zeros(0, 3),
    }


@pytest.mark.parametrize("name", list(_tensors(ember)))
def test_plain_pickle_round_trips_as_torch(name):
    ours = pickle.loads(pickle.dumps(_tensors(ember)[name]))
    theirs = pickle.loads(pickle.dumps(_tensors(torch)[name]))
    assert _describe(ours) == _describe(theirs)


def _sharing(lib, how):
    base = lib.arange(6.0)
    view = base[2:]
    if how == "pickle":
        base, view = pickle.loads(pickle.dumps((base, view)))
    else:
        base, view = base, copy.copy(view)
    view.add_(10)
    return base.tolist(), view.tolist()


@pytest.mark.parametrize("how", ["pickle", "copy"])
def test_storage_sharing_after_pickle_and_copy_equals_torch(how):
    """A plain pickle gives each tensor its own storage; copy.copy shares the original."""
    assert _sharing(ember, how) == _sharing(torch, how)


def _make_classes(lib):
    class Sub(lib.Tensor):
        pass

    class Slotted(lib.Tensor):
        __slots__ = ["elem"]

        @staticmethod
        def __new__(cls, elem):
            made = lib.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype)
            made.elem = elem
            return made

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            unwrap = [a.elem if isinstance(a, Slotted) else a for a in args]
            return func(*unwrap, **(kwargs or {}))

    made = []
    for cls in (Sub, Slotted):  # module globals, as pickle finds a class by its name
        cls.__name__ = cls.__qualname__ = f"{lib.__name__.title()}{cls.__name__}"
        globals()[cls.__name__] = cls
        made.append(cls)
    return tuple(made)


_CLASSES = {lib.__name__: _make_classes(lib) for lib in (ember, torch)}


def _classes(lib):
    return _CLASSES[lib.__name__]


def _state_shape(state):
    """The structure of _get_obj_state's result: None, a dict's keys, or a pair of them."""
    if isinstance(state, tuple):
        return tuple(_state_shape(part) for part in state)
    return None if state is None else sorted(state)


def _reduce_shapes(lib):
    sub_class, slotted_class = _classes(lib)
    plain = lib.ones(2)
    plain.tag = "t"
    sub = lib.ones(2).as_subclass(sub_class)
    slotted = slotted_class(lib.arange(3.0))
    found = {}
    for name, value in {"plain with attribute": plain, "sub": sub, "slotted": slotted}.items():
        function, arguments = value.__reduce_ex__(2)
        inner, kind, _, state = arguments
        kind_name = kind.__name__.replace("Ember", "").replace("Torch", "")
        found[name] = (function.__name__, inner.__name__, kind_name, _state_shape(state))
    found["no attributes"] = lib.ones(2).__reduce_ex__(2)[0].__name__
    return found


def test_reduce_ex_names_the_rebuild_and_state_of_torch():
    assert _reduce_shapes(ember) == _reduce_shapes(torch)


def _subclass_round_trips(lib):
    sub_class, slotted_class = _classes(lib)
    sub = lib.arange(3.0).as_subclass(sub_class)
    sub.tag = {"k": 1}
    slotted = slotted_class(lib.arange(4.0) * 2)
    found = []
    for value, cls in ((sub, sub_class), (slotted, slotted_class)):
        buffer = io.BytesIO()
        lib.save(value, buffer)
        buffer.seek(0)
        with lib.serialization.safe_globals([cls]):
            loaded = lib.load(buffer)
        copied = pickle.loads(pickle.dumps(value)) if cls is sub_class else None
        for result in (loaded, copied):
            if result is None:
                continue
            found.append((type(result) is cls, result is value))
            if cls is sub_class:
                found.append((result.tag, result.tolist()))
            else:
                found.append((type(result.elem).__name__, result.elem.tolist(), result.shape))
    return found


def test_subclasses_through_save_and_load_equal_torch():
    assert _subclass_round_trips(ember) == _subclass_round_trips(torch)


def _globals_in_checkpoint(lib) -> set:
    _, slotted_class = _classes(lib)
    value = slotted_class(lib.arange(3.0))
    buffer = io.BytesIO()
    lib.save(value, buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        data = archive.read(next(n for n in archive.namelist() if n.endswith("data.pkl")))
    names = set()
    for opcode, argument, _ in pickletools.genops(data):
        if opcode.name == "GLOBAL":
            module, name = argument.split(" ", 1)
            if module != __name__:  # the test's own classes
                names.add((module, name))
    return names


def test_a_wrapper_subclass_checkpoint_names_torchs_globals():
    assert _globals_in_checkpoint(ember) == _globals_in_checkpoint(torch)


def _unlisted_refusal(lib):
    sub_class, _ = _classes(lib)
    buffer = io.BytesIO()
    lib.save(lib.ones(3).as_subclass(sub_class), buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError) as info:
        lib.load(buffer)
    return str(info.value).replace("ember", "torch").replace("EmberSub", "TorchSub")


def test_weights_only_refuses_an_unlisted_subclass_as_torch():
    assert _unlisted_refusal(ember) == _unlisted_refusal(torch)
