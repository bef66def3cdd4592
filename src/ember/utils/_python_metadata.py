"""The slow path of a tensor's metadata: ``size()``, ``stride()``, ``device``... asked of Python.

Layer: utils (imports _c10, _ops, _tensor, _tensor_ctors, aten's argument parser and
utils._python_fallback). Mirrors the metadata callbacks of
torch/csrc/PyInterpreter.cpp (``dim``, ``sym_sizes``, ``sym_strides``, ``sym_numel``,
``sym_storage_offset``, ``is_contiguous``, ``is_strides_like``,
``is_non_overlapping_and_dense``, ``device``, ``layout``) and the Python face of the
TensorImpl accessors that call them. In: a tensor with ``_python_metadata`` bits (Note
[Python metadata] in _c10/py_interpreter.py). Out: the handler's answer, checked as
PyTorch checks it; where PyTorch takes None as "use the stored value" (sizes, strides,
numel, storage offset, contiguity), so does ember.

Each call goes to the top dispatch mode (popped meanwhile), then to the tensor's own
``__torch_dispatch__``, with the thread-local dispatch state as it is (PyTorch calls
these handlers straight from TensorImpl, not through the dispatcher); if every one
returns NotImplemented, PyTorch's TypeError names the operator without its overload.
"""

from __future__ import annotations

import operator

from ember._c10 import py_interpreter as _py
from ember._c10.device import device as _Device
from ember._c10.geometry import compute_numel
from ember._c10.layout import layout as _Layout
from ember._c10.py_interpreter import CUSTOM_DEVICE, CUSTOM_LAYOUT, CUSTOM_SIZES, CUSTOM_STRIDES
from ember._c10.tensor_impl import TensorImpl
from ember._c10.thread_state import per_thread
from ember._ops import ops
from ember._size import Size
from ember._tensor import Tensor, _wrap_dim
from ember._tensor_ctors import channels_last, channels_last_3d, contiguous_format, preserve_format
from ember._torch_function import dispatch, mode_enabled, overrides
from ember.aten.metadata_ops import strides_like_channels_last
from ember.aten.native.layout import is_non_overlapping_and_dense as _dense
from ember.aten.native.layout import memory_format_name
from ember.aten.python_arg_convert import tp_name
from ember.aten.python_arg_parser import PythonArgParser, no_arguments
from ember.utils._python_dispatch import _PYTHON_KEYS, _WITHOUT_PYTHON_KEYS
from ember.utils._python_fallback import mode_handler

_SIZES = CUSTOM_SIZES & ~CUSTOM_STRIDES
_FORMATS = {
    f._name: f for f in (contiguous_format, preserve_format, channels_last, channels_last_3d)
}
_size_parser = PythonArgParser(["size(int64_t? dim=None)"])
_stride_parser = PythonArgParser(["stride(int64_t? dim=None)"])


# PyTorch's internal asserts for a class without __torch_dispatch__ of its own (no Python key).
_ASSERT_TENSOR_IMPL = (
    'is_python_dispatch() INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/TensorImpl.h"'
    ":976, please report a bug to PyTorch. "
)
_ASSERT_SUBCLASS = (
    '0 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/torch/csrc/utils/python_arg_parser.cpp"'
    ":659, please report a bug to PyTorch. dispatch_on_subclass called with NO overloaded args "
    "that actually triggered dispatch, perhaps there is a divergence in how you detect torch "
    "function/dispatch and how overloaded args is computed?  "
)


