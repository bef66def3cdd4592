"""isTensorSubclassLike: whether a tensor (or an active dispatch mode) may not hold plain data.

Layer: aten. In: a tensor. Out: a bool. Mirrors ATen/TensorSubclassLikeUtils.h:
a Python-key tensor, a functorch or functionalization wrapper, a sparse or meta
tensor, or any tensor while a __torch_dispatch__ mode is active (and the Python key
is not excluded). Backward formulas (FunctionsManual.cpp's `areAnyTensorSubclassLike`)
take their composite-compliant path then; torch._C._dispatch_isTensorSubclassLike
answers with it.
"""

from __future__ import annotations

from ember._c10 import tls as _tls
from ember._c10.dispatch_key import BackendComponent, DispatchKey
from ember._c10.dispatch_key_set import DispatchKeySet
from ember._c10.thread_state import per_thread

__all__ = ["is_tensor_subclass_like", "are_any_tensor_subclass_like"]

_SUBCLASS_LIKE_BITS = (
    DispatchKeySet(
        [
            DispatchKey.FuncTorchGradWrapper, DispatchKey.FuncTorchBatched,
            DispatchKey.Functionalize, DispatchKey.Batched, DispatchKey.Sparse,
            DispatchKey.SparseCsr, DispatchKey.Python,
        ]
    ).raw_repr()
    | 1 << (BackendComponent.MetaBit - 1)
)  # fmt: skip
_PYTHON_BITS = DispatchKeySet(DispatchKey.Python).raw_repr()


def _mode_active() -> bool:
    state = per_thread.state
    if not (state.dispatch_modes or state.infra_modes):
        return False
    return not _tls.local_state.excluded & _PYTHON_BITS


def is_tensor_subclass_like(tensor) -> bool:
    return _mode_active() or bool(tensor._key_bits & _SUBCLASS_LIKE_BITS)


def are_any_tensor_subclass_like(*tensors) -> bool:
    if _mode_active():
        return True
    return any(t._key_bits & _SUBCLASS_LIKE_BITS for t in tensors)
