"""This thread's dispatch and autograd state, in one plain object per thread.

Layer: _c10. Mirrors the thread-local storage of c10 (LocalDispatchKeySet's
include/exclude sets, AutogradState's flags). In: nothing. Out:
`thread_state()`, this thread's ThreadState, and `current` / `fresh` for code
that inlines the lookup. The faces most code reads, `tls.local_state` and
`grad_mode.autograd_state`, forward their attributes here.

Note [Thread state in a context variable]
-----------------------------------------
The dispatcher reads the include and exclude bits on every call and every
autograd kernel reads grad mode and writes the exclude bits, so the way to
reach this thread's state is on the hottest path there is. An attribute of a
`threading.local` costs about four plain attribute reads (it finds the
thread's dict first); a ContextVar's `get` is answered from a per-thread cache.
So each thread's state is one plain object with slots, held in a ContextVar:
the hot paths fetch it once (`current()`) and then read and write its slots.
A new thread starts with an empty context, so it finds no state (LookupError)
and makes its own from the defaults (`fresh()`): nothing leaks between threads,
as with thread-local storage. Contexts copied within a thread (asyncio tasks,
copy_context().run) share that thread's object, so they see one state, as
thread-local storage would give them.
"""

from __future__ import annotations

import contextvars

_STATE: contextvars.ContextVar = contextvars.ContextVar("ember_thread_state")


class ThreadState:
    """Per-thread raw include/exclude bits and autograd flags, at PyTorch's defaults."""

    __slots__ = ("included", "excluded", "grad_mode", "inference_mode", "fw_grad_mode",
                 "multithreading_enabled", "view_replay_enabled")  # fmt: skip

    # Set by tls.py (the default key sets are computed there).
    default_included = 0
    default_excluded = 0

    def __init__(self) -> None:
        self.included = ThreadState.default_included
        self.excluded = ThreadState.default_excluded
        self.grad_mode = True
        self.inference_mode = False
        self.fw_grad_mode = True
        self.multithreading_enabled = True
        self.view_replay_enabled = False


# The dispatcher's call path inlines `try: ts = current() except LookupError: ts = fresh()`.
current = _STATE.get


def fresh() -> ThreadState:
    """A new thread's first use: its own state, from the defaults."""
    state = ThreadState()
    _STATE.set(state)
    return state


def thread_state() -> ThreadState:
    """This thread's state."""
    try:
        return current()
    except LookupError:
        return fresh()


class StateFace:
    """Attribute access to this thread's ThreadState (`local_state.excluded`), for code off
    the hot path. Subclasses name the attributes they forward."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        for field in cls._fields:
            setattr(cls, field, property(_getter(field), _setter(field)))


def _getter(field: str):
    def get(self):
        return getattr(thread_state(), field)

    return get


def _setter(field: str):
    def set_(self, value) -> None:
        setattr(thread_state(), field, value)

    return set_
