"""The record a functorch wrapper tensor carries, and making such a tensor.

Layer: _functorch. Mirrors the common part of aten/src/ATen/functorch/BatchedTensorImpl.h
and TensorWrapper.h: a wrapper is an ``ember.Tensor`` without storage whose key set is
its value's (the backend, autograd and autocast keys) plus the one key of its transform,
and whose ``_functorch`` slot holds a ``WrapperRecord`` (value, level). In: the wrapped
value. Out: the wrapper; ``Tensor.__repr__`` and ``bool()`` ask the record.
"""

from __future__ import annotations

import textwrap

from .._c10.dispatch_key import DispatchKey
from .._c10.dispatch_key_set import keys_bits
from .._c10.storage import Storage
from .._tensor import Tensor

_D = DispatchKey

# The keys a wrapper never takes from its value: the transforms' own and the Python keys.
WRAPPER_KEY_BITS = keys_bits(
    [_D.FuncTorchBatched, _D.FuncTorchGradWrapper, _D.Functionalize, _D.Python,
     _D.PythonTLSSnapshot, _D.BatchedNestedTensor]
)  # fmt: skip


class WrapperRecord:
    """What a functorch wrapper holds: the tensor one level down and its level.
    Subclasses say how the wrapper prints (``header``) and dumps (``dump``)."""

    __slots__ = ("value", "level")
    kind = ""  # "batched", "grad", "functional": what torch._C._functorch's is_* test

    def __init__(self, value, level: int) -> None:
        self.value = value
        self.level = level

    def header(self) -> str:
        raise NotImplementedError

    def repr(self) -> str:
        """_functorch_wrapper_str_intern: the header, then the value's repr indented."""
        inner = textwrap.indent(repr(self.value), " " * 4)
        return f"{self.header()}, value=\n{inner}\n)"

    def dump(self) -> str:
        raise NotImplementedError

    def check_bool(self) -> None:
        """bool(wrapper): allowed unless the transform refuses data-dependent control flow."""


def dump_tensor(tensor) -> str:
    """torch._C._functorch.dump_tensor's text: ``Batched[lvl=1 dim=0, Tensor[2, 3]]``."""
    record = tensor._functorch
    if record is None:
        return "Tensor[" + ", ".join(str(n) for n in tensor._sizes) + "]"
    return record.dump()


def make_wrapper(value, record: WrapperRecord, key: DispatchKey, sizes, strides) -> Tensor:
    """A storage-less ``Tensor`` of ``sizes``/``strides`` carrying ``record``, with the value's
    keys (less WRAPPER_KEY_BITS) and ``key``."""
    bits = (value._key_bits & ~WRAPPER_KEY_BITS) | keys_bits([key])
    tensor = Tensor._from_storage(
        Storage(None, 0, value.device),
        sizes,
        strides,
        0,
        value.dtype,
        value.device,
        key_bits=bits,
        inference=value._is_inference,
    )
    tensor._functorch = record
    return tensor
