"""Tensor subclasses: ``_make_wrapper_subclass``, ``_make_subclass`` and the legacy constructor.

Layer: the constructors (beside _tensor_ctors; imports _c10, _tensor, aten's argument parser
and _tensor_ctors). Mirrors THPVariable_make_wrapper_subclass, THPVariable_make_subclass and
THPVariable_NewWithVar of torch/csrc/autograd/python_variable.cpp, and the legacy
``torch.Tensor(...)`` constructor of torch/csrc/utils/tensor_new.cpp
(legacy_tensor_generic_ctor_new). In: the Python arguments. Out: a tensor of the requested
class, with the Python / PythonTLSSnapshot keys iff the class defines
``__torch_dispatch__`` (facts §8.1), or PyTorch's error.

Note [Wrapper subclass storage]
-------------------------------
A wrapper subclass owns a storage with no data whose byte size is the one
PyTorch computes (computeStorageNbytes, or ``storage_size`` when given): PyTorch
keeps it only to track aliasing, so ``untyped_storage().nbytes()`` agrees and
``data_ptr()`` is 0. ``memory_format`` and ``pin_memory`` are accepted and
ignored, as PyTorch ignores them. Sizes, strides, device and layout that
dispatch to Python (``dispatch_sizes_strides_policy``, ``dispatch_device``,
``dispatch_layout``, on both constructors) follow Note [Python metadata] in
_c10/py_interpreter.py.
"""

from __future__ import annotations

from ember._c10 import dtypes as _dtypes
from ember._c10.device import CPU
from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import DispatchKeySet
from ember._c10.geometry import _CONTIGUOUS_STRIDES
from ember._c10.layout import strided
from ember._c10.py_interpreter import (
    CUSTOM_DEVICE,
    CUSTOM_LAYOUT,
    interpreter,
    sizes_strides_policy_bits,
)
from ember._c10.storage import Storage, storage_nbytes, strided_storage_nbytes
from ember._c10.tensor_impl import PYTHON_KEY_BITS, contiguous_strides, device_key_bits
from ember._c10.thread_state import per_thread, thread_state
from ember._c10.tls import tls_is_dispatch_key_included
from ember._size import Size
from ember._tensor import Tensor, _alias_as, _defines_torch_dispatch, _disabled_torch_dispatch_impl
from ember._tensor_ctors import _new_from_data
from ember.aten.python_arg_convert import tp_name
from ember.aten.python_arg_parser import PythonArgParser
from ember.storage import checked_untyped

__all__ = ["make_wrapper_subclass", "make_subclass", "legacy_new", "as_subclass", "install"]

_wrapper_parser = PythonArgParser(
    [
        "_make_wrapper_subclass(PyObject* cls, SymIntArrayRef size, SymIntArrayRef? strides=None, "
        "SymInt? storage_offset=None, MemoryFormat? memory_format=None, ScalarType dtype=None, "
        "Layout layout=torch.strided, Device device=None, bool pin_memory=False, "
        "bool requires_grad=False, c10::string_view? dispatch_sizes_strides_policy=None, "
        "bool dispatch_device=False, bool dispatch_layout=False, "
        "PyObject* _extra_dispatch_keys=None, SymInt? storage_size=None)"
    ]
)
_subclass_parser = PythonArgParser(
    [
        "_make_subclass(PyObject* cls, Tensor data, bool require_grad=False, *, "
        "c10::string_view? dispatch_sizes_strides_policy=None, bool dispatch_device=False, "
        "bool dispatch_layout=False, Device? device_for_backend_keys=None)"
    ]
)


def _check_tensor_subtype(cls) -> None:
    if not isinstance(cls, type):
        raise TypeError(f"cls must be a type (got {tp_name(cls)})")
    if not issubclass(cls, Tensor):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
            "possible. Make sure your class inherits from Tensor."
        )


def _python_metadata_bits(policy, dispatch_device: bool, dispatch_layout: bool) -> int:
    """The bits of Note [Python metadata] the constructor's flags ask for."""
    bits = sizes_strides_policy_bits(policy)
    if dispatch_device:
        bits |= CUSTOM_DEVICE
    if dispatch_layout:
        bits |= CUSTOM_LAYOUT
    return bits


