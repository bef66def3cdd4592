"""`ember.save` / `ember.load`: tensors, state_dicts and plain containers to a file and back.

Layer: serialization (above the tensor and its storage; below nn, which may register
its Parameter here); weights_only.py holds the allowlists and PyTorch's messages,
torch_names.py the names PyTorch's checkpoints use. In: an object (tensors, dicts /
OrderedDicts, lists, tuples, sets, numbers, strings, bytes, None, torch.Size, dtypes,
devices) and a path, pathlib.Path or binary file object. Out: the same objects, with tensors that
shared a storage sharing one again. Mirrors torch/serialization.py and, for
`weights_only=True` (the default, as in PyTorch 2.6 and later), the allowlist of
torch/_weights_only_unpickler.py, with PyTorch's errors.

Note [ember's checkpoint format]
--------------------------------
ember writes and reads PyTorch's own zip checkpoint, so torch.load reads what
ember.save wrote and ember.load reads what torch.save wrote:

    archive/data.pkl                the object, pickled with protocol 2
    archive/.format_version         b"1"
    archive/.storage_alignment      b"64"
    archive/byteorder               b"little"
    archive/data/<key>              the raw bytes of each storage, once per storage
    archive/version                 b"3\n"
    archive/.data/serialization_id  40 digits

In data.pkl a tensor is `torch._utils._rebuild_tensor_v2(storage, storage_offset,
size, stride, requires_grad, OrderedDict())`, its storage the persistent id
("storage", torch.<Type>Storage, key, location, numel) that every tensor over it
shares; a meta tensor is `torch._utils._rebuild_meta_tensor_no_storage(dtype, size,
stride, requires_grad)`; a dtype is the global `torch.<name>`, a Size
`torch.Size(tuple)`, a device `torch.device(type)`. ember writes those names with
its own pickler (_Pickler, pure Python, so that it can name torch's globals
without importing torch) and reads them back as ember's objects (TORCH_GLOBALS).
Loading with weights_only=True admits only these globals, PyTorch's allowlist
(collections.OrderedDict, Counter, builtins.set, complex, bytearray,
_codecs.encode), those registered with `register_weights_only_global` or
`register_tensor_subclass` (how a Tensor subclass such as nn.Parameter joins, both
ways) and those the user adds with `add_safe_globals` / `safe_globals`; anything else
is PyTorch's UnpicklingError.
"""

from __future__ import annotations

import _compat_pickle
import io
import os
import pickle
import random
import types
import zipfile

import numpy as np

from ember._c10 import dtypes
from ember._c10.device import META, device
from ember._c10.layout import layout
from ember._c10.storage import Storage
from ember._size import Size
from ember._tensor import Tensor
from ember.serialization.tensor_pickle import StorageRef, install
from ember.serialization.torch_names import (
    STORAGE_NAMES,
    SUBCLASS_REDUCERS,
    TORCH_GLOBALS,
    Global,
    StorageType,
    register_tensor_subclass,
    register_weights_only_global,
)
from ember.serialization.weights_only import (
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
    weights_only_global,
    weights_only_message,
)

__all__ = [
    "save",
    "load",
    "add_safe_globals",
    "get_safe_globals",
    "clear_safe_globals",
    "safe_globals",
    "register_weights_only_global",
    "register_tensor_subclass",
    "DEFAULT_PROTOCOL",
]

DEFAULT_PROTOCOL = 2
_ARCHIVE = "archive"


# -- saving -----------------------------------------------------------------------


_SIZE = Global("torch", "Size")
_DEVICE = Global("torch", "device")
_GET_LAYOUT = Global("torch.serialization", "_get_layout")