def _call_handlers(op, self, args: tuple, name: str | None = None):
    """handle_torch_function_no_python_arg_parser for TorchDispatch, with ``self`` the one
    overloaded argument (see the module docstring); NotImplemented everywhere raises,
    naming the callback (``name``, by default the operator's)."""
    if not self._python_dispatch and op.namespace != "prim":  # TensorImpl's assert
        raise RuntimeError(_ASSERT_TENSOR_IMPL)
    types = (type(self),)
    tried = []
    ts = per_thread.state
    user, infra = ts.dispatch_modes, ts.infra_modes
    if user or infra:  # as utils/_python_fallback.py's dispatch_to_python (Note [Mode stack])
        if user:
            mode, slot = user.pop(), None
        else:
            slot = max(infra)
            mode = infra.pop(slot)
        if not user and not infra:
            ts.included &= _WITHOUT_PYTHON_KEYS
        try:
            result = mode_handler(mode)(op, types, args, {})
        finally:
            if not user and not infra:
                ts.included |= _PYTHON_KEYS
            if slot is None:
                user.append(mode)
            else:
                infra[slot] = mode
        if result is not NotImplemented:
            return result
        tried.append(f"  - mode object {mode!r}")
    if not self._python_dispatch:  # the class keeps Tensor's __torch_dispatch__
        raise RuntimeError(
            _ASSERT_SUBCLASS
            + f"overloaded_args = [{id(self):#x}], is_mode_active = {int(bool(tried))}"
        )
    result = self.__torch_dispatch__(op, types, args, {})
    if result is not NotImplemented:
        return result
    tried.append(f"  - tensor subclass {type(self)}")
    namespace, _, packet = str(op).rsplit(".", 1)[0].partition(".")
    raise TypeError(
        f"Multiple dispatch failed for 'torch.ops.{namespace}.{name or packet}'; all __torch_dispatch__ handlers "
        "returned NotImplemented:\n\n" + "\n".join(tried) + "\n\nFor more information, try "
        "re-running with TORCH_LOGS=not_implemented"
    )


def _cast_error(value) -> RuntimeError:
    return RuntimeError(
        f"Unable to cast Python instance of type {type(value)!r} to C++ type '?' (#define "
        "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)"
    )


def _as_int(value, bool_ok: bool) -> int:
    """pybind11's cast to int64 (a bool counts) or to SymInt (a bool does not)."""
    if value.__class__ is int:
        return value
    if isinstance(value, bool):
        if bool_ok:
            return int(value)
        raise _cast_error(value)
    if isinstance(value, float):
        raise _cast_error(value)
    try:
        return operator.index(value)
    except TypeError:
        raise _cast_error(value) from None


def _int_list(value, what: str) -> tuple:
    if not isinstance(value, (list, tuple)):
        raise RuntimeError(f"{what} must be a list or a tuple")
    return tuple(_as_int(item, False) for item in value)


# -- the callbacks (PyInterpreter.cpp) ---------------------------------------------------


def python_dim(self) -> int:
    result = _call_handlers(ops.aten.dim.default, self, (self,))
    if not isinstance(result, int):
        raise RuntimeError(f"dim returned invalid type {tp_name(result)}, expected int")
    return int(result)


def python_sizes(self) -> tuple:
    result = _call_handlers(ops.aten.sym_size.default, self, (self,))
    if result is None:
        return self._sizes
    return _int_list(result, "sym_size")


def python_strides(self) -> tuple:
    result = _call_handlers(ops.aten.sym_stride.default, self, (self,))
    if result is None:
        return self._strides
    return _int_list(result, "sym_strides")


def _python_int(self, op, default) -> int:
    result = _call_handlers(op, self, (self,))
    if result is None:
        return default
    return _as_int(result, True)


def python_numel(self, op=None) -> int:
    return _python_int(self, op or ops.aten.sym_numel.default, compute_numel(self._sizes))


def python_is_contiguous(self, memory_format) -> bool:
    name = getattr(memory_format, "_name", None) or "contiguous_format"
    if name == "contiguous_format":
        result = _call_handlers(ops.aten.is_contiguous.default, self, (self,))
    else:
        fmt = _FORMATS.get(name, memory_format)
        result = _call_handlers(ops.aten.is_contiguous.memory_format, self, (self, fmt))
    if result is None:
        return TensorImpl.is_contiguous(self, memory_format=_FORMATS.get(name))
    if not isinstance(result, bool):
        raise RuntimeError(f"is_contiguous returned invalid type {tp_name(result)}, expected bool")
    return result


