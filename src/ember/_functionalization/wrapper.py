"""The functional tensor wrapper: a tensor with the Functionalize key wrapping a value.

Layer: _functionalization. In: plain tensors (``to_functional``) and the values the
Functionalize kernels compute below the key. Out: ``ember.Tensor`` objects whose
``_functional`` field holds the wrapper's state, and the operations on it that the kernels
and torch._sync / _from_functional_tensor use: sync, replace_, commit_update,
mutate_view_meta. Mirrors aten/src/ATen/FunctionalTensorWrapper.cpp and
FunctionalStorageImpl.cpp.

Note [Functional tensor wrappers]
---------------------------------
A wrapper is a plain ``ember.Tensor`` (``type(t) is Tensor``, as PyTorch's
FunctionalTensorWrapper is a TensorImpl behind torch.Tensor) whose storage holds no data
and whose key set is the value's plus Functionalize, less the functorch and Python keys.
Its sizes, strides, offset and dtype mirror the value's and are copied again whenever the
value is replaced. The state that belongs to functionalization lives in one field,
``_functional`` (a ``FunctionalTensorWrapper``): the value, the shared
``FunctionalStorage`` (the alias base and its queued updates), the ViewMetas that regenerate
this tensor from the base, the generation it last saw, the functorch level.

Mutations are queued, not applied: ``commit_update`` appends (new value, ViewMetas) to
the storage and bumps its generation. A wrapper whose generation lags its storage's is
out of date; ``sync`` applies the queued updates to the base (each view's inverse, in
reverse order: PyTorch's note "Functionalization: Alias Removal Part 2") and replays
the wrapper's ViewMetas off the new base. Every op these steps run goes through the
dispatcher with Functionalize excluded, so a dispatch mode below sees them.
"""

from __future__ import annotations

import threading

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import key_bits, keys_bits
from ember._c10.storage import Storage, strided_storage_nbytes
from ember._c10.tensor_impl import PYTHON_KEY_BITS
from ember._c10.thread_state import per_thread
from ember._tensor import Tensor
from ember.aten.native import at

__all__ = [
    "FUNCTIONALIZE_BITS",
    "FunctionalStorage",
    "FunctionalTensorWrapper",
    "ViewMeta",
    "commit_update",
    "from_functional",
    "functional_state",
    "is_functional",
    "make_view_wrapper",
    "mutate_view_meta",
    "reapply_views",
    "replace_",
    "replace_storage",
    "set_reapply_views",
    "skip_functionalize",
    "sync",
    "to_functional",
]

FUNCTIONALIZE_BITS = key_bits(DispatchKey.Functionalize)
# c10::functorch_transforms_ks | python_ks: keys a wrapper never copies from its value.
_NOT_COPIED = PYTHON_KEY_BITS | keys_bits(
    [
        DispatchKey.FuncTorchBatched,
        DispatchKey.FuncTorchVmapMode,
        DispatchKey.Batched,
        DispatchKey.VmapMode,
        DispatchKey.FuncTorchGradWrapper,
    ]
)


class _ReapplyViews(threading.local):
    """FunctionalizationReapplyViewsTLS: views stay views (True) or become *_copy ops."""

    enabled = False


_reapply = _ReapplyViews()


def reapply_views() -> bool:
    return _reapply.enabled


def set_reapply_views(enabled: bool) -> bool:
    """Set the thread's flag; returns the previous value (for a guard to restore)."""
    prev, _reapply.enabled = _reapply.enabled, bool(enabled)
    return prev


class skip_functionalize:  # noqa: N801 (at::AutoDispatchSkipFunctionalize)
    """Exclude Functionalize for the block: ops run on the values, below the key."""

    __slots__ = ("_prev",)

    def __enter__(self):
        ts = per_thread.state
        self._prev = ts.excluded
        ts.excluded = self._prev | FUNCTIONALIZE_BITS

    def __exit__(self, *exc):
        per_thread.state.excluded = self._prev


class ViewMeta:
    """How a view was made from its base (``forward(base)``) and how a mutated view goes
    back into its base (``reverse(base, mutated_view)``); ``out_index`` picks one output
    of a multi-output view (split, unbind)."""

    __slots__ = ("name", "forward", "reverse", "out_index", "is_multi_output")

    def __init__(self, name, forward, reverse, out_index=0, is_multi_output=False):
        self.name = name
        self.forward = forward
        self.reverse = reverse
        self.out_index = out_index
        self.is_multi_output = is_multi_output


class FunctionalStorage:
    """FunctionalStorageImpl: the alias base every view of it shares, and the queued
    updates (value, ViewMetas) not yet applied to it."""

    __slots__ = ("base", "original_base", "updates", "generation", "frozen", "nbytes")

    def __init__(self, base) -> None:
        self.nbytes = _nbytes(base)
        self.base = base
        self.original_base = base
        self.updates: list[tuple] = []
        self.generation = 0
        self.frozen = False

    def add_update(self, value, metas) -> None:
        if self.frozen:
            raise RuntimeError("cannot mutate tensors with frozen storage")
        self.updates.append((value, tuple(metas)))
        self.generation += 1

    def apply_updates(self) -> bool:
        any_updates = bool(self.updates)
        with skip_functionalize():
            for value, metas in self.updates:
                self.base = _apply_update(value, metas, self.base)
        self.updates.clear()
        return any_updates


def _apply_update(value, metas, base):
    """Put a mutated view back into the base: each view's inverse, innermost first."""
    if not metas:
        return value
    bases = [base]
    for meta in metas[:-1]:
        bases.append(meta.forward(bases[-1]))
    t = value
    for i in range(len(metas) - 1, -1, -1):
        t = metas[i].reverse(bases[i], t)
    return t