class _Pickler(pickle._Pickler):
    """Python's pickler, naming torch's globals for ember's tensors, dtypes, Sizes, devices."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, storages: dict) -> None:
        super().__init__(file, protocol=DEFAULT_PROTOCOL)
        self._storages = storages  # id(storage) -> (key, storage, dtype)
        self._torch_names = {
            id(value): path
            for path, value in TORCH_GLOBALS.items()
            if isinstance(value, types.FunctionType)
        }

    def save_global_name(self, obj) -> None:
        module, name = obj.module, obj.name
        self.write(pickle.GLOBAL + module.encode("utf-8") + b"\n" + name.encode("utf-8") + b"\n")
        self.memoize(obj)

    def save_dtype(self, obj) -> None:
        self.save_global_name(_dtype_globals[obj])

    dispatch[Global] = save_global_name
    dispatch[dtypes.dtype] = save_dtype

    def save_global(self, obj, name=None) -> None:
        """Functions ember rebuilds tensors with are written as PyTorch's names for them."""
        path = self._torch_names.get(id(obj))
        if path is None:
            super().save_global(obj, name)
            return
        module, name = path.rsplit(".", 1)
        self.save_global_name(Global(module, name))

    dispatch[types.FunctionType] = save_global

    def reducer_override(self, obj):
        kind = obj.__class__
        if kind is Tensor:
            return NotImplemented  # Tensor.__reduce_ex__ (tensor_pickle.py)
        subclass = SUBCLASS_REDUCERS.get(kind)
        if subclass is not None:
            return subclass[0], tuple(subclass[1](obj))
        if kind is Size:
            return _SIZE, (tuple(obj),)
        if kind is layout:
            return _GET_LAYOUT, (f"torch.{obj._name}",)
        if kind is device:
            return _DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index)
        return NotImplemented

    def persistent_id(self, obj):
        if obj.__class__ is not StorageRef:
            return None
        storage, dtype = obj.storage, obj.dtype
        entry = self._storages.get(id(storage))
        if entry is None:
            entry = self._storages[id(storage)] = (str(len(self._storages)), storage, dtype)
        elif entry[2] is not dtype:
            raise NotImplementedError(
                "ember.save: tensors of different dtypes over one storage cannot be saved"
            )
        name = STORAGE_NAMES[dtype.name]
        return (
            "storage",
            Global("torch", name),
            entry[0],
            "cpu",
            storage.nbytes // dtype.itemsize,
        )


_dtype_globals = {d: Global("torch", d.name) for d in dtypes._BY_NAME.values()}


def _writable(f):
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        parent = os.path.dirname(path)
        if parent and not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
        return open(path, "wb"), True
    if not hasattr(f, "write"):
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with a 'write' attribute"
        )
    return f, False


def save(
    obj,
    f,
    pickle_module=pickle,
    pickle_protocol=DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization=True,
    _disable_byteorder_record=False,
) -> None:
    """Write ``obj`` to ``f`` in ember's checkpoint format (Note [ember's checkpoint format])."""
    buffer = io.BytesIO()
    storages: dict = {}
    _Pickler(buffer, storages).dump(obj)
    handle, owned = _writable(f)
    try:
        with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED) as archive:
            archive.writestr(f"{_ARCHIVE}/data.pkl", buffer.getvalue())
            archive.writestr(f"{_ARCHIVE}/.format_version", b"1")
            archive.writestr(f"{_ARCHIVE}/.storage_alignment", b"64")
            archive.writestr(f"{_ARCHIVE}/byteorder", b"little")
            for key, storage, _ in storages.values():
                archive.writestr(f"{_ARCHIVE}/data/{key}", storage.bytes_view().tobytes())
            archive.writestr(f"{_ARCHIVE}/version", b"3\n")
            serial = "".join(str(random.randrange(10)) for _ in range(40))
            archive.writestr(f"{_ARCHIVE}/.data/serialization_id", serial.encode())
    finally:
        if owned:
            handle.close()
        elif hasattr(handle, "flush"):
            handle.flush()


# -- loading ----------------------------------------------------------------------