def _python_bool(self, op, args, what: str, default, name=None):
    result = _call_handlers(op, self, args, name)
    if result is None:
        return default()
    if not isinstance(result, bool):
        raise RuntimeError(f"{what} returned invalid type {tp_name(result)}, expected bool")
    return result


def python_is_strides_like(self, memory_format) -> bool:
    name = getattr(memory_format, "_name", None)
    if isinstance(memory_format, int) or name is None:  # a MemoryFormat the dispatcher boxed
        name = memory_format_name(memory_format)
    fmt = _FORMATS.get(name, memory_format)

    def default() -> bool:
        if name not in ("channels_last", "channels_last_3d"):
            return False
        return strides_like_channels_last(self._sizes, self._strides, name)

    op = ops.aten.is_strides_like_format.default
    return _python_bool(self, op, (self, fmt), "is_strides_like_format", default, "is_strides_like")


def python_is_non_overlapping_and_dense(self) -> bool:
    op = ops.aten.is_non_overlapping_and_dense.default
    return _python_bool(self, op, (self,), "is_non_overlapping_and_dense", lambda: _dense(self))


def python_device(self):
    result = _call_handlers(ops.prim.device.default, self, (self,))
    if result.__class__ is _Device:
        return result
    if isinstance(result, str):
        return _Device(result)
    if isinstance(result, int) and not isinstance(result, bool):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    raise RuntimeError("unpackString: expected bytes or unicode object")


def python_layout(self):
    result = _call_handlers(ops.prim.layout.default, self, (self,))
    if not isinstance(result, _Layout):
        raise RuntimeError(f"layout returned invalid type {tp_name(result)}, expected Layout")
    return result


# -- the readers a subclass gets (install) ------------------------------------------------