def _set_python_metadata(tensor, bits: int) -> None:
    if bits:
        interpreter.install(type(tensor))  # once per class
        tensor._python_metadata = bits


def _set_requires_grad(tensor, requires_grad: bool) -> None:
    if requires_grad:
        if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        tensor._requires_grad = True


_FAST_KEYWORDS = frozenset({"dtype", "device", "requires_grad", "layout", "strides"})
_UNSET = object()  # an argument not given


def _int_list(value):
    """A size or strides argument of plain ints (a Size, tuple or list) as a list, else None."""
    if value.__class__ not in (Size, tuple, list):
        return None
    for item in value:
        if item.__class__ is not int:
            return None
    return list(value)


def _fast_parse(args: tuple, kwargs: dict):
    """What the parser gives for the usual call, ``(cls, size, dtype=, device=,
    requires_grad=, layout=, strides=)`` with exact types; None sends it to the parser."""
    if len(args) != 2 or not kwargs.keys() <= _FAST_KEYWORDS:
        return None
    cls, size = args
    size = _int_list(size)
    dtype = kwargs.get("dtype")
    device = kwargs.get("device")
    requires_grad = kwargs.get("requires_grad", False)
    strides = kwargs.get("strides")
    if (
        size is None
        or not (dtype is None or dtype.__class__ is _dtypes.dtype)
        or not (device is None or device.__class__ is CPU.__class__)
        or requires_grad.__class__ is not bool
        or kwargs.get("layout", strided) is not strided
    ):
        return None
    if strides is not None:
        strides = _int_list(strides)
        if strides is None:
            return None
    return (
        cls, size, strides, None, None, dtype, strided, device, False, requires_grad, None,
        False, False, None, None,
    )  # fmt: skip


_SEQUENCES = (Size, tuple, list)
_DTYPE, _DEVICE = _dtypes.dtype, CPU.__class__
_TENSOR_TORCH_DISPATCH = Tensor.__dict__["__torch_dispatch__"]
_new_object = object.__new__
_STORAGE_MAX = 2**63 - 1


def _wrapper_entry(
    cls=_UNSET, size=_UNSET, *args, strides=None, dtype=None, device=None,
    requires_grad=False, layout=strided, **kwargs,
):  # fmt: skip
    """Tensor._make_wrapper_subclass: the usual call (see ``_usual_wrapper``) built here, in
    one frame, with its keywords bound by Python itself; any other call goes to
    ``make_wrapper_subclass`` unchanged."""
    if (
        not args
        and not kwargs
        and size.__class__ is Size  # ints, checked when it was made
        and isinstance(cls, type)
        and cls in _USUAL_CLASSES
        and (requires_grad is False or requires_grad is True)
        and layout is strided
        and (dtype is None or dtype.__class__ is _DTYPE)
        and (device is None or device is CPU)
        # still the __torch_dispatch__ it had when _usual_wrapper accepted it
        and getattr(cls, "__torch_dispatch__", None) == _USUAL_CLASSES[cls]
    ):
        if dtype is None:
            dtype = _dtypes.get_default_dtype()
        sizes = tuple(size)
        contiguous = _CONTIGUOUS_STRIDES.get(sizes)
        numel = _CONTIGUOUS_NUMEL.get(sizes)
        if (
            numel is not None
            and (strides is None or strides is contiguous)  # a tensor's own stride()
            and (not requires_grad or dtype.is_floating_point or dtype.is_complex)
            and numel * dtype.itemsize <= _STORAGE_MAX
        ):
            # TensorImpl._from_storage's fields, inline, for a contiguous layout of sizes
            # seen before
            storage = _new_object(Storage)
            storage.data = None
            storage.nbytes = numel * dtype.itemsize
            storage.device = CPU
            storage._data_ptr = None
            storage.resizable = True
            self = _new_object(cls)
            self._storage = storage
            self._array = None
            self._sizes = sizes
            self._strides = contiguous
            self._storage_offset = 0
            self.dtype = dtype
            self.device = CPU
            if per_thread.state.inference_mode:
                self._key_bits = _CPU_INFERENCE_WRAPPER_BITS
                self._is_inference = True
            else:
                self._key_bits = _CPU_WRAPPER_BITS
                self._is_inference = False
            self._requires_grad = requires_grad
            self._grad_fn = None
            self._python_dispatch = True
            return self
    if not args and not kwargs and size is not _UNSET:
        made = _usual_wrapper(cls, size, strides, dtype, device, requires_grad, layout)
        if made is not None:
            return made
    call = [a for a in (cls, size) if a is not _UNSET]
    named = {
        name: value
        for name, value, default in (
            ("strides", strides, None), ("dtype", dtype, None), ("device", device, None),
            ("requires_grad", requires_grad, False), ("layout", layout, strided),
        )
        if value is not default
    }  # fmt: skip
    return make_wrapper_subclass(*call, *args, **named, **kwargs)


