"""AutogradState: the thread-local grad mode and inference mode flags.

Layer: _c10. Mirrors c10/core/AutogradState.h, GradMode.h and InferenceMode.h.
The user-facing context managers (ember.no_grad, inference_mode, ...) live in
ember.autograd.grad_mode; this module holds only the state they change.
See Note [Inference mode] there for what inference mode does to dispatch TLS.
"""

from __future__ import annotations

from .thread_state import StateFace


class _AutogradState(StateFace):
    """This thread's flags; a new thread starts with grad on and inference mode off.
    The hot paths read them from per_thread.state directly (Note [Thread state per OS
    thread])."""

    __slots__ = ()
    _fields = ("grad_mode", "inference_mode", "fw_grad_mode", "multithreading_enabled",
               "view_replay_enabled")  # fmt: skip


autograd_state = _AutogradState()


def is_grad_enabled() -> bool:
    return autograd_state.grad_mode


def set_grad_enabled(enabled: bool) -> None:
    autograd_state.grad_mode = bool(enabled)


def is_inference_mode_enabled() -> bool:
    return autograd_state.inference_mode
