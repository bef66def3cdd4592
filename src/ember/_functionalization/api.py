"""The torch-level faces of functionalization, and the pieces functorch's transform uses.

Layer: _functionalization. In: tensors from Python. Out: torch._to_functional_tensor,
_from_functional_tensor, _sync, _is_functional_tensor, _enable_functionalization,
_disable_functionalization, _functionalize_sync and the torch._C flag
_functionalization_reapply_views_tls; for torch._C._functorch and
torch.func.functionalize: wrap_functional_tensor (with a level), unwrap_functional_tensor
and propagate_functional_input_mutation. Mirrors torch/csrc/autograd/python_torch_functions_manual.cpp's
functionalization bindings and torch/csrc/functorch/init.cpp.
"""

from __future__ import annotations

from ember._c10.thread_state import per_thread
from ember._tensor import Tensor
from ember.aten.native import at

from .wrapper import (
    FUNCTIONALIZE_BITS,
    commit_update,
    from_functional,
    functional_state,
    reapply_views,
    regenerate_from_base,
    replace_,
    set_reapply_views,
    skip_functionalize,
    sync,
    to_functional,
)

__all__ = [
    "_disable_functionalization",
    "_freeze_functional_tensor",
    "_functionalize_commit_update",
    "_functionalize_enable_reapply_views",
    "_functionalize_has_data_mutation",
    "_functionalize_has_metadata_mutation",
    "_functionalize_is_multi_output_view",
    "_functionalize_replace",
    "_is_functional_tensor_base",
    "_enable_functionalization",
    "_from_functional_tensor",
    "_functionalization_reapply_views_tls",
    "_functionalize_sync",
    "_is_functional_tensor",
    "_sync",
    "_to_functional_tensor",
    "from_functional",
    "functional_level",
    "functional_parts",
    "propagate_functional_input_mutation",
    "set_functional_level",
    "unwrap_functional_tensor",
    "wrap_functional_tensor",
]

_NOT_FUNCTIONAL = (
    '!assert_functional INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/'
    'FunctionalTensorWrapper.cpp":560, please report a bug to PyTorch. '
)
_NESTED_MODE = (
    'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/torch/csrc/autograd/'
    'python_torch_functions_manual.cpp":821, please report a bug to PyTorch. '
    "multiple layers of mode-style functionalization nesting is not currently supported, "
    "outside of the functionalize() transform"
)


def _tensor_arg(name: str, t) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(
            f"{name}(): incompatible function arguments. The following argument types are "
            f"supported:\n    1. ({name}: torch.Tensor) -> torch.Tensor\n\nInvoked with: {t!r}"
        )


def _to_functional_tensor(t):
    """torch._to_functional_tensor: a functional wrapper over ``t`` (level -1)."""
    _tensor_arg("_to_functional_tensor", t)
    return to_functional(t)


def _from_functional_tensor(t):
    """torch._from_functional_tensor: the wrapper's value, not synced first."""
    _tensor_arg("_from_functional_tensor", t)
    if functional_state(t) is None:
        raise RuntimeError(_NOT_FUNCTIONAL)
    return from_functional(t)


def _sync(t) -> None:
    """torch._sync: apply the pending updates of the wrapper's storage to it."""
    _tensor_arg("_sync", t)
    sync(t)


_functionalize_sync = _sync


def _is_functional_tensor(t) -> bool:
    _tensor_arg("_is_functional_tensor", t)
    return functional_state(t) is not None


def _enable_functionalization(*, reapply_views: bool = False) -> None:
    """Functionalize joins the TLS include set (not scoped: _disable_functionalization ends it)."""
    ts = per_thread.state
    if ts.included & FUNCTIONALIZE_BITS:
        raise RuntimeError(_NESTED_MODE)
    ts.included |= FUNCTIONALIZE_BITS
    if reapply_views:
        set_reapply_views(True)


def _disable_functionalization() -> None:
    per_thread.state.included &= ~FUNCTIONALIZE_BITS
    set_reapply_views(False)


