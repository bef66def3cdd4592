"""The Tensor methods PyTorch binds by hand: to, float() ..., type, new_tensor, copy_, size...

Layer: torch face (above aten). In: a Tensor and Python arguments, bound by
the argument parser with the signatures of python_variable_methods.cpp. Out:
the result of the aten overload PyTorch's binding would call (so
__torch_dispatch__ and tracing see the same operators), or `self` when
nothing changes; for the metadata methods (size, stride, numpy, item,
tolist) the value, with PyTorch's refusals of bad arguments. Mirrors
THPVariable_to / parse_to_conversion / dispatch_to, THPVariable_float & co.,
THPVariable_type, THPVariable_copy_, THPVariable_size / stride / numpy and
THPVariable_new_tensor in torch/csrc/autograd/python_variable_methods.cpp and
tensor_new.cpp. `install(Tensor)` puts them on ember.Tensor (ember/__init__.py
calls it).
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.device import CPU
from ember._c10.naming import prefix
from ember._c10.tensor_impl import compute_numel
from ember._size import Size
from ember._tensor import Tensor, _wrap_dim
from ember.aten import torch_function
from ember.aten.binding import check_target_device, handle, wrap_number
from ember.aten.python_arg_convert import type_name_of
from ember.aten.python_arg_parser import PythonArgParser, no_arguments, no_arguments_method

__all__ = ["install"]

_to_parser = PythonArgParser(
    [
        "to(Device device=None, ScalarType dtype=None, bool non_blocking=False, bool copy=False, "
        "*, MemoryFormat? memory_format=None)",
        "to(ScalarType dtype, bool non_blocking=False, bool copy=False, *, "
        "MemoryFormat? memory_format=None)",
        "to(Tensor tensor, bool non_blocking=False, bool copy=False, *, "
        "MemoryFormat? memory_format=None)",
    ],
    numbers_as_tensors=True,
)
_to_dtype = handle("to.dtype")
_to_device = handle("to.device")
_to_dtype_layout = handle("to.dtype_layout")


def to(self, *args, **kwargs):
    """Tensor.to(dtype) / to(device, dtype) / to(other), with non_blocking, copy, memory_format."""
    index, values = _to_parser.parse(args, kwargs, self=self)
    if index == 0:
        device, dtype, non_blocking, copy, memory_format = values
    elif index == 1:
        dtype, non_blocking, copy, memory_format = values
        device = None
    else:
        other, non_blocking, copy, memory_format = values
        other = wrap_number(other)  # `t.to(1.5)`: a number stands for a wrapped tensor
        device, dtype = other.device, other.dtype
    if device is not None and device.type != "cpu" and device.type != "meta":
        check_target_device(device)
    if device is None and dtype is None:
        if not copy and memory_format is None:
            return self
        return _to_dtype_layout.call(
            self, self.dtype, None, self.device, None, non_blocking, copy, memory_format
        )
    if device is None:
        return _to_dtype.call(self, dtype, non_blocking, copy, memory_format)
    if dtype is None:
        return _to_dtype_layout.call(
            self, self.dtype, None, device, None, non_blocking, copy, memory_format
        )
    return _to_device.call(self, device, dtype, non_blocking, copy, memory_format)


def _converter(name: str, dtype):
    parser = PythonArgParser([f"{name}(*, MemoryFormat? memory_format=None)"])

    def convert(self, *args, **kwargs):
        memory_format = parser.parse(args, kwargs, self=self)[1][0] if args or kwargs else None
        return _to_dtype.call(self, dtype, False, False, memory_format)

    convert.__name__ = name
    convert.__doc__ = f"self.to({dtype}) (Tensor.{name})"
    return convert


_CONVERSIONS = {
    "float": dtypes.float32, "double": dtypes.float64, "half": dtypes.float16,
    "bfloat16": dtypes.bfloat16, "long": dtypes.int64, "int": dtypes.int32,
    "short": dtypes.int16, "char": dtypes.int8, "byte": dtypes.uint8, "bool": dtypes.bool,
    "cfloat": dtypes.complex64, "cdouble": dtypes.complex128,
}  # fmt: skip


_cpu_parser = PythonArgParser(["cpu(*, MemoryFormat? memory_format=None)"])


def cpu(self, *args, **kwargs):
    """Tensor.cpu(): self when already on cpu, else a copy there."""
    memory_format = _cpu_parser.parse(args, kwargs, self=self)[1][0] if args or kwargs else None
    return _to_dtype_layout.call(self, self.dtype, None, CPU, None, False, False, memory_format)


def _type_string(self) -> str:
    module = prefix() if self.device.type == "cpu" else f"{prefix()}.{self.device.type}"
    return f"{module}.{dtypes.scalar_type_name(self.dtype)}Tensor"


_TYPE_NAMES = {dtypes.scalar_type_name(d) + "Tensor": d for d in dtypes.ALL_DTYPES}
_type_parser = PythonArgParser(
    [
        "type(PyObject* dtype=None, bool non_blocking=False, *, MemoryFormat? memory_format=None)",
        "type(PyObject* dtype=None, bool async=False, *, MemoryFormat? memory_format=None)"
        "|deprecated",
    ]
)
_NO_CUDA = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two "
    "shared libraries: a CPU library and a CUDA library; this error has occurred because you "
    "are trying to use some CUDA functionality, but the CUDA library has not been loaded by "
    "the dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't "
    "directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if this "
    "has occurred by using ldd on your binary to see if there is a dependency on *_cuda.so "
    "library."
)
_TENSOR_CLASS = []  # the class install() put `type` on: type(Tensor) means the default type


def _dtype_of_type_name(name: str):
    """options_from_string: 'torch.Tensor' is the default type, 'torch.<Name>Tensor' a cpu
    type; a 'torch.cuda.' name needs CUDA, which ember (like a CPU build) has not."""
    module, _, last = name.rpartition(".")
    if module in ("ember.cuda", "torch.cuda") or name.startswith(("ember.cuda.", "torch.cuda.")):
        raise RuntimeError(_NO_CUDA)
    if module in ("ember", "torch"):
        if last == "Tensor":
            return dtypes.get_default_dtype()
        if last in _TYPE_NAMES:
            return _TYPE_NAMES[last]
    raise ValueError(f"invalid type: '{name}'")


def type_(self, *args, **kwargs):
    """Tensor.type(): the type string ('ember.FloatTensor'); Tensor.type(dtype, a type name
    or a tensor type): the conversion (THPVariable_type)."""
    _, (dtype, non_blocking, memory_format) = _type_parser.parse(args, kwargs, self=self)
    if dtype is None:
        return _type_string(self)
    if dtype.__class__ is dtypes.dtype:
        if dtype is self.dtype:
            return self
        return _to_dtype.call(self, dtype, non_blocking, False, memory_format)
    if isinstance(dtype, type):
        tensor_class = _TENSOR_CLASS[0] if _TENSOR_CLASS else None
        if dtype is tensor_class:
            name = f"{prefix()}.Tensor"
        elif type(dtype).__name__ == "tensortype":  # torch.LongTensor (_namespace/legacy_types)
            name = f"{prefix()}.{dtype.__name__}"
        else:
            name = type_name_of(dtype)
    elif isinstance(dtype, str):
        name = dtype
    else:
        raise TypeError("dtype must be a type, str, or dtype object")
    target = _dtype_of_type_name(name)
    if target is self.dtype and self.device == CPU:
        return self
    return _to_device.call(self, CPU, target, non_blocking, False, memory_format)


# -- the metadata methods of python_variable_methods.cpp (argument-checked) --------------

_size_parser = PythonArgParser(["size(int64_t? dim=None)"])
_stride_parser = PythonArgParser(["stride(int64_t? dim=None)"])
_numpy_parser = PythonArgParser(["numpy(*, bool force=False)"])
# The plain methods of _tensor.py that the checked ones below call (install may run twice).
_TENSOR_NUMPY, _TENSOR_TOLIST = Tensor.numpy, Tensor.tolist


def size(self, *args, **kwargs):
    if not kwargs:
        if not args:
            return Size(self._sizes)
        if len(args) == 1:  # t.size(0): a plain int in range needs no parser
            dim = args[0]
            sizes = self._sizes
            if dim.__class__ is int and -len(sizes) <= dim < len(sizes):
                return sizes[dim]
    dim = _size_parser.parse(args, kwargs, self=self)[1][0]
    if dim is None:
        return Size(self._sizes)
    return self._sizes[_wrap_dim(dim, len(self._sizes))]


def stride(self, *args, **kwargs):
    if not kwargs:
        if not args:
            return self._strides
        if len(args) == 1:
            dim = args[0]
            strides = self._strides
            if dim.__class__ is int and -len(strides) <= dim < len(strides):
                return strides[dim]
    dim = _stride_parser.parse(args, kwargs, self=self)[1][0]
    if dim is None:
        return self._strides
    return self._strides[_wrap_dim(dim, len(self._sizes))]


def numpy(self, *args, **kwargs):
    force = _numpy_parser.parse(args, kwargs, self=self)[1][0] if args or kwargs else False
    array = _TENSOR_NUMPY(self, force=force)
    self.storage().resizable = False  # tensor_to_numpy: NumPy now shares the memory
    return array


# Tensor methods that are METH_NOARGS in torch (besides the generated ones, tolist, and
# detach_ / retain_grad of autograd/variable.py); tests/test_binding_overloads.py derives
# the list from torch and compares.
NO_ARGUMENT_METHODS = (
    "data_ptr", "element_size", "get_device", "is_complex", "is_floating_point",
    "is_inference", "is_signed", "ndimension", "nelement", "storage_offset",
    "untyped_storage", "dim", "numel", "_is_view", "_is_zerotensor",
)  # fmt: skip


# dim() and numel() are called often: their checked forms compute inline.
def _dim(self, *args, **kwargs):
    if args or kwargs:
        no_arguments(self, "dim", args, kwargs)
    return len(self._sizes)


def _numel(self, *args, **kwargs):
    if args or kwargs:
        no_arguments(self, "numel", args, kwargs)
    return compute_numel(self._sizes)


_dim.__name__ = _dim.__qualname__ = "dim"
_numel.__name__ = _numel.__qualname__ = "numel"
_dim.takes_no_arguments = _numel.takes_no_arguments = True
_INLINE = {"dim": _dim, "numel": _numel}


_new_tensor_parser = PythonArgParser(
    [
        "new_tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None, "
        "bool requires_grad=False)"
    ]
)


def new_tensor(self, *args, **kwargs):
    """Tensor.new_tensor: like ember.tensor, but dtype and device default to self's."""
    from ember._tensor_ctors import _COPY_WARNING, _check_requires_grad, _new_from_data

    data, dtype, device, requires_grad = _new_tensor_parser.parse(args, kwargs, self=self)[1]
    result = _new_from_data(
        data,
        dtype if dtype is not None else self.dtype,
        device if device is not None else self.device,
        type_inference=False,
        warning=_COPY_WARNING.format("tensor.new_tensor"),
    )
    return _check_requires_grad(result, requires_grad)