# Classes _usual_wrapper has accepted, with the __torch_dispatch__ it found: the one-frame
# path above takes them while that handler is still the class's.
_USUAL_CLASSES: dict = {}
# sizes -> element count, for the sizes _usual_wrapper has made contiguous wrappers of
_CONTIGUOUS_NUMEL: dict = {}
_CPU_WRAPPER_BITS = device_key_bits(CPU, False) | PYTHON_KEY_BITS
_CPU_INFERENCE_WRAPPER_BITS = device_key_bits(CPU, True) | PYTHON_KEY_BITS


def _usual_wrapper(cls, size, strides, dtype, device, requires_grad, layout):
    """make_wrapper_subclass for the usual call -- ``_fast_parse``'s, with non-negative
    sizes and strides, a dtype and a device, a class that can hold it, no overflow --
    built at once; None sends the call to the general path, which decides as before."""
    if dtype is None:
        dtype = _dtypes.get_default_dtype()
    if device is None:
        device = CPU
    if (
        size.__class__ not in _SEQUENCES
        or dtype.__class__ is not _DTYPE
        or device.__class__ is not _DEVICE
        or (requires_grad is not False and requires_grad is not True)
        or layout is not strided
        or not isinstance(cls, type)
        or not issubclass(cls, Tensor)
        or (requires_grad and not (dtype.is_floating_point or dtype.is_complex))
    ):
        return None
    # _defines_torch_dispatch, inline (the general path raises for a class without one)
    handler = getattr(cls, "__torch_dispatch__", None)
    if (
        handler is None
        or getattr(handler, "__func__", handler) is _disabled_torch_dispatch_impl
        or Tensor.__dict__.get("__torch_dispatch__") is not _TENSOR_TORCH_DISPATCH
    ) and not _defines_torch_dispatch(cls):
        return None
    sizes = tuple(size)
    numel = 1
    for n in sizes:
        if n.__class__ is not int or n < 0:
            return None
        numel *= n
    if len(_USUAL_CLASSES) < 4096:
        _USUAL_CLASSES[cls] = handler
    if len(_CONTIGUOUS_NUMEL) < 4096:
        contiguous_strides(sizes)  # for the one-frame path: its strides, cached
        _CONTIGUOUS_NUMEL[sizes] = numel
    itemsize = dtype.itemsize
    if strides is None:
        strides = contiguous_strides(sizes)
        nbytes = numel * itemsize
    else:
        if strides.__class__ is not tuple:
            if strides.__class__ not in _SEQUENCES:
                return None
            strides = tuple(strides)
        for n in strides:
            if n.__class__ is not int or n < 0:
                return None
        if len(strides) != len(sizes):
            return None
        if numel == 0:
            nbytes = 0
        elif strides == contiguous_strides(sizes):
            nbytes = numel * itemsize  # the span of row-major strides is the element count
        else:
            span = 1
            for n, stride in zip(sizes, strides):
                span += (n - 1) * stride
            nbytes = span * itemsize
    if nbytes > _STORAGE_MAX:
        return None
    inference = per_thread.state.inference_mode
    self = _new_object(cls)  # TensorImpl._from_storage's fields, inline
    self._storage = Storage(None, nbytes, device)
    self._array = None
    self._sizes = sizes
    self._strides = strides
    self._storage_offset = 0
    self.dtype = dtype
    self.device = device
    self._key_bits = device_key_bits(device, inference) | PYTHON_KEY_BITS
    self._is_inference = inference
    self._requires_grad = requires_grad
    self._grad_fn = None
    self._python_dispatch = True
    return self


