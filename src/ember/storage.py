"""TypedStorage and the legacy storage classes (torch.Storage is FloatStorage): deprecated in
PyTorch, still what old code and ``Tensor.set_(storage)`` reach for.

Layer: torch face (with _tensor_ctors, whose ``tensor`` builds a storage from a sequence).
In: a size, a sequence, or an untyped storage (ember's ``_c10.storage.Storage``, what
``t.untyped_storage()`` gives) and a dtype. Out: a typed view of that storage: its elements
by index, its length in elements, its printout. Mirrors TypedStorage, _LegacyStorage and
the FloatStorage family of torch/storage.py and torch/__init__.py: constructing one warns
(once per process) that TypedStorage is deprecated, as there; a legacy class builds a
TypedStorage of its dtype, and ``isinstance`` of a TypedStorage of that dtype is True.
"""

from __future__ import annotations

import collections.abc
import warnings

import numpy as np

from ember._c10 import dtypes
from ember._c10.device import device as _device
from ember._c10.naming import prefix
from ember._c10.storage import Storage
from ember._tensor import Tensor
from ember._tensor_ctors import tensor as _tensor

__all__ = [
    "TypedStorage",
    "checked_untyped",
    "BFloat16Storage",
    "BoolStorage",
    "ByteStorage",
    "CharStorage",
    "ComplexDoubleStorage",
    "ComplexFloatStorage",
    "DoubleStorage",
    "FloatStorage",
    "HalfStorage",
    "IntStorage",
    "LongStorage",
    "ShortStorage",
]

_REMOVAL = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
    "the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()"
)
_WARNED: list[bool] = [False]  # _warn_typed_storage_removal's "has_warned"


def _warn_typed_storage_removal(stacklevel: int = 2) -> None:
    if not _WARNED[0]:
        warnings.warn(_REMOVAL, UserWarning, stacklevel=stacklevel + 1)
        _WARNED[0] = True


def _reset_warn_typed_storage_removal() -> None:
    """Let the next use of a TypedStorage warn again (PyTorch's tests call it)."""
    _WARNED[0] = False


_INIT_FORMS = (
    "TypedStorage.__init__ received an invalid combination of arguments. Expected one of:\n"
    " * (*, ember.device device, ember.dtype dtype)\n"
    " * (int size, *, ember.device device, ember.dtype dtype)\n"
    " * (Sequence data, *, ember.device device, ember.dtype dtype)\n"
    " * (*, UntypedStorage wrap_storage, ember.dtype dtype)"
)


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer))


