"""torch.autograd.forward_ad: dual levels, dual tensors, and unpacking them.

Layer: autograd. In: a primal tensor and its tangent. Out: a dual tensor (a view of the
primal holding the tangent at the current level, See Note [Forward grads]) and, back
from one, the primal (a view without tangent) and the tangent. Mirrors
torch/autograd/forward_ad.py and the _make_dual / _fw_primal kernels of
torch/csrc/autograd/VariableTypeManual.cpp.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from ember._c10.thread_state import per_thread
from ember.aten.native import at

from . import forward_grad
from .forward_grad import ForwardGrad, forward_state, fw_grad, set_fw_grad
from .graph import Node

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
]


def _current_level() -> int:
    return len(forward_state.levels) - 1


def enter_dual_level() -> int:
    """Enter a new forward grad level (only one may exist at a time, as in PyTorch)."""
    if forward_state.levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    return forward_grad.enter_level()


def exit_dual_level(*, level: int | None = None) -> None:
    """Leave the level, dropping every tangent it holds; only the last one may be left."""
    current = _current_level()
    if level is None:
        level = current
    if level != current:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    forward_grad.exit_level(level)


def _is_differentiable(tensor) -> bool:
    return tensor.dtype.is_floating_point or tensor.dtype.is_complex


def make_dual(tensor, tangent, *, level: int | None = None):
    """A view of `tensor` whose tangent at `level` is `tangent` (laid out as `tensor`)."""
    if level is None:
        level = _current_level()
    if level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if not _is_differentiable(tensor):
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not _is_differentiable(tangent):
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if level > _current_level():
        raise RuntimeError("Invalid level given to _make_dual")
    if fw_grad(tensor, level) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
            f"same level {level} is not supported."
        )
    if fw_grad(tangent, level) is not None:
        raise RuntimeError(
            "Setting a forward grad that itself has a forward gradient at the same level"
            f"{level} is not supported."
        )
    if tangent._sizes != tensor._sizes:
        set_fw_grad(tensor, tangent, level)  # raises PyTorch's size error, changes nothing
    result = at.view(tensor, list(tensor._sizes))  # ViewBackward0, as PyTorch's _make_dual
    set_fw_grad(result, tangent, level)
    return result


class UnpackedDualTensor(NamedTuple):
    """What unpack_dual returns: the primal and the tangent (None where there is none)."""

    primal: Any
    tangent: Any


class _Identity(Node):
    """The grad_fn of unpack_dual's primal (torch::autograd::Identity)."""

    def name(self) -> str:
        return "torch::autograd::Identity"

    def apply(self, grads: list) -> tuple:
        return (grads[0],)


_Identity.__name__ = _Identity.__qualname__ = "CppFunction"  # how PyTorch's Python face shows it


def _fw_primal(tensor, level: int):
    """A view of `tensor` that never has a tangent at `level` (aten::_fw_primal)."""
    primal = at.alias(tensor)
    primal._fw_grad = ForwardGrad(primal_view=True)
    node = primal._grad_fn
    if node is not None:
        identity = _Identity()
        identity._next_edges = node._next_edges
        identity._input_metadata = node._input_metadata
        primal._grad_fn = identity
    return primal


def unpack_dual(tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent) of a dual tensor: a view of its primal and its tangent as it is."""
    if level is None:
        level = _current_level()
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    holder = tensor._fw_grad
    if holder is not None and holder.values and level > _current_level():
        raise RuntimeError("Invalid level given to _fw_primal")
    tangent = fw_grad(tensor, level)
    state = per_thread.state
    prev = state.fw_grad_mode
    state.fw_grad_mode = False
    try:
        primal = _fw_primal(tensor, level)
    finally:
        state.fw_grad_mode = prev
    return UnpackedDualTensor(primal, tangent)


def _is_fwd_grad_enabled() -> bool:
    """torch._C._is_fwd_grad_enabled: this thread's forward grad mode."""
    return per_thread.state.fw_grad_mode


class _set_fwd_grad_enabled:
    """Sets this thread's forward grad mode at once; restores it on exit (or as a decorator)."""

    def __init__(self, mode: bool) -> None:
        self.prev = per_thread.state.fw_grad_mode
        per_thread.state.fw_grad_mode = bool(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        per_thread.state.fw_grad_mode = self.prev

    def __call__(self, fn):
        mode = per_thread.state.fw_grad_mode
        per_thread.state.fw_grad_mode = self.prev

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(mode):
                return fn(*args, **kwargs)

        return wrapper


class dual_level:
    """Context manager (and decorator) for forward AD: enters a level, leaves it on exit."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        exit_dual_level()

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper
