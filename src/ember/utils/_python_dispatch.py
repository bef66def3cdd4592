"""TorchDispatchMode and the thread-local mode stack behind the Python key.

Layer: utils (imports _c10). Mirrors torch/utils/_python_dispatch.py and
c10/core/impl/TorchDispatchModeTLS.cpp. In: modes entered with ``with``.
Out: the stack the Python fallback (``_python_fallback.py``) consults, and the
Python / PythonTLSSnapshot keys in the TLS include set while any mode is on
the stack (facts §8.1, §8.3).

Note [Mode stack]
-----------------
Each thread has one stack of user modes plus dedicated slots for the "infra"
modes (FakeTensorMode and friends, ``_mode_key`` set), which always rank below
user modes: the stack reads infra modes first, then user modes, and the last
entry handles a call first. Pushing onto an empty stack adds Python and
PythonTLSSnapshot to the TLS include set; popping the last mode removes them.
While a mode's ``__torch_dispatch__`` runs, that mode is popped so that
``func(*args)`` inside it reaches the next mode down, or the kernels when
there is none, and pushed back afterwards, whatever the handler did
(PyTorch's StashTorchDispatchModeGuard; the Python fallback does it inline,
``_pop_mode_temporarily`` is the same for Python code). A failed push or pop
changes nothing. The stack and the include bits are this thread's
(ThreadState), so a mode entered in one thread is not seen in another.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import warnings

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import FUNCTIONALITY_MASK, key_bits
from ember._c10.thread_state import per_thread
from ember._tensor import Tensor

__all__ = [
    "TorchDispatchMode",
    "_get_current_dispatch_mode",
    "_get_current_dispatch_mode_stack",
    "_push_mode",
    "_pop_mode",
    "_pop_mode_temporarily",
    "_len_torch_dispatch_stack",
    "_get_dispatch_stack_at",
    "_push_on_torch_dispatch_stack",
    "_pop_torch_dispatch_stack",
    "_disable_current_modes",
    "is_in_torch_dispatch_mode",
    "is_traceable_wrapper_subclass",
    "is_traceable_wrapper_subclass_type",
    "transform_subclass",
    "return_and_correct_aliasing",
]


class _TorchDispatchModeKey(enum.IntEnum):
    """The infra slots (torch._C._TorchDispatchModeKey), lowest rank first."""

    FAKE = 0
    PROXY = 1
    FUNCTIONAL = 2


# The stack lives in this thread's ThreadState (``dispatch_modes``: the user modes, innermost
# last; ``infra_modes``: slot -> mode), beside the include bits it switches, so the Python
# key reaches both in one read. See Note [Thread state per OS thread].

# The TLS include bits a non-empty stack adds (both are functionality keys).
_PYTHON_KEYS = key_bits(DispatchKey.Python) | key_bits(DispatchKey.PythonTLSSnapshot)
_WITHOUT_PYTHON_KEYS = ~(_PYTHON_KEYS & FUNCTIONALITY_MASK)


# -- the C++ stack API (torch._C._push_on_torch_dispatch_stack & co) -----------


def _len_torch_dispatch_stack() -> int:
    ts = per_thread.state
    return len(ts.dispatch_modes) + len(ts.infra_modes)


def _get_dispatch_stack_at(index: int):
    ts = per_thread.state
    infra = [ts.infra_modes[key] for key in sorted(ts.infra_modes)]
    return (infra + ts.dispatch_modes)[index]


def _push_on_torch_dispatch_stack(mode) -> None:
    """Push ``mode``; an infra mode (``_mode_key`` set) takes its dedicated slot."""
    ts = per_thread.state
    user, infra = ts.dispatch_modes, ts.infra_modes
    key = getattr(mode, "_mode_key", None)
    if key is not None and key in infra:
        raise AssertionError(f"a mode is already in the {key.name} slot")
    if not user and not infra:
        ts.included |= _PYTHON_KEYS
    if key is None:
        user.append(mode)
    else:
        infra[key] = mode


def _pop_torch_dispatch_stack(mode_key: _TorchDispatchModeKey | None = None):
    """Pop the top user mode, or the mode in ``mode_key``'s slot, or the highest infra mode."""
    ts = per_thread.state
    user, infra = ts.dispatch_modes, ts.infra_modes
    if mode_key is not None:
        mode = infra.pop(mode_key)
    elif user:
        mode = user.pop()
    elif infra:
        mode = infra.pop(max(infra))
    else:
        raise AssertionError("trying to pop from empty mode stack")
    if not user and not infra:
        ts.included &= _WITHOUT_PYTHON_KEYS
    return mode


def _get_dispatch_mode(mode_key: _TorchDispatchModeKey):
    return per_thread.state.infra_modes.get(mode_key)


# -- torch/utils/_python_dispatch.py ------------------------------------------------


def _get_current_dispatch_mode():
    """The mode that would handle the next call, or None."""
    ts = per_thread.state
    if ts.dispatch_modes:
        return ts.dispatch_modes[-1]
    if ts.infra_modes:
        return ts.infra_modes[max(ts.infra_modes)]
    return None


def _get_current_dispatch_mode_stack() -> list:
    return [_get_dispatch_stack_at(i) for i in range(_len_torch_dispatch_stack())]