class TypedStorage:
    """A storage seen as elements of ``dtype``."""

    is_sparse = False

    def __new__(cls, *args, wrap_storage=None, dtype=None, device=None, _internal=False):
        if not issubclass(cls, _LegacyStorage):
            return super().__new__(cls)
        return cls._legacy_new(args, wrap_storage, dtype, device)

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        if wrap_storage is not None:
            if args:
                raise RuntimeError(
                    _INIT_FORMS + "\nNo positional arguments should be given when using "
                    "'wrap_storage'"
                )
            if dtype is None:
                raise RuntimeError(_INIT_FORMS + "\nArgument 'dtype' must be specified")
            if not isinstance(dtype, dtypes.dtype):
                raise TypeError(
                    _INIT_FORMS + f"\nArgument 'dtype' must be ember.dtype, not {type(dtype)}"
                )
            if device is not None:
                raise RuntimeError(
                    _INIT_FORMS
                    + "\nArgument 'device' should not be specified when 'wrap_storage' is given"
                )
            if not isinstance(wrap_storage, Storage):
                raise TypeError(
                    _INIT_FORMS + "\nArgument 'wrap_storage' must be UntypedStorage, but got "
                    f"{type(wrap_storage)}"
                )
            self.dtype = dtype
            self._untyped_storage = wrap_storage
            return
        self.dtype = dtypes.get_default_dtype() if dtype is None else dtype
        where = _device("cpu" if device is None else device)
        if len(args) > 1:
            raise RuntimeError(_INIT_FORMS + "\nToo many positional arguments")
        if not args:
            self._untyped_storage = Storage.allocate(0, where)
        elif _is_int(args[0]):
            self._untyped_storage = Storage.allocate(int(args[0]) * self.dtype.itemsize, where)
        elif isinstance(args[0], collections.abc.Sequence):
            self._untyped_storage = _tensor(args[0], dtype=self.dtype, device=where).storage()
        else:
            raise TypeError(_INIT_FORMS + f"\nArgument type not recognized: {type(args[0])}")

    # -- what it holds ------------------------------------------------------------------
    @property
    def device(self):
        return self._untyped_storage.device

    def untyped(self) -> Storage:
        """The untyped storage underneath (what ``t.untyped_storage()`` gives)."""
        _warn_typed_storage_removal()
        return self._untyped_storage

    def _size(self) -> int:
        return self._untyped_storage.nbytes // self.dtype.itemsize

    def size(self) -> int:
        _warn_typed_storage_removal()
        return self._size()

    def __len__(self) -> int:
        _warn_typed_storage_removal()
        return self._size()

    def nbytes(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.nbytes

    def element_size(self) -> int:
        _warn_typed_storage_removal()
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.data_ptr()

    @property
    def _cdata(self) -> int:
        return self._untyped_storage._cdata

    def _flat(self) -> Tensor:
        """The storage's elements as a flat tensor (sharing its memory)."""
        return Tensor._from_storage(
            self._untyped_storage, (self._size(),), (1,), 0, self.dtype, self.device
        )

    # -- elements ----------------------------------------------------------------------
    def __getitem__(self, idx):
        _warn_typed_storage_removal()
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if isinstance(idx, bool) or not isinstance(idx, int):
            error = TypeError if isinstance(idx, bool) else RuntimeError
            raise error(f"can't index a {type(self)} with {type(idx)}")
        size = self._size()
        if not -size <= idx < size:
            raise IndexError(f"index {idx} out of range for storage of size {size}")
        return self._flat()[idx].item()

    def tolist(self) -> list:
        _warn_typed_storage_removal()
        return self._flat().tolist()

    def __iter__(self):
        _warn_typed_storage_removal()
        return iter(self._flat().tolist())

    def __str__(self) -> str:
        _warn_typed_storage_removal()
        info = (
            f"[{prefix()}.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size "
            f"{self._size()}]"
        )
        if self.device.type == "meta":
            return "...\n" + info
        return " " + "\n ".join(str(value) for value in self._flat().tolist()) + "\n" + info

    def __repr__(self) -> str:
        _warn_typed_storage_removal()
        return str(self)


def checked_untyped(source, dtype, expected: str) -> Storage:
    """PythonArgs::storage with its caller's check: the untyped storage of ``source``, whose
    dtype, if it has one, must be ``dtype`` (``expected`` names it as the caller prints it)."""
    if isinstance(source, TypedStorage):
        if source.dtype != dtype:
            raise RuntimeError(
                f"Expected a Storage of type {expected} or an UntypedStorage, but got type "
                f"{dtypes.scalar_type_name(source.dtype)} for argument 1 'storage'"
            )
        return source._untyped_storage
    return source


_LEGACY_FORMS = (
    "{cls}.__new__ received an invalid combination of arguments. Expected one of:\n"
    " * no arguments\n"
    " * (int size)\n"
    " * (Sequence data)\n"
    " * (*, UntypedStorage wrap_storage)"
)


class _LegacyStorageMeta(type):
    """``isinstance(s, FloatStorage)``: a cpu TypedStorage of float32."""

    def __instancecheck__(cls, instance) -> bool:
        if type(instance) is TypedStorage:
            return instance.device.type == "cpu" and instance.dtype == cls.dtype
        return False

    def __repr__(cls) -> str:
        return f"<class 'ember.{cls.__name__}'>"


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    @classmethod
    def _legacy_new(cls, args, wrap_storage, dtype, device):
        _warn_typed_storage_removal(stacklevel=3)
        if cls is _LegacyStorage:
            raise RuntimeError("Only child classes of _LegacyStorage can be instantiated")
        forms = _LEGACY_FORMS.format(cls=repr(cls))
        if device is not None:
            raise RuntimeError(forms + "\nKeyword argument 'device' cannot be specified")
        if dtype is not None:
            raise RuntimeError(forms + "\nKeyword argument 'dtype' cannot be specified")
        if wrap_storage is None:
            if len(args) > 1:
                raise RuntimeError(forms + "\nToo many positional arguments")
            if args and not _is_int(args[0]) and not isinstance(args[0], collections.abc.Sequence):
                raise TypeError(forms + f"\nArgument type not recognized: {type(args[0])}")
            return TypedStorage(*args, dtype=cls.dtype, device="cpu", _internal=True)
        if args:
            raise RuntimeError(
                forms + "\nNo positional arguments should be given when using 'wrap_storage'"
            )
        if not isinstance(wrap_storage, Storage):
            raise TypeError(
                forms
                + f"\nArgument 'wrap_storage' must be UntypedStorage, but got {type(wrap_storage)}"
            )
        if wrap_storage.device.type != "cpu":
            raise RuntimeError(
                forms
                + f"\nDevice of 'wrap_storage' must be cpu, but got {wrap_storage.device.type}"
            )
        return TypedStorage(wrap_storage=wrap_storage, dtype=cls.dtype, _internal=True)


def _legacy_class(name: str, dtype) -> type:
    cls = _LegacyStorageMeta(name, (_LegacyStorage,), {"dtype": dtype, "__module__": "ember"})
    cls.__qualname__ = name
    return cls


ByteStorage = _legacy_class("ByteStorage", dtypes.uint8)
DoubleStorage = _legacy_class("DoubleStorage", dtypes.float64)
FloatStorage = _legacy_class("FloatStorage", dtypes.float32)
HalfStorage = _legacy_class("HalfStorage", dtypes.float16)
LongStorage = _legacy_class("LongStorage", dtypes.int64)
IntStorage = _legacy_class("IntStorage", dtypes.int32)
ShortStorage = _legacy_class("ShortStorage", dtypes.int16)
CharStorage = _legacy_class("CharStorage", dtypes.int8)
BoolStorage = _legacy_class("BoolStorage", dtypes.bool)
BFloat16Storage = _legacy_class("BFloat16Storage", dtypes.bfloat16)
ComplexDoubleStorage = _legacy_class("ComplexDoubleStorage", dtypes.complex128)
ComplexFloatStorage = _legacy_class("ComplexFloatStorage", dtypes.complex64)
