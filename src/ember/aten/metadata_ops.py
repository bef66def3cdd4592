"""The metadata operators: ``aten::dim``, ``aten::sym_size``, ``prim::device``... and their kernels.

Layer: aten (imports _c10, _dispatch and aten's registration). Mirrors the schemas PyTorch
defines with ``manual_cpp_binding`` in native_functions.yaml (dim, numel, is_contiguous,
size.int, stride.int, sym_size.int, sym_stride.int, sym_numel, sym_storage_offset) and those of
torch/csrc/jit/runtime/register_prim_ops.cpp (aten::size, aten::stride, aten::sym_size, aten::sym_stride,
aten::is_strides_like_format, aten::is_non_overlapping_and_dense, prim::device,
prim::layout). In: nothing. Out: the operators, each with a CompositeImplicitAutograd
kernel that asks the tensor, so that a tensor with Python metadata answers through its
``__torch_dispatch__`` (Note [Python metadata] in _c10/py_interpreter.py). They have no
Python bindings, as in PyTorch: ``Tensor.dim`` and friends are hand-written.
"""

from __future__ import annotations

from ember._c10.dispatch_key import DispatchKey
from ember._c10.py_interpreter import CUSTOM_STRIDES, interpreter
from ember._dispatch.dispatcher import dispatcher
from ember._dispatch.schema_parser import parse_schema
from ember.aten.native.copy import _Format
from ember.aten.native.layout import is_non_overlapping_and_dense as _dense
from ember.aten.native.layout import memory_format_name
from ember.aten.registration import _debug, define, impl

_ATEN = (
    ("dim(Tensor self) -> int", "dim"),
    ("numel(Tensor self) -> int", "numel"),
    ("is_contiguous(Tensor self) -> bool", "is_contiguous"),
    ("is_contiguous.memory_format(Tensor self, MemoryFormat memory_format) -> bool",
     "is_contiguous_memory_format"),
    ("size(Tensor self) -> int[]", "sym_size"),
    ("size.int(Tensor self, int dim) -> int", "sym_size_int"),
    ("stride(Tensor self) -> int[]", "sym_stride"),
    ("stride.int(Tensor self, int dim) -> int", "sym_stride_int"),
    ("sym_size(Tensor self) -> SymInt[]", "sym_size"),
    ("sym_size.int(Tensor self, int dim) -> SymInt", "sym_size_int"),
    ("sym_stride(Tensor self) -> SymInt[]", "sym_stride"),
    ("sym_stride.int(Tensor self, int dim) -> SymInt", "sym_stride_int"),
    ("sym_numel(Tensor self) -> SymInt", "numel"),
    ("sym_storage_offset(Tensor self) -> SymInt", "sym_storage_offset"),
    ("sym_is_contiguous(Tensor self, MemoryFormat memory_format=contiguous_format) -> SymBool",
     "is_contiguous_memory_format"),
    ("is_strides_like_format(Tensor self, MemoryFormat memory_format) -> bool",
     "is_strides_like_format"),
    ("is_non_overlapping_and_dense(Tensor self) -> bool", "is_non_overlapping_and_dense"),
)  # fmt: skip


def dim(self) -> int:
    return self.dim()


def numel(self) -> int:
    return self.numel()


def is_contiguous(self) -> bool:
    return self.is_contiguous()


def is_contiguous_memory_format(self, memory_format) -> bool:
    return self.is_contiguous(memory_format=_Format(memory_format_name(memory_format)))


def sym_size(self) -> list:
    return list(self.size())


def sym_size_int(self, dim: int) -> int:
    return self.size(dim)


def sym_stride(self) -> list:
    return list(self.stride())


def sym_stride_int(self, dim: int) -> int:
    return self.stride(dim)


def sym_storage_offset(self) -> int:
    return self.storage_offset()


# The dims is_channels_last_strides_2d_s4 / _3d_s5 (c10/core/MemoryFormat.h) walk.
_CHANNELS_LAST_ORDER = {"channels_last": (1, 3, 2, 0), "channels_last_3d": (1, 4, 3, 2, 0)}


def strides_like_channels_last(sizes, strides, name: str) -> bool:
    """Whether the strides are those of a channels-last layout of rank 4 (``channels_last``)
    or 5 (``channels_last_3d``), ambiguous cases counting as contiguous, as c10 decides."""
    order = _CHANNELS_LAST_ORDER[name]
    if len(sizes) != len(order):
        return False
    if strides[1] == 0:
        return False
    smallest = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < smallest:
            return False
        if d == 0 and smallest == strides[1]:
            return False
        smallest = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def is_strides_like_format(self, memory_format) -> bool:
    if self._python_metadata & CUSTOM_STRIDES:
        return interpreter.is_strides_like(self, memory_format)
    name = memory_format_name(memory_format)
    if name not in ("channels_last", "channels_last_3d"):
        return False
    return strides_like_channels_last(self._sizes, self._strides, name)


def is_non_overlapping_and_dense(self) -> bool:
    if self._python_metadata & CUSTOM_STRIDES:
        return interpreter.is_non_overlapping_and_dense(self)
    return _dense(self)


def device(a):
    return a.device


def layout(a):
    return a.layout


def _register() -> None:
    kernels = globals()
    for schema, kernel in _ATEN:
        define(schema)
        impl(schema.split("(", 1)[0], "CompositeImplicitAutograd", kernels[kernel])
    dispatcher.register_library("prim", _debug(1))
    for schema, kernel in (("device(Tensor a) -> Device", device),
                           ("layout(Tensor a) -> Layout", layout)):  # fmt: skip
        dispatcher.register_def(parse_schema("prim::" + schema), _debug(1), "FROM_SCHEMA")
        name = "prim::" + schema.split("(", 1)[0]
        dispatcher.register_impl(name, DispatchKey.CompositeImplicitAutograd, kernel, _debug(1))


_register()