def _reader(cls, name: str, bit: int, slow, previous):
    """A method that asks Python when the instance has ``bit`` (after __torch_function__,
    as PyTorch's Tensor methods consult it first), else what ``cls`` had."""

    def method(self, *args, **kwargs):
        if self._python_metadata & bit:
            if overrides(self) or mode_enabled():
                public = f"ember.Tensor.{name}"
                return dispatch(method, public, [self], (self, *args), kwargs or None)
            return slow(self, args, kwargs)
        if previous is not None:
            return previous(self, *args, **kwargs)
        return getattr(super(cls, self), name)(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def _property(cls, name: str, bit: int, slow, previous, settable: bool):
    def get(self):
        if self._python_metadata & bit:
            if overrides(self) or mode_enabled():
                public = f"ember.Tensor.{name}.__get__"
                return dispatch(reader.__get__, public, [self], (self,), None)
            return slow(self)
        if previous is not None:
            return previous.__get__(self, type(self))
        return getattr(super(cls, self), name)

    setter = None
    if settable:  # the slot of TensorImpl (the constructors set it)
        slot = TensorImpl.__dict__[name]

        def setter(self, value):
            slot.__set__(self, value)

    get.__name__ = name
    reader = property(get, setter)
    return reader


def _no_args(name: str, slow):
    def call(self, args, kwargs):
        if args or kwargs:
            no_arguments(self, name, args, kwargs)
        return slow(self)

    return call


def _size(self, args, kwargs):
    if not args and not kwargs:
        return Size(python_sizes(self))
    dim = _size_parser.parse(args, kwargs, self=self)[1][0]
    if dim is None:
        return Size(python_sizes(self))
    ndim = python_dim(self)
    index = _wrap_dim(dim, ndim)
    sizes = python_sizes(self)
    if index >= len(sizes):
        _wrap_dim(dim, len(sizes))
    return sizes[index]


def _stride(self, args, kwargs):
    dim = _stride_parser.parse(args, kwargs, self=self)[1][0] if args or kwargs else None
    strides = python_strides(self)
    if dim is None:
        return strides
    return strides[_wrap_dim(dim, len(strides))]


def _is_contiguous(self, args, kwargs):
    if args or kwargs.keys() - {"memory_format"}:
        TensorImpl.is_contiguous(self, *args, **kwargs)  # raises the TypeError
    return python_is_contiguous(self, kwargs.get("memory_format"))


def _len(self, args, kwargs):
    ndim = python_dim(self)
    if ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return python_sizes(self)[0]


def _data_ptr(self, args, kwargs):
    if args or kwargs:
        no_arguments(self, "data_ptr", args, kwargs)
    if python_numel(self, ops.aten.numel.default) == 0:
        return 0
    storage = self.storage()
    if storage.data is None:
        return 0
    return storage.data_ptr() + self._storage_offset * self.dtype.itemsize


def _nbytes(self):
    if self._python_metadata & CUSTOM_LAYOUT:
        python_layout(self)
    if self._python_metadata & _SIZES:
        return python_numel(self, ops.aten.numel.default) * self.dtype.itemsize
    return compute_numel(self._sizes) * self.dtype.itemsize


def _get_device(self, args, kwargs):
    if args or kwargs:
        no_arguments(self, "get_device", args, kwargs)
    found = python_device(self)
    return -1 if found.index is None else found.index


_dim = _no_args("dim", python_dim)
_METHODS = {
    "dim": (_SIZES, _dim),
    "ndimension": (_SIZES, _no_args("ndimension", python_dim)),
    "size": (_SIZES, _size),
    "numel": (_SIZES, _no_args("numel", python_numel)),
    "storage_offset": (
        _SIZES,
        _no_args(
            "storage_offset",
            lambda t: _python_int(t, ops.aten.sym_storage_offset.default, t._storage_offset),
        ),
    ),
    "__len__": (_SIZES, _len),
    "data_ptr": (_SIZES, _data_ptr),
    "stride": (CUSTOM_STRIDES, _stride),
    "is_contiguous": (CUSTOM_STRIDES, _is_contiguous),
    "get_device": (CUSTOM_DEVICE, _get_device),
}
_PROPERTIES = {
    "shape": (_SIZES, lambda t: Size(python_sizes(t)), False),
    "ndim": (_SIZES, python_dim, False),
    "nbytes": (_SIZES | CUSTOM_LAYOUT, _nbytes, False),
    "device": (CUSTOM_DEVICE, python_device, True),
    "is_cuda": (CUSTOM_DEVICE, lambda t: python_device(t).type == "cuda", False),
    "layout": (CUSTOM_LAYOUT, python_layout, False),
}
_BASES = frozenset({Tensor, TensorImpl, object})
_INSTALLED = "_python_metadata_readers"  # in a class's __dict__ once install ran on it


def install(cls) -> None:
    """The readers of Note [Python metadata] on ``cls``, once, for the names it takes from
    ember.Tensor (a reader the class or a base of it defines is left in place). A
    ``__torch_function__`` wrapper ember put on ``cls`` answers instances without the bits."""
    if _INSTALLED in cls.__dict__:
        return
    for name, (bit, slow) in _METHODS.items():
        previous = _previous(cls, name)
        if previous is not False:
            setattr(cls, name, _reader(cls, name, bit, slow, previous))
    for name, (bit, slow, settable) in _PROPERTIES.items():
        previous = _previous(cls, name)
        if previous is not False:
            setattr(cls, name, _property(cls, name, bit, slow, previous, settable))
    setattr(cls, _INSTALLED, True)


def _previous(cls, name: str):
    """None: ``cls`` takes ember's ``name`` (its base answers); False: a class of the user
    defines it (left alone); else the __torch_function__ wrapper ``cls`` carries."""
    for klass in cls.__mro__:
        attribute = klass.__dict__.get(name)
        if attribute is None:
            continue
        if klass in _BASES:
            return None
        if hasattr(getattr(attribute, "fget", attribute), "torch_function_checked"):
            return attribute if klass is cls else None
        return False
    return None


_py.interpreter.install = install
_py.interpreter.is_strides_like = python_is_strides_like
_py.interpreter.is_non_overlapping_and_dense = python_is_non_overlapping_and_dense
