"""Default hooks for saved tensors: saved_tensors_hooks, save_on_cpu, disabling them.

Layer: autograd. In: a pack hook (tensor -> anything) and an unpack hook (anything ->
tensor). Out: this thread's stack of hook pairs, which SavedVariable reads when a node
saves a tensor (see Note [Saved tensors through hooks] in saved_variable.py). Mirrors
ATen/SavedTensorHooks.cpp (the thread-local stack and its disabled message) and the
context managers of torch/autograd/graph.py.
"""

from __future__ import annotations

import contextlib
import threading

from ember._tensor import empty_tensor

__all__ = [
    "disable_saved_tensors_hooks",
    "save_on_cpu",
    "hook_state",
    "pushed_anywhere",
    "saved_tensors_hooks",
]


class _HookState(threading.local):
    """This thread's hook pairs (innermost last) and, while disabled, the message."""

    def __init__(self) -> None:
        self.stack: tuple = ()
        self.disabled_message: str | None = None


hook_state = _HookState()  # `.stack[-1]` is the pair a tensor saved now goes through
_state = hook_state

# How many hook pairs are pushed, over all threads: SavedVariable reads this one cell
# (a few ns) and this thread's stack (a thread-local read, ~100 ns) only when it is not 0.
pushed_anywhere = [0]
_count_lock = threading.Lock()


def _count(change: int) -> None:
    with _count_lock:
        pushed_anywhere[0] += change


def _push(pack_hook, unpack_hook) -> None:
    if not (callable(pack_hook) and callable(unpack_hook)):
        raise TypeError(
            "_push_saved_tensors_default_hooks(): incompatible function arguments. The "
            "following argument types are supported:\n    1. (arg0: collections.abc.Callable, "
            "arg1: collections.abc.Callable) -> None\n\nInvoked with: "
            f"{pack_hook!r}, {unpack_hook!r}"
        )
    if _state.disabled_message is not None:
        raise RuntimeError(_state.disabled_message)
    _state.stack = (*_state.stack, (pack_hook, unpack_hook))
    _count(1)


def _pop() -> None:
    if not _state.stack:
        raise RuntimeError(
            'is_initialized && !tls.stack.empty() INTERNAL ASSERT FAILED at "/__w/pytorch/'
            'pytorch/aten/src/ATen/SavedTensorHooks.cpp":69, please report a bug to PyTorch. '
        )
    _state.stack = _state.stack[:-1]
    _count(-1)


class saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """While active, each tensor a node saves is stored as ``pack_hook(tensor)`` and given
    back to backward as ``unpack_hook(packed)``; the innermost pair applies."""

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        _push(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args: object) -> None:
        _pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 (PyTorch's name)
    """Saved tensors are kept on the CPU and moved back to their device for backward.
    (ember has no accelerator, so a pinned copy is never possible: pin_memory copies
    into plain memory, as PyTorch does where no pinnable device is available.)"""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = empty_tensor(tuple(tensor.size()), tensor.dtype)
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """While active, setting saved-tensor hooks raises RuntimeError(error_message); entering
    it while hooks are set raises the same."""
    previous = _state.disabled_message
    try:
        _state.disabled_message = error_message
        if _state.stack:
            raise RuntimeError(error_message)
        yield
    finally:
        _state.disabled_message = previous