def _functionalization_reapply_views_tls() -> bool:
    """torch._C._functionalization_reapply_views_tls."""
    return reapply_views()


# -- the queries and steps AOTAutograd uses ---------------------------------------------------


def _wrapper_of(
    t,
    line: int,
    name: str = "t",
    where: str = "torch/csrc/autograd/python_torch_functions_manual.cpp",
):
    _tensor_arg("_functionalize", t)
    state = functional_state(t)
    if state is None:
        raise RuntimeError(
            f"at::functionalization::impl::isFunctionalTensor({name}) INTERNAL ASSERT FAILED "
            f'at "/__w/pytorch/pytorch/{where}":{line}, please report a bug to PyTorch. '
        )
    return state


def _functionalize_has_data_mutation(t) -> bool:
    """The wrapper's storage saw a mutation (through it or any alias)."""
    return _wrapper_of(t, 745).storage.generation > 0


def _functionalize_has_metadata_mutation(t) -> bool:
    """An in-place view op (transpose_, unsqueeze_...) changed the wrapper's metadata."""
    return _wrapper_of(t, 738).has_metadata_mutation


def _functionalize_is_multi_output_view(t) -> bool:
    return any(meta.is_multi_output for meta in _wrapper_of(t, 722).view_metas)


def _is_functional_tensor_base(t) -> bool:
    """The wrapper is no view: its value is its storage's base."""
    return not _wrapper_of(t, 718).view_metas


def _functionalize_replace(t, other) -> None:
    _wrapper_of(t, 711)
    replace_(t, other)


def _functionalize_commit_update(t) -> None:
    _wrapper_of(t, 706)
    commit_update(t)


def _freeze_functional_tensor(t) -> None:
    """Later mutations of the wrapper's storage are refused."""
    _wrapper_of(t, 751, "tensor", "aten/src/ATen/FunctionalTensorWrapper.cpp").storage.frozen = True


def _functionalize_enable_reapply_views(reapply_views: bool = False) -> bool:
    """Set the thread's reapply-views flag; returns the one it replaces."""
    return set_reapply_views(reapply_views)


# -- for functorch's Functionalize transform -------------------------------------------------


def functional_parts(t):
    """(functorch level, value) of a wrapper, for its repr (synced first inside a
    transform, as _functorch_wrapper_str_intern does); None for other tensors."""
    state = functional_state(t)
    if state is None:
        return None
    if state.level != -1:
        sync(t)
    return state.level, state.value


def functional_level(t) -> int:
    """The functorch level of a wrapper (-1 outside a transform); None for other tensors."""
    state = functional_state(t)
    return None if state is None else state.level


def set_functional_level(t, level: int) -> None:
    state = functional_state(t)
    if state is not None:
        state.level = level


def wrap_functional_tensor(t, level: int):
    """_wrap_functional_tensor: a wrapper that belongs to a functionalize() level."""
    out = to_functional(t)
    set_functional_level(out, level)
    return out


def unwrap_functional_tensor(t, reapply: bool):
    """_unwrap_functional_tensor: the up-to-date value, regenerated with views reapplied
    (or not) as the transform asked."""
    state = functional_state(t)
    prev = set_reapply_views(reapply)
    try:
        if state.storage.apply_updates():
            regenerate_from_base(t)
    finally:
        set_reapply_views(prev)
    return state.value


def propagate_functional_input_mutation(unwrapped, wrapped) -> None:
    """_propagate_functional_input_mutation: write what the transform did to an input back
    into the caller's tensor (resized / restrided first where that changed)."""
    sync(wrapped)
    inner = wrapped._functional.value
    if inner is unwrapped:
        return
    with skip_functionalize():
        if unwrapped.numel() * unwrapped.dtype.itemsize != inner.numel() * inner.dtype.itemsize:
            unwrapped.resize_(list(inner._sizes))
        if unwrapped._sizes != inner._sizes:
            unwrapped.as_strided_(list(inner._sizes), list(inner._strides))
        at.copy_(unwrapped, inner, False)
