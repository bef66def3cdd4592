"""`ember.save` / `ember.load`: tensors, state_dicts and plain containers to a file and back.

Layer: serialization (above the tensor and its storage; below nn, which may register
its Parameter here). In: an object (tensors, dicts / OrderedDicts, lists, tuples,
sets, numbers, strings, bytes, None, torch.Size, dtypes, devices) and a path,
pathlib.Path or binary file object. Out: the same objects, with tensors that
shared a storage sharing one again. Mirrors torch/serialization.py and, for
`weights_only=True` (the default, as in PyTorch 2.6 and later), the allowlist of
torch/_weights_only_unpickler.py, with PyTorch's errors.

Note [ember's checkpoint format]
--------------------------------
An ember checkpoint is an uncompressed zip archive, laid out as PyTorch's is but
not readable by it (nor are PyTorch's checkpoints by ember):

    ember_archive/version      b"1"
    ember_archive/byteorder    b"little"
    ember_archive/data.pkl     the object, pickled (protocol 2, as torch.save's default)
    ember_archive/data/<key>   the raw bytes of each storage, once per storage

In data.pkl a tensor is `ember.serialization._rebuild_tensor(storage, storage_offset,
size, stride, dtype, requires_grad)`, its storage a persistent id ("storage", key,
nbytes, location) that every tensor over that storage shares; a dtype, a Size and a
device are `_rebuild_dtype` / `_rebuild_size` / `_rebuild_device` of their names. A
meta tensor's storage has no record. Loading with weights_only=True admits only
these globals, PyTorch's own allowlist (collections.OrderedDict, Counter,
builtins.set, complex, bytearray, _codecs.encode), the globals registered with
`register_weights_only_global` (how a Tensor subclass such as nn.Parameter joins)
and those the user adds with `add_safe_globals` / `safe_globals`; anything else
is PyTorch's UnpicklingError.
"""

from __future__ import annotations

import _compat_pickle
import codecs
import collections
import io
import os
import pickle
import re
import zipfile

import numpy as np

from ember._c10 import dtypes
from ember._c10.device import META, device
from ember._c10.naming import prefix
from ember._c10.storage import Storage
from ember._size import Size
from ember._tensor import Tensor

__all__ = [
    "save",
    "load",
    "add_safe_globals",
    "get_safe_globals",
    "clear_safe_globals",
    "safe_globals",
    "register_weights_only_global",
    "DEFAULT_PROTOCOL",
]

DEFAULT_PROTOCOL = 2
_ARCHIVE = "ember_archive"
_VERSION = b"1"

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")


# -- rebuilding ------------------------------------------------------------------


def _rebuild_tensor(storage, storage_offset, size, stride, dtype, requires_grad):
    tensor = Tensor._from_storage(storage, size, stride, storage_offset, dtype, storage.device)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def _rebuild_dtype(name: str):
    return dtypes._dtype_by_name(name)


def _rebuild_size(values) -> Size:
    return Size(values)


def _rebuild_device(text: str):
    return device(text)


# -- the allowlists ---------------------------------------------------------------

_BUILTIN_ALLOWED = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "_codecs.encode": codecs.encode,
    "builtins.bytearray": bytearray,
    "builtins.set": set,
    "builtins.complex": complex,
}
_EMBER_ALLOWED: dict = {}  # register_weights_only_global: ember's own rebuild functions
_USER_ALLOWED: dict = {}  # add_safe_globals / safe_globals


def _path_of(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def register_weights_only_global(obj, path: str | None = None) -> None:
    """Admit ``obj`` (a rebuild function or a class) to weights_only loads, for good.

    For ember's own types: a Tensor subclass (nn.Parameter) gives itself a
    ``__reduce_ex__`` whose callable it registers here."""
    _EMBER_ALLOWED[path or _path_of(obj)] = obj


for _rebuild in (_rebuild_tensor, _rebuild_dtype, _rebuild_size, _rebuild_device):
    register_weights_only_global(_rebuild)


def add_safe_globals(safe_globals: list) -> None:
    """Mark globals (or (global, "module.name") pairs) as safe for weights_only loads."""
    for entry in safe_globals:
        if isinstance(entry, tuple):
            obj, path = entry
        else:
            obj, path = entry, _path_of(entry)
        _USER_ALLOWED[path] = obj


def get_safe_globals() -> list:
    return list(_USER_ALLOWED.values())


def clear_safe_globals() -> None:
    _USER_ALLOWED.clear()


class safe_globals:  # noqa: N801 (PyTorch's name)
    """Context manager: the given globals are safe for weights_only loads inside it."""

    def __init__(self, safe_globals: list) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        self._saved = dict(_USER_ALLOWED)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc) -> None:
        _USER_ALLOWED.clear()
        _USER_ALLOWED.update(self._saved)


