"""Dispatch tracing: EMBER_SHOW_DISPATCH_TRACE and trace listeners.

Layer: _dispatch. Mirrors the TORCH_SHOW_DISPATCH_TRACE code of
ATen/core/dispatch/Dispatcher.cpp (facts §11), which ember has in every build.
In: the dispatcher's calls and redispatches (op name, final key set, and for
recorders the operator handle and its arguments). Out: one line per dispatch on
stderr, ``<one space per nesting level>[call] op=[aten::add.Tensor],
key=[AutogradCPU]`` (the outermost call is at level 1, as PyTorch's
DispatchTraceNestingGuard counts it), a callback per dispatch to registered
listeners, and a begin/end pair per dispatch to recorders (ember.dispatch.trace).

Note [Dispatch tracing costs nothing when off]
----------------------------------------------
The dispatcher's fast ``call``/``redispatch`` functions have no tracing code.
When tracing is switched on (env var at import, ``set_show_dispatch_trace``,
or a listener added) the dispatcher swaps every operator handle's ``call`` and
``redispatch`` for traced versions (``on_change`` below), and swaps back when
it is off again. Code must therefore call ``handle.call(...)`` rather than
keep a reference to the function.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import warnings
from collections.abc import Callable

from .._c10.dispatch_key import key_name
from .._c10.dispatch_key_set import raw_highest_priority_key

ENV_VAR = "EMBER_SHOW_DISPATCH_TRACE"


def _read_env() -> bool:
    value = os.environ.get(ENV_VAR)
    if value is None or value == "0":
        return False
    if value == "1":
        return True
    warnings.warn(
        f"ignoring invalid value for {ENV_VAR}: {value} valid values are 0 or 1.",
        UserWarning,
        stacklevel=2,
    )
    return False


_show = _read_env()
# listener(label, op_name, final_bits, depth); label is "[call]" or "[redispatch]".
_listeners: list[Callable[[str, str, int, int], None]] = []
# Recorders (ember.dispatch.trace) see each dispatch around its kernel: ``begin(label,
# handle, bits, args, depth)`` returns a token, ``end(token, result, error, elapsed_ns)``.
_recorders: list = []
# Called with the new "tracing active" flag whenever it changes (the dispatcher swaps paths).
_on_change: list[Callable[[bool], None]] = []


class _Depth(threading.local):
    def __init__(self) -> None:
        self.value = 0


_depth = _Depth()


def is_active() -> bool:
    return _show or bool(_listeners) or bool(_recorders)


def _changed(before: bool) -> None:
    after = is_active()
    if after != before:
        for callback in list(_on_change):
            callback(after)


def show_dispatch_trace() -> bool:
    return _show


def set_show_dispatch_trace(enabled: bool) -> None:
    """Switch stderr tracing on or off at runtime."""
    global _show
    before = is_active()
    _show = bool(enabled)
    _changed(before)


def add_listener(listener: Callable[[str, str, int, int], None]) -> Callable[[], None]:
    """Calls ``listener(label, op_name, final_bits, depth)`` on every dispatch; returns a remover."""
    before = is_active()
    _listeners.append(listener)
    _changed(before)

    def remove() -> None:
        before = is_active()
        if listener in _listeners:
            _listeners.remove(listener)
        _changed(before)

    return remove


def add_recorder(recorder) -> Callable[[], None]:
    """Adds an object with ``begin``/``end`` (see ``_recorders``); returns a remover."""
    before = is_active()
    _recorders.append(recorder)
    _changed(before)

    def remove() -> None:
        before = is_active()
        if recorder in _recorders:
            _recorders.remove(recorder)
        _changed(before)

    return remove


def format_line(label: str, op_name: str, bits: int, depth: int) -> str:
    """One line of PyTorch's debug-build trace (Dispatcher.cpp ``_print_dispatch_trace``)."""
    key = key_name(raw_highest_priority_key(bits))
    return f"{' ' * (depth + 1)}{label} op=[{op_name}], key=[{key}]"


def traced(
    label: str,
    op_name: str,
    bits: int,
    thunk: Callable[[], object],
    handle: object = None,
    args: tuple = (),
) -> object:
    """Report one dispatch, then run ``thunk`` one nesting level deeper."""
    depth = _depth.value
    if _show:
        sys.stderr.write(format_line(label, op_name, bits, depth) + "\n")
    for listener in list(_listeners):
        listener(label, op_name, bits, depth)
    _depth.value = depth + 1
    try:
        if _recorders:
            return _recorded(label, handle, bits, args, depth, thunk)
        return thunk()
    finally:
        _depth.value = depth


def _recorded(label, handle, bits, args, depth, thunk) -> object:
    recorders = list(_recorders)
    tokens = [recorder.begin(label, handle, bits, args, depth) for recorder in recorders]
    start = time.perf_counter_ns()
    try:
        result = thunk()
    except BaseException as error:
        elapsed = time.perf_counter_ns() - start
        for recorder, token in zip(recorders, tokens):
            recorder.end(token, None, error, elapsed)
        raise
    elapsed = time.perf_counter_ns() - start
    for recorder, token in zip(recorders, tokens):
        recorder.end(token, result, None, elapsed)
    return result
