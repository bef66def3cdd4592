"""TypedStorage and the legacy storage classes against PyTorch 2.13: ``torch.Storage()`` (an
empty float storage), construction by size, sequence and ``wrap_storage`` with every error
PyTorch gives, the element reads, printouts (and the untyped storage's), ``isinstance``
against FloatStorage and friends, ``is_storage``, the once-per-process deprecation warning,
a typed storage given to ``set_`` and to the legacy ``Tensor(storage)`` constructor, and a
wrapper subclass's ``set_`` with one (what ``__torch_dispatch__`` receives).

Each program runs with ``torch`` and with ``ember`` standing for it; what it prints must be
the same (ember spells its own types ``ember.X`` where torch prints ``torch.X``).
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
from oracle import torch as _torch

import ember


def _normalised(value) -> str:
    return str(value).replace("ember.", "torch.")


def _outcome(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = f()
        except Exception as error:  # noqa: BLE001 (the outcome is the exception)
            return (type(error).__name__, _normalised(error))
    return _normalised(repr(result))


CONSTRUCTIONS = [
    ("Storage", (), {}),
    ("Storage", (2,), {}),
    ("Storage", ([1, 2, 3],), {}),
    ("Storage", (np.int64(2),), {}),
    ("DoubleStorage", ([1, 2],), {}),
    ("BoolStorage", ([True, False],), {}),
    ("LongStorage", (0,), {}),
    ("IntStorage", ([7],), {}),
    ("HalfStorage", ([1.5],), {}),
    ("ComplexFloatStorage", ([1j],), {}),
    ("FloatStorage", (2, 3), {}),
    ("FloatStorage", (), {"dtype": "float64"}),
    ("FloatStorage", (), {"device": "cpu"}),
    ("FloatStorage", (None,), {}),
    ("FloatStorage", ("a",), {}),
    ("FloatStorage", (1,), {"wrap": True}),
    ("FloatStorage", (), {"wrap": True}),
    ("FloatStorage", (), {"wrap_storage": 5}),
    ("TypedStorage", (), {}),
    ("TypedStorage", (2,), {"dtype": "int64"}),
    ("TypedStorage", ([1, 2],), {"dtype": "int32"}),
    ("TypedStorage", (), {"wrap": True, "dtype": "float16"}),
    ("TypedStorage", (), {"wrap": True}),
    ("TypedStorage", (), {"wrap": True, "dtype": 5}),
    ("TypedStorage", (), {"wrap": True, "dtype": "float16", "device": "cpu"}),
    ("TypedStorage", (1,), {"wrap": True, "dtype": "float16"}),
    ("TypedStorage", (2, 3), {}),
    ("TypedStorage", (2,), {"device": "meta"}),
    ("TypedStorage", (None,), {}),
]


def _construct(torch, name, args, kwargs):
    kwargs = dict(kwargs)
    if kwargs.pop("wrap", False):
        kwargs["wrap_storage"] = torch.arange(2.0).untyped_storage()
    if isinstance(kwargs.get("dtype"), str):
        kwargs["dtype"] = getattr(torch, kwargs["dtype"])
    owner = (
        importlib.import_module(torch.__name__ + ".storage") if name == "TypedStorage" else torch
    )
    outcome = _outcome(lambda: getattr(owner, name)(*args, **kwargs))
    if isinstance(outcome, str) and args and isinstance(args[0], (int, np.integer)):
        return outcome.splitlines()[-1]  # a storage made by size holds uninitialised bytes
    return outcome


@pytest.mark.parametrize("name, args, kwargs", CONSTRUCTIONS)
def test_construction_as_torch(name, args, kwargs):
    assert _construct(ember, name, args, kwargs) == _construct(_torch, name, args, kwargs)


def _reading(torch):
    s = torch.Storage([1, 2, 3])
    out = [_outcome(lambda: (len(s), s.size(), s.nbytes(), s.element_size(), s.tolist()))]
    out.append(_outcome(lambda: (list(s), s[0], s[-1], s.dtype, s.device, type(s).__name__)))
    for index in (3, -4, slice(0, 2), "a", 1.0, True):
        out.append(_outcome(lambda index=index: s[index]))
    out.append(_outcome(lambda: s.data_ptr() == s.untyped().data_ptr()))
    out.append(_outcome(lambda: s._cdata == s.untyped()._cdata))
    out.append(_outcome(lambda: str(torch.DoubleStorage([1, 2]))))
    checks = (torch.FloatStorage, torch.DoubleStorage, torch.Storage)
    out.append([isinstance(s, cls) for cls in checks])
    out.append(
        _outcome(lambda: (torch.is_storage(s), torch.is_storage(torch.ones(1).untyped_storage())))
    )
    out.append(
        _outcome(
            lambda: (torch.Storage, torch.FloatStorage.dtype, torch.Storage is torch.FloatStorage)
        )
    )
    for t in (torch.ones(1, dtype=torch.int16), torch.ones(2, device="meta"), torch.ones(0)):
        out.append(_outcome(lambda t=t: t.untyped_storage()))
        out.append(_outcome(lambda t=t: type(t.untyped_storage())))
    return out


def test_reading_and_printing_as_torch():
    assert _reading(ember) == _reading(_torch)


def _warns_once(torch):
    storage = importlib.import_module(torch.__name__ + ".storage")
    storage._reset_warn_typed_storage_removal()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = torch.Storage(2)
        s.size()
        torch.DoubleStorage([1])
    return [(w.category.__name__, str(w.message)) for w in caught]


def test_the_deprecation_warning_as_torch():
    assert _warns_once(ember) == _warns_once(_torch)
    assert len(_warns_once(ember)) == 1


def _with_tensors(torch):
    out = []
    for dtype, storage in (
        (torch.float64, torch.FloatStorage(2)),
        (torch.int64, torch.FloatStorage(2)),
        (torch.float32, torch.FloatStorage([5, 6])),
        (torch.float32, torch.ones(2, dtype=torch.float64).untyped_storage()),
    ):
        x = torch.ones(3, dtype=dtype)
        out.append(_outcome(lambda x=x, s=storage: (x.set_(s).tolist(), x._version)))
        x = torch.ones(3, dtype=dtype)
        out.append(_outcome(lambda x=x, s=storage: x.set_(s, 0, [1]).tolist()))
    for storage in (torch.FloatStorage(3), torch.DoubleStorage(2), torch.ones(6).untyped_storage()):
        out.append(_outcome(lambda s=storage: (torch.Tensor(s).dtype, torch.Tensor(s).shape)))
    return out


def test_typed_storages_with_tensors_as_torch():
    assert _with_tensors(ember) == _with_tensors(_torch)


def _wrapper_set_(torch):
    pytree = importlib.import_module(torch.__name__ + ".utils._pytree")
    seen = []

    class Wrapper(torch.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = torch.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            seen.append((str(func), [type(a).__name__ for a in args]))
            unwrapped = pytree.tree_map_only(Wrapper, lambda t: t.elem, args)
            out = func(*unwrapped, **(kwargs or {}))
            return pytree.tree_map_only(torch.Tensor, Wrapper, out)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = Wrapper(torch.empty([]))
        result = z.set_(torch.Storage())
    return [type(result).__name__, tuple(result.elem.shape), seen]


def test_a_wrapper_subclass_set_to_a_typed_storage_as_torch():
    assert _wrapper_set_(ember) == _wrapper_set_(_torch)


def _type_names_in_errors(torch):
    out = []
    for value in (torch.ones(1).untyped_storage(), torch.Stream(), torch.Storage(1)):
        out.append(_outcome(lambda v=value: torch.ones(2).add(v)))
    return out


def test_storages_and_streams_named_in_argument_errors_as_torch():
    assert _type_names_in_errors(ember) == _type_names_in_errors(_torch)