def _unsupported_global(module: str, name: str) -> pickle.UnpicklingError:
    full_path = f"{module}.{name}"
    if full_path.startswith("builtins."):
        full_path = full_path[len("builtins.") :]
    api = f"{prefix()}.serialization"
    return pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
        f"Please use `{api}.add_safe_globals([{full_path}])` or the "
        f"`{api}.safe_globals([{full_path}])` context manager to allowlist this global "
        "if you trust this class/function."
    )


def _weights_only_message(message: str) -> str:
    """torch.load's _get_wo_message: the advice wrapped around the unpickler's error."""
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` "
            "please check the recommended steps in the following error message.\n\t"
            "WeightsUnpickler error: " + message + _DOCS_MESSAGE
        )
    text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        text += (
            "Please file an issue with the following so that we can make `weights_only=True` "
            "compatible with your use case: WeightsUnpickler error: "
        )
    return text + "\n\n" + message + _DOCS_MESSAGE


# -- saving -----------------------------------------------------------------------


class _Pickler(pickle.Pickler):
    """Tensors, dtypes, Sizes and devices as the rebuild calls above; storages by reference."""

    def __init__(self, file, storages: dict) -> None:
        super().__init__(file, protocol=DEFAULT_PROTOCOL)
        self._storages = storages  # id(storage) -> (key, storage)

    def reducer_override(self, obj):
        kind = obj.__class__
        if kind is Tensor:
            if obj.device.type not in ("cpu", "meta"):
                raise NotImplementedError(f"ember.save: tensors on {obj.device} cannot be saved")
            return _rebuild_tensor, (
                obj.untyped_storage(),
                obj.storage_offset(),
                tuple(obj.shape),
                tuple(obj.stride()),
                obj.dtype,
                obj.requires_grad,
            )
        if kind is dtypes.dtype:
            return _rebuild_dtype, (obj.name,)
        if kind is Size:
            return _rebuild_size, (tuple(obj),)
        if kind is device:
            return _rebuild_device, (str(obj),)
        return NotImplemented

    def persistent_id(self, obj):
        if obj.__class__ is not Storage:
            return None
        entry = self._storages.get(id(obj))
        if entry is None:
            entry = self._storages[id(obj)] = (str(len(self._storages)), obj)
        return ("storage", entry[0], obj.nbytes, obj.device.type)


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
            archive.writestr(f"{_ARCHIVE}/byteorder", b"little")
            for key, storage in storages.values():
                if storage.data is not None:
                    archive.writestr(f"{_ARCHIVE}/data/{key}", storage.bytes_view().tobytes())
            archive.writestr(f"{_ARCHIVE}/version", _VERSION)
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
        if wanted.type != "cpu":
            raise RuntimeError(
                f"ember.load: cannot restore a storage on {wanted}: ember has only cpu and meta"
            )
        return storage

    return target


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, archive, restore, weights_only: bool, **kwargs) -> None:
        super().__init__(file, **kwargs)
        self._archive = archive
        self._restore = restore
        self._weights_only = weights_only
        self._loaded: dict = {}

    def find_class(self, module: str, name: str):
        if not self._weights_only:
            return super().find_class(module, name)
        # protocol 2 names Python 2's modules (__builtin__.set): read them as Python 3's
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(
                f"Trying to load unsupported GLOBAL {path} whose module {module} is blocked."
            )
        for table in (_BUILTIN_ALLOWED, _EMBER_ALLOWED, _USER_ALLOWED):
            if path in table:
                return table[path]
        raise _unsupported_global(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 4 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"Unsupported persistent id {pid!r}")
        _, key, nbytes, location = pid
        storage = self._loaded.get(key)
        if storage is None:
            if location == "meta":
                storage = Storage(None, nbytes, META)
            else:
                raw = self._archive.read(f"{_ARCHIVE}/data/{key}")
                storage = Storage.from_array(np.frombuffer(raw, dtype=np.uint8).copy())
            storage = self._loaded[key] = self._restore(storage, location)
        return storage


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
    archive = zipfile.ZipFile(handle)
    names = archive.namelist()
    for name in names:
        if "/" not in name:
            raise RuntimeError(
                "[enforce fail at inline_container.cc:180] . file in archive is not in a "
                f"subdirectory: {name}"
            )
    if f"{_ARCHIVE}/version" not in names:
        if any(name.endswith("/data.pkl") for name in names):
            raise RuntimeError(
                "ember.load: this is not an ember checkpoint (a PyTorch checkpoint?); ember "
                "reads only the archives ember.save writes"
            )
        raise RuntimeError(
            'Expected hasRecord("version") to be true, but got false.  (Could this error '
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    return archive


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
            with _open_archive(handle) as archive:
                data = io.BytesIO(archive.read(f"{_ARCHIVE}/data.pkl"))
                unpickler = _Unpickler(
                    data, archive, _restore_location(map_location), weights_only, **pickle_load_args
                )
                return unpickler.load()
        except pickle.UnpicklingError as error:
            if weights_only:
                raise pickle.UnpicklingError(_weights_only_message(str(error))) from None
            raise
    finally:
        if owned:
            handle.close()