class FunctionalTensorWrapper:
    """The functionalization state of a wrapper tensor. See Note [Functional tensor wrappers]."""

    __slots__ = ("value", "storage", "view_metas", "generation", "level",
                 "has_metadata_mutation", "mutation_counter")  # fmt: skip

    def __init__(self, value, storage, view_metas=()) -> None:
        self.value = value
        self.storage = storage
        self.view_metas = list(view_metas)
        self.generation = 0
        self.level = -1
        self.has_metadata_mutation = False
        self.mutation_counter = 0


def _nbytes(value) -> int:
    return strided_storage_nbytes(value._sizes, value._strides, value.dtype.itemsize,
                                  value._storage_offset)  # fmt: skip


def _wrapper_tensor(value, state: FunctionalTensorWrapper) -> Tensor:
    """A Tensor carrying ``state``, its metadata mirroring ``value``'s."""
    t = object.__new__(Tensor)
    t._storage = Storage(None, state.storage.nbytes, value.device)
    t._array = None
    t._sizes = value._sizes
    t._strides = value._strides
    t._storage_offset = value._storage_offset
    t.dtype = value.dtype
    t.device = value.device
    t._key_bits = (value._key_bits | FUNCTIONALIZE_BITS) & ~_NOT_COPIED
    t._is_inference = value._is_inference
    t._requires_grad = False
    t._grad_fn = None
    if not value._is_inference:
        t._version_counter = value.version_counter()
    t._functional = state
    return t


def functional_state(t) -> FunctionalTensorWrapper | None:
    """The wrapper state of ``t``, or None for any other tensor."""
    if t._key_bits & FUNCTIONALIZE_BITS:
        return t.__dict__.get("_functional")
    return None


def is_functional(t) -> bool:
    return isinstance(t, Tensor) and functional_state(t) is not None


def to_functional(value) -> Tensor:
    """to_functional_tensor: a fresh wrapper (and storage) over ``value``; a wrapped
    Python number stays as it is (PyTorch's note "Wrapped Numbers <> Functionalization")."""
    if value._is_wrapped_number:
        return value
    if functional_state(value) is not None:
        raise RuntimeError(
            "!at::functionalization::impl::isFunctionalTensor(base_) INTERNAL ASSERT FAILED "
            'at "/__w/pytorch/pytorch/aten/src/ATen/FunctionalStorageImpl.cpp":105, please '
            "report a bug to PyTorch. "
        )
    return _wrapper_tensor(value, FunctionalTensorWrapper(value, FunctionalStorage(value)))


def from_functional(t):
    """from_functional_tensor: the value a wrapper holds (not synced)."""
    state = functional_state(t)
    return t if state is None else state.value


def make_view_wrapper(view_value, base, meta: ViewMeta) -> Tensor:
    """create_functional_tensor_with_view_meta: a wrapper sharing ``base``'s storage, its
    ViewMetas those of base plus ``meta``."""
    base_state = base._functional
    state = FunctionalTensorWrapper(view_value, base_state.storage, base_state.view_metas)
    state.view_metas.append(meta)
    return _wrapper_tensor(view_value, state)


def _mirror(t, value) -> None:
    """Copy the value's geometry onto the wrapper (the custom sizes policy, eagerly)."""
    t._sizes = value._sizes
    t._strides = value._strides
    t._storage_offset = value._storage_offset
    t._array = None


def replace_(t, other, from_lazy_regenerate: bool = False) -> None:
    """The wrapper now holds ``other``; a dtype the wrapper does not have is cast back."""
    state = t._functional
    state.value = other
    _mirror(t, other)
    if other.dtype is not t.dtype:
        with skip_functionalize():
            state.value = at._to_copy(other, t.dtype, None, None, None, False, None)
    if not from_lazy_regenerate:
        state.mutation_counter += 1


def commit_update(t) -> None:
    state = t._functional
    state.storage.add_update(state.value, state.view_metas)


def regenerate_from_base(t) -> None:
    state = t._functional
    with skip_functionalize():
        value = state.storage.base
        for meta in state.view_metas:
            value = meta.forward(value)
    replace_(t, value, from_lazy_regenerate=True)
    state.generation = state.storage.generation


def sync(t) -> None:
    """Bring a wrapper up to date with its storage (a no-op for other tensors)."""
    if not isinstance(t, Tensor) or t._is_wrapped_number:
        return
    state = functional_state(t)
    if state is None or state.generation == state.storage.generation:
        return
    state.storage.apply_updates()
    regenerate_from_base(t)


def replace_storage(t, value) -> None:
    """maybe_replace_storage: resize_ grew a tensor that is no view (and has none): it gets
    a fresh storage over the grown value."""
    state = t._functional
    if state.view_metas:
        raise RuntimeError(
            "Attempted to resize a view tensor to a larger size. This is not allowed in the "
            "functionalization pass"
        )
    state.storage = FunctionalStorage(value)
    state.value = value
    state.generation = 0
    state.has_metadata_mutation = True
    t._storage = Storage(None, state.storage.nbytes, value.device)
    _mirror(t, value)


def mutate_view_meta(t, meta: ViewMeta) -> None:
    """An in-place view op (transpose_, squeeze_...): the wrapper's own ViewMetas grow."""
    state = t._functional
    state.view_metas.append(meta)
    state.has_metadata_mutation = True
    with skip_functionalize():
        state.value = meta.forward(state.value)
    _mirror(t, state.value)