def make_wrapper_subclass(*args, **kwargs):
    """Tensor._make_wrapper_subclass: a ``cls`` tensor with metadata and a storage without data."""
    (
        cls, size, strides, storage_offset, _memory_format, dtype, _layout, device,
        _pin_memory, requires_grad, policy, dispatch_device, dispatch_layout, extra_keys,
        storage_size,
    ) = _fast_parse(args, kwargs) or _wrapper_parser.parse(args, kwargs)[1]  # fmt: skip
    _check_tensor_subtype(cls)
    if not _defines_torch_dispatch(cls):
        raise TypeError(f"{cls.__name__} must define __torch_dispatch__")
    if extra_keys is not None and not isinstance(extra_keys, DispatchKeySet):
        raise TypeError(
            "_make_wrapper_subclass(): argument '_extra_dispatch_keys' must be DispatchKeySet, "
            f"not {tp_name(extra_keys)}"
        )
    metadata = 0
    if policy is not None or dispatch_device or dispatch_layout:
        metadata = _python_metadata_bits(policy, dispatch_device, dispatch_layout)
    dtype = _dtypes.get_default_dtype() if dtype is None else dtype
    device = CPU if device is None else device
    sizes = tuple(size)
    itemsize = dtype.itemsize
    if storage_size is not None:
        nbytes = storage_size
    elif strides is not None:
        nbytes = strided_storage_nbytes(sizes, tuple(strides), itemsize, storage_offset or 0)
    else:
        nbytes = storage_nbytes(sizes, itemsize)
    if strides is None:
        if storage_offset is not None:
            raise RuntimeError("setting storage offset without stride not supported")
        strides = contiguous_strides(sizes)
    elif len(strides) != len(sizes):
        raise RuntimeError(
            f"dimensionality of sizes ({len(sizes)}) must match dimensionality of strides "
            f"({len(strides)})"
        )
    inference = thread_state().inference_mode
    key_bits = device_key_bits(device, inference) | PYTHON_KEY_BITS
    if extra_keys is not None:
        key_bits |= extra_keys.raw_repr()
    self = cls._from_storage(
        Storage(None, nbytes, device),
        sizes,
        tuple(strides),
        storage_offset or 0,
        dtype,
        device,
        key_bits=key_bits,
        inference=inference,
    )
    self._python_dispatch = True
    _set_requires_grad(self, requires_grad)
    if metadata:
        _set_python_metadata(self, metadata)
    return self


def make_subclass(*args, **kwargs):
    """Tensor._make_subclass: ``data`` detached, as a ``cls`` (same storage and version)."""
    (
        cls, data, require_grad, policy, dispatch_device, dispatch_layout, backend_device,
    ) = _subclass_parser.parse(args, kwargs)[1]  # fmt: skip
    _check_tensor_subtype(cls)
    metadata = _python_metadata_bits(policy, dispatch_device, dispatch_layout)
    if data._python_dispatch:  # `data.detach()` reaches its __torch_dispatch__
        detached = data.detach()
        if not isinstance(detached, cls):
            raise _already_associated(detached, cls)
    result = _alias_as(data, cls)
    _set_requires_grad(result, require_grad)
    if backend_device is not None:  # _change_backend_component_keys: the device keys only
        dispatches = result._key_bits & PYTHON_KEY_BITS
        result._key_bits = device_key_bits(backend_device, result._is_inference) | dispatches
    _set_python_metadata(result, metadata)
    return result


# -- torch.Tensor(...) ------------------------------------------------------------------

_legacy_parser = PythonArgParser(
    [
        "new(*, Device? device=None)",
        "new(Storage storage)",
        "new(Tensor other)",
        "new(Tensor other, *, Device? device=None)|hidden",
        "new(SymIntArrayRef size, *, Device? device=None)",
        "new(PyObject* data, *, Device? device=None)",
    ]
)


def _check_legacy_device(device) -> None:
    if device is not None and device.type != "cpu":
        raise RuntimeError(
            f"legacy constructor expects device type: cpu but device type: {device.type} was passed"
        )


def _is_sequence(obj) -> bool:
    """PySequence_Check: an object whose type has ``__getitem__``, dicts excepted."""
    return not isinstance(obj, dict) and hasattr(type(obj), "__getitem__")