def _restore_location(map_location):
    """The storage a saved location becomes: cpu / meta, a dict of locations, or a callable."""

    def target(storage, location: str):
        if map_location is None:
            wanted = location
        elif callable(map_location) and not isinstance(map_location, (str, device)):
            result = map_location(storage, location)
            return storage if result is None else result
        elif isinstance(map_location, dict):
            wanted = map_location.get(location, location)
        else:
            wanted = str(map_location)
        wanted = device(wanted) if not isinstance(wanted, device) else wanted
        if wanted.type == "meta":
            return Storage(None, storage.nbytes, META)
        if wanted.type == "cuda":
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                "is False. If you are running on a CPU-only machine, please use torch.load with "
                "map_location=torch.device('cpu') to map your storages to the CPU."
            )
        if wanted.type != "cpu":
            raise RuntimeError(
                f"ember.load: cannot restore a storage on {wanted}: ember has only cpu and meta"
            )
        return storage

    return target


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, archive, restore, weights_only: bool, **kwargs) -> None:
        super().__init__(file, **kwargs)
        self._archive, self._prefix = archive if archive is not None else (None, None)
        self._restore = restore
        self._weights_only = weights_only
        self._loaded: dict = {}

    def find_class(self, module: str, name: str):
        # protocol 2 names Python 2's modules (__builtin__.set): read them as Python 3's
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        path = f"{module}.{name}"
        found = TORCH_GLOBALS.get(path)
        if found is not None:
            return found
        if not self._weights_only:
            return super().find_class(module, name)
        return weights_only_global(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"Unsupported persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        if not isinstance(storage_type, StorageType):
            raise pickle.UnpicklingError(f"Unsupported storage type {storage_type!r}")
        dtype = storage_type.dtype
        storage = self._loaded.get(key)
        if storage is None:
            raw = self._archive.read(f"{self._prefix}/data/{key}")
            storage = Storage.from_array(np.frombuffer(raw, dtype=np.uint8).copy())
            storage = self._loaded[key] = self._restore(storage, location)
        return storage, dtype


def _readable(f):
    if isinstance(f, (str, os.PathLike)):
        return open(os.fspath(f), "rb"), True
    try:
        f.seek(f.tell())
    except (io.UnsupportedOperation, AttributeError) as error:  # _check_seekable's advice
        if "seek" in str(error) or "tell" in str(error):
            raise type(error)(
                str(error) + ". You can only torch.load from a file that is seekable. Please "
                "pre-load the data into a buffer like io.BytesIO and try to load from it instead."
            ) from None
        raise
    return f, False


def _is_zipfile(handle) -> bool:
    start = handle.tell()
    magic = handle.read(4)
    handle.seek(start)
    return magic == b"PK\x03\x04"


def _open_archive(handle):
    """The zip and the folder its records sit in (PyTorchFileReader's checks)."""
    archive = zipfile.ZipFile(handle)
    names = archive.namelist()
    for name in names:
        if "/" not in name:
            raise RuntimeError(
                "[enforce fail at inline_container.cc:180] . file in archive is not in a "
                f"subdirectory: {name}"
            )
    prefix = names[0].split("/", 1)[0] if names else ""
    for record in ("version", "data.pkl"):
        if f"{prefix}/{record}" not in names and f"{prefix}/.data/{record}" not in names:
            raise RuntimeError(
                f'Expected hasRecord("{record}") to be true, but got false.  (Could this error '
                "message be improved?  If so, please report an enhancement request to PyTorch.)"
            )
    return archive, prefix


def _load_not_archive(handle, weights_only: bool):
    """torch.load's legacy path: a file that is no zip archive starts with a pickled magic
    number; ember has no legacy format, so a readable one is refused."""
    unpickler = _Unpickler(handle, None, None, weights_only, encoding="utf-8")
    try:
        magic = unpickler.load()
    except EOFError:
        if weights_only:  # the weights-only unpickler's bare EOFError
            raise EOFError from None
        raise
    if magic != 0x1950A86A20F9469CFC6C:
        raise RuntimeError("Invalid magic number; corrupt file?")
    raise NotImplementedError("ember.load: PyTorch's legacy (pre-1.6) format is not supported")


def load(
    f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args
):
    """Read what ``save`` wrote. weights_only (True unless given) refuses arbitrary classes."""
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if mmap:
        raise NotImplementedError("ember.load: mmap=True is not supported")
    pickle_load_args.setdefault("encoding", "utf-8")
    handle, owned = _readable(f)
    try:
        try:
            if not _is_zipfile(handle):
                return _load_not_archive(handle, weights_only)
            archive, prefix = _open_archive(handle)
            with archive:
                data = io.BytesIO(archive.read(f"{prefix}/data.pkl"))
                restore = _restore_location(map_location)
                unpickler = _Unpickler(
                    data, (archive, prefix), restore, weights_only, **pickle_load_args
                )
                return unpickler.load()
        except pickle.UnpicklingError as error:
            if weights_only:
                raise pickle.UnpicklingError(weights_only_message(str(error))) from None
            raise
    finally:
        if owned:
            handle.close()


install()  # Tensor.__reduce_ex__ and the storage's __reduce__ (tensor_pickle.py)
