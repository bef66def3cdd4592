"""Tensor.set_, bound by hand as PyTorch binds it: its five signatures, and the dtype checks
that only the Python method makes.

Layer: torch face (with _tensor_ctors). In: ``t.set_()``, ``t.set_(storage)``,
``t.set_(storage, offset, size, stride=None)``, ``t.set_(tensor)``, ``t.set_(tensor,
offset, size, stride=None)``, a storage being untyped (``u.untyped_storage()``) or typed
(``ember.Storage()``). Out: the aten ``set_`` overload's result, ``t``. Mirrors
THPVariable_set_ of torch/csrc/autograd/python_variable_methods.cpp: a typed storage must
have ``t``'s dtype, and so must a source tensor given alone (an operator call through
``ember.ops.aten`` checks neither, as PyTorch's does not).
"""

from __future__ import annotations

from ember._c10.storage import Storage
from ember.aten.binding import handle
from ember.aten.native.common import type_meta_name
from ember.aten.python_arg_parser import PythonArgParser
from ember.storage import checked_untyped

__all__ = ["set_"]

_parser = PythonArgParser(
    [
        "set_()",
        "set_(Storage source)",
        "set_(Storage source, SymInt storage_offset, SymIntArrayRef size, "
        "SymIntArrayRef stride=None)",
        "set_(Tensor source)",
        "set_(Tensor source, SymInt storage_offset, SymIntArrayRef size, "
        "SymIntArrayRef stride=None)",
    ]
)
_set_ = handle("set_")
_set_storage = handle("set_.source_Storage")
_set_storage_offset = handle("set_.source_Storage_storage_offset")
_set_tensor = handle("set_.source_Tensor")
_set_tensor_offset = handle("set_.source_Tensor_storage_offset")


def _untyped(self, source) -> Storage:
    """The untyped storage of ``source``; a typed one must have ``self``'s dtype."""
    return checked_untyped(source, self.dtype, type_meta_name(self.dtype))


def set_(self, *args, **kwargs):
    """Tensor.set_(): see the module's docstring for the signatures."""
    index, values = _parser.parse(args, kwargs, self=self)
    if index == 0:
        return _set_.call(self)
    if index == 1:
        return _set_storage.call(self, _untyped(self, values[0]))
    if index == 2:
        source, offset, size, stride = values
        return _set_storage_offset.call(self, _untyped(self, source), offset, size, stride or [])
    if index == 3:
        source = values[0]
        if source.dtype != self.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {type_meta_name(source.dtype)} to a tensor of "
                f"type {type_meta_name(self.dtype)}"
            )
        return _set_tensor.call(self, source)
    source, offset, size, stride = values
    return _set_tensor_offset.call(self, source, offset, size, stride or [])


def install(tensor_class) -> None:
    tensor_class.set_ = set_