def _push_mode(mode) -> None:
    _push_on_torch_dispatch_stack(mode)


def _pop_mode(k: _TorchDispatchModeKey | None = None):
    return _pop_torch_dispatch_stack(k)


@contextlib.contextmanager
def _pop_mode_temporarily(k: _TorchDispatchModeKey | None = None):
    """Pop the top mode (or slot ``k``) for the body, then push it back."""
    old = _pop_mode(k)
    try:
        yield old
    finally:
        _push_mode(old)


@contextlib.contextmanager
def _disable_current_modes():
    """Pop every mode for the body; restore them in order afterwards."""
    popped = [_pop_mode() for _ in range(_len_torch_dispatch_stack())]
    try:
        yield popped
    finally:
        for mode in reversed(popped):
            _push_mode(mode)


# -- is_in_torch_dispatch_mode ------------------------------------------------------------
# As in PyTorch, two process-wide flags that ``with mode`` sets and restores: they stay True
# inside a handler (where the mode is popped) and are not set by a bare ``_push_mode``.
_is_in_torch_dispatch_mode = False
_is_in_non_infra_torch_dispatch_mode = False


def is_in_torch_dispatch_mode(include_infra_modes: bool = True) -> bool:
    """Whether a ``with``-entered mode is active (non-infra modes only when asked)."""
    if include_infra_modes:
        return _is_in_torch_dispatch_mode
    return _is_in_non_infra_torch_dispatch_mode


def _enter_mode_flags(mode) -> None:
    global _is_in_torch_dispatch_mode, _is_in_non_infra_torch_dispatch_mode
    flags = mode.__dict__.setdefault("old_dispatch_mode_flags", [])
    flags.append((_is_in_torch_dispatch_mode, _is_in_non_infra_torch_dispatch_mode))
    _is_in_torch_dispatch_mode = True
    _is_in_non_infra_torch_dispatch_mode |= not mode.is_infra_mode()


def _exit_mode_flags(mode) -> None:
    global _is_in_torch_dispatch_mode, _is_in_non_infra_torch_dispatch_mode
    _is_in_torch_dispatch_mode, _is_in_non_infra_torch_dispatch_mode = (
        mode.old_dispatch_mode_flags.pop()
    )


class TorchDispatchMode:
    """A context manager whose ``__torch_dispatch__`` sees every operator below autograd.

    ``with Mode() as m`` pushes the mode and returns it; modes nest, the
    innermost handling calls first. Subclasses override
    ``__torch_dispatch__(self, func, types, args=(), kwargs=None)``; calling
    ``func(*args, **kwargs)`` inside it runs the operator with this mode popped.
    """

    def __init__(self, _dispatch_key=None) -> None:
        if _dispatch_key is not None:
            self.__dict__["_dispatch_key"] = _dispatch_key
        self.old_dispatch_mode_flags: list = []

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        raw = cls.__dict__.get("__torch_dispatch__")
        if isinstance(raw, staticmethod):
            # PyTorch wraps a subclass's handler in a plain function (torch._disable_dynamo),
            # so a staticmethod one is called as a method, the mode first
            cls.__torch_dispatch__ = functools.wraps(raw.__func__)(lambda *a, **k: raw(*a, **k))

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _enter_mode_flags(self)
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        _exit_mode_flags(self)
        _pop_mode(getattr(self, "_mode_key", None))

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn(
            "`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
            stacklevel=2,
        )
        return cls(*args, **kwargs)

    @classmethod
    def is_infra_mode(cls) -> bool:
        return False


def _has_traceable_wrapper_subclass_protocol(t) -> bool:
    return hasattr(t, "__tensor_flatten__") and hasattr(t, "__tensor_unflatten__")


def is_traceable_wrapper_subclass(t) -> bool:
    """A Tensor subclass instance with ``__tensor_flatten__`` and ``__tensor_unflatten__``."""
    return (
        isinstance(t, Tensor)
        and type(t) is not Tensor
        and _has_traceable_wrapper_subclass_protocol(t)
    )


def is_traceable_wrapper_subclass_type(t) -> bool:
    """``is_traceable_wrapper_subclass`` for a class."""
    return issubclass(t, Tensor) and t is not Tensor and _has_traceable_wrapper_subclass_protocol(t)


def transform_subclass(t, callback, outer_size=None, outer_stride=None):
    """A fresh ``type(t)`` whose inner tensors are ``callback(name, inner)``."""
    outer_size = outer_size if outer_size is not None else t.size()
    outer_stride = outer_stride if outer_stride is not None else t.stride()
    attrs, ctx = t.__tensor_flatten__()
    transformed = {attr: callback(attr, getattr(t, attr)) for attr in attrs}
    sub = type(t).__tensor_unflatten__(transformed, ctx, outer_size, outer_stride)
    if sub.shape != outer_size:
        raise AssertionError(
            f"Expected return value from {type(t)}__tensor_unflatten__() to have "
            f"shape equal to {outer_size}, but got: {sub.shape}"
        )
    if sub.stride() != outer_stride:
        raise AssertionError(
            f"Expected return value from {type(t)}__tensor_unflatten__() to have "
            f"stride equal to {outer_stride}, but got: {sub.stride()}"
        )
    return sub


from ember.utils._aliasing import return_and_correct_aliasing  # noqa: E402