# THPVariable_copy_: PyTorch binds Tensor.copy_ by hand, its argument named `other`.
_copy_parser = PythonArgParser(
    [
        "copy_(Tensor other, bool non_blocking=False)",
        "copy_(Tensor other, bool async=False)|deprecated",
    ],
    numbers_as_tensors=True,
)
_copy = handle("copy_")


def copy_(self, *args, **kwargs):
    """Tensor.copy_(other, non_blocking=False)."""
    if not kwargs and len(args) == 1 and args[0].__class__ is Tensor:
        return _copy.call(self, args[0], False)
    other, non_blocking = _copy_parser.parse(args, kwargs, self=self)[1]
    return _copy.call(self, wrap_number(other), non_blocking)


_type_as_parser = PythonArgParser(["type_as(Tensor other)"])


def type_as(self, *args, **kwargs):
    """Tensor.type_as (CompositeImplicitAutograd): self.to(other.options())."""
    other = _type_as_parser.parse(args, kwargs, self=self)[1][0]
    return to(self, other.device, other.dtype)


def contains(self, element, /) -> bool:
    """Tensor.__contains__ (torch/_tensor.py): a tensor or a number, compared elementwise."""
    if isinstance(element, (Tensor, bool, int, float, complex)):
        return bool((element == self).any().item())
    raise RuntimeError(
        f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}."
    )


def install(tensor_class) -> None:
    """Put `to`, the dtype conversions, `cpu`, `type`, `new_tensor` and the argument-checked
    `size`, `stride`, `numpy`, `item`, `tolist` on ember.Tensor."""
    tensor_class.to = to
    tensor_class.cpu = cpu
    tensor_class.type = type_
    _TENSOR_CLASS[:] = [tensor_class]
    tensor_class.new_tensor = new_tensor
    tensor_class.size = size
    tensor_class.copy_ = copy_
    tensor_class.stride = stride
    tensor_class.numpy = numpy
    tensor_class.tolist = no_arguments_method(_TENSOR_TOLIST, "tolist")
    for name in NO_ARGUMENT_METHODS:
        checked = _INLINE.get(name) or no_arguments_method(getattr(tensor_class, name), name)
        setattr(tensor_class, name, checked)
    tensor_class.type_as = type_as
    tensor_class.__contains__ = contains
    for name, dtype in _CONVERSIONS.items():
        setattr(tensor_class, name, _converter(name, dtype))
    torch_function.install(tensor_class)  # the new methods consult __torch_function__
