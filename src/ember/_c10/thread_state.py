"""This thread's dispatch and autograd state, in one plain object per OS thread.

Layer: _c10. Mirrors the thread-local storage of c10 (LocalDispatchKeySet's
include/exclude sets, AutogradState's flags). In: nothing. Out: `per_thread`,
whose `state` attribute is this thread's ThreadState, and `thread_state()` for
code off the hot path. The faces most code reads, `tls.local_state` and
`grad_mode.autograd_state`, forward their attributes here.

Note [Thread state per OS thread]
---------------------------------
The dispatcher reads the include and exclude bits on every call and every
autograd kernel reads grad mode and writes the exclude bits, so the way to
reach this thread's state is on the hottest path there is. The hot paths
fetch the state object once (`ts = per_thread.state`) and then read and write
its slots (`prev = ts.excluded ... finally: ts.excluded = prev`).

In PyTorch this state is `thread_local`: it belongs to the OS thread, whatever
Python context runs on it. A new thread starts from the defaults, even when
it runs a copy of its parent's context (`asyncio.to_thread`,
`contextvars.copy_context().run` in a worker, executors that copy contexts);
all contexts within one thread (asyncio tasks) share that thread's state. So
the object is held by a `threading.local`, whose `__init__` makes a thread's
state from the defaults on the thread's first read. A ContextVar would read
faster (its `get` is served from a per-thread cache) but its value travels
with copied contexts: a worker's `no_grad()` would turn grad off in its
caller, and tasks that each start from an empty copied context would each
get a state of their own. benchmarks/bench_dispatch.py measures the read
beside those alternatives. The dispatch mode stack (utils/_python_dispatch.py)
and the Python key's snapshot (utils/_python_fallback.py) live in the same
object (the Python key reads them on every call a mode sees), so a mode
entered in one thread is never on another thread's stack.
"""

from __future__ import annotations

import threading

from .dispatch_key import DispatchKey
from .dispatch_key_set import autocast_dispatch_keyset, key_bits

# PyTorch's defaults (facts §3): include {BackendSelect, ADInplaceOrView}, exclude the
# Autocast keys.
DEFAULT_INCLUDED = key_bits(DispatchKey.BackendSelect) | key_bits(DispatchKey.ADInplaceOrView)
DEFAULT_EXCLUDED = autocast_dispatch_keyset.raw_repr()


class ThreadState:
    """Per-thread raw include/exclude bits and autograd flags, at PyTorch's defaults; and the
    Python key's state (TorchDispatchModeTLS and PythonFallbackKernel's tls_on_entry):
    the user dispatch modes (innermost last), the infra modes by slot, and the include /
    exclude bits PythonTLSSnapshot recorded (None when none is recorded), and the
    snapshot the running ``__torch_dispatch__`` handler may restore (PyTorch's
    tls_on_entry as a handler sees it; Note [Reentrant dispatch]). Only
    utils/_python_dispatch.py and utils/_python_fallback.py touch those four."""

    __slots__ = ("included", "excluded", "grad_mode", "inference_mode", "fw_grad_mode",
                 "multithreading_enabled", "view_replay_enabled",
                 "dispatch_modes", "infra_modes", "tls_on_entry", "handler_snapshot")  # fmt: skip

    def __init__(self) -> None:
        self.included = DEFAULT_INCLUDED
        self.excluded = DEFAULT_EXCLUDED
        self.grad_mode = True
        self.inference_mode = False
        self.fw_grad_mode = True
        self.multithreading_enabled = True
        self.view_replay_enabled = False
        self.dispatch_modes: list = []
        self.infra_modes: dict = {}
        self.tls_on_entry: tuple[int, int] | None = None
        self.handler_snapshot: tuple[int, int] | None = None


class _PerThread(threading.local):
    """``state``: this OS thread's ThreadState, made on the thread's first read."""

    def __init__(self) -> None:
        self.state = ThreadState()


# The hot paths read `per_thread.state` inline. See Note [Thread state per OS thread].
per_thread = _PerThread()


def thread_state() -> ThreadState:
    """This thread's state."""
    return per_thread.state


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
        return getattr(per_thread.state, field)

    return get


def _setter(field: str):
    def set_(self, value) -> None:
        setattr(per_thread.state, field, value)

    return set_