def _legacy_tensor(args, kwargs, dtype=None):
    """torch.Tensor(...) (the default dtype) or a legacy typed constructor's (dtype given:
    torch.LongTensor(...), ember/_namespace/legacy_types.py)."""
    from ember._ops import ops

    if dtype is None:
        dtype = _dtypes.get_default_dtype()
    first = args[0] if args else None
    if len(args) == 1 and isinstance(first, (list, tuple)) and not isinstance(first, Size):
        # new(size) also binds new(sequence), whose first argument is then data unless it is a
        # Size (`arg == PyTuple_GET_ITEM(args, 0)` in tensor_new.cpp); PyTorch unpacks the ints
        # only on the size path, so a list of anything is data here.
        if not kwargs or set(kwargs) <= {"device"}:
            _check_legacy_device(_legacy_parser.parse((), kwargs)[1][0])
            return _new_from_data(first, dtype, CPU, False, "")
    index, values = _legacy_parser.parse(args, kwargs)
    if index == 0:
        _check_legacy_device(values[0])
        return ops.aten.empty.memory_format([0], dtype=dtype, layout=strided, device=CPU)
    if index == 1:
        storage = checked_untyped(values[0], dtype, _dtypes.scalar_type_name(dtype))
        result = Tensor._from_storage(
            storage, (storage.nbytes // dtype.itemsize,), (1,), 0, dtype, storage.device
        )
        return result
    if index == 2:
        return values[0].alias()
    if index == 3:
        raise RuntimeError(
            "Legacy tensor constructor of the form torch.Tensor(tensor, device=device) is not "
            "supported.  Use torch.tensor(...) or torch.as_tensor(...) instead."
        )
    data_or_size, device = values
    _check_legacy_device(device)
    if index == 4:
        return ops.aten.empty.memory_format(
            list(data_or_size), dtype=dtype, layout=strided, device=CPU
        )
    if not _is_sequence(data_or_size):
        raise TypeError(f"new(): data must be a sequence (got {tp_name(data_or_size)})")
    return _new_from_data(data_or_size, dtype, CPU, type_inference=False, warning="")


def _already_associated(result, cls) -> RuntimeError:
    return RuntimeError(
        f"Creating a new Tensor subclass {cls.__name__} but the raw Tensor object is already "
        f"associated to a python object of type {type(result).__name__} which is not a "
        "subclass of the requested type"
    )


def _new_with_var(cls, result):
    """THPVariable_NewWithVar: ``result`` as a ``cls`` object.

    A result that came out of Python (a subclass's ``__torch_dispatch__`` returns a subclass
    instance; under a mode, which puts the Python key in the TLS include set, every result
    does) already has its Python object: it is returned if it is a ``cls``, else refused.
    A fresh kernel result is re-wrapped as a ``cls`` sharing its data and autograd history.
    """
    if type(result) is cls:
        return result
    if type(result) is not Tensor or tls_is_dispatch_key_included(DispatchKey.Python):
        if not isinstance(result, cls):
            raise _already_associated(result, cls)
        return result
    rewrapped = _alias_as(result, cls)
    rewrapped._requires_grad = result._requires_grad
    rewrapped._grad_fn = result._grad_fn
    for name in ("_output_nr", "_base", "_view_info"):
        value = getattr(result, name)
        if value is not getattr(Tensor, name):
            setattr(rewrapped, name, value)
    return rewrapped


def legacy_new(cls, *args, **kwargs):
    """``torch.Tensor(...)`` / ``Subclass(...)``: the legacy constructor, as a ``cls``."""
    return _new_with_var(cls, _legacy_tensor(args, kwargs))


_as_subclass_parser = PythonArgParser(["as_subclass(PyObject* cls)"])


def as_subclass(self, *args, **kwargs):
    """Tensor.as_subclass: ``self.alias()`` (dispatched) as a ``cls``."""
    cls = _as_subclass_parser.parse(args, kwargs)[1][0]
    _check_tensor_subtype(cls)
    return _new_with_var(cls, self.alias())


def install(tensor_class) -> None:
    tensor_class._make_wrapper_subclass = staticmethod(_wrapper_entry)
    tensor_class._make_subclass = staticmethod(make_subclass)
    tensor_class.__new__ = staticmethod(legacy_new)
    tensor_class.as_subclass = as_subclass
