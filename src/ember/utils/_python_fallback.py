"""The Python and PythonTLSSnapshot backend fallbacks: where ``__torch_dispatch__`` is called.

Layer: utils (imports _c10, _dispatch, _ops, utils._python_dispatch). Mirrors
aten/src/ATen/core/PythonFallbackKernel.cpp and the TorchDispatch half of
torch/csrc/utils/python_arg_parser.cpp (handle_torch_function_no_python_arg_parser).
In: boxed calls ``fn(op_handle, raw_bits, *full_args)`` reaching the Python
(13) or PythonTLSSnapshot (41) key. Out: the handler's result.

Note [Python key dispatch]
--------------------------
1. PythonTLSSnapshot, the highest key that runs, records the TLS include /
   exclude sets on entry (once per trip from Python into the dispatcher) and
   redispatches below itself. Autocast and autograd then run as usual.
2. The Python fallback restores that snapshot as the TLS include set and adds
   to the exclude set every functionality key above Python except
   PythonDispatcher, so ``func(*args)`` inside a handler starts again below
   Python (facts §8.2). The snapshot is cleared while Python code runs.
3. The top mode handles the call first, popped for the duration (Note [Mode
   stack]); if it returns NotImplemented (or there is no mode), each
   overloaded tensor subclass is tried, subclasses before their bases. If all
   return NotImplemented, PyTorch's TypeError is raised.
"""

from __future__ import annotations

import threading

from ember import _ops
from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import full_after_bits, functionality_bit
from ember._c10.tls import local_state
from ember._dispatch import builtin_fallbacks
from ember._dispatch.python_returns import returns_converter

from . import _python_dispatch as _modes

# Every functionality key strictly between Python and PythonDispatcher.
ABOVE_PYTHON_EXCEPT_PYTHON_DISPATCHER = sum(
    functionality_bit(key)
    for key in range(int(DispatchKey.Python) + 1, int(DispatchKey.PythonDispatcher))
)
_AFTER_SNAPSHOT = full_after_bits(DispatchKey.PythonTLSSnapshot)


class _EntryState(threading.local):
    def __init__(self) -> None:
        self.tls_on_entry: tuple[int, int] | None = None


_entry = _EntryState()


def python_tls_snapshot_fallback(handle, bits: int, *args):
    """Record the TLS on the way in (if not yet recorded), then skip PythonTLSSnapshot."""
    if _entry.tls_on_entry is not None:
        return handle.redispatch(bits & _AFTER_SNAPSHOT, *args)
    _entry.tls_on_entry = (local_state.included, local_state.excluded)
    try:
        return handle.redispatch(bits & _AFTER_SNAPSHOT, *args)
    finally:
        _entry.tls_on_entry = None


def python_fallback(handle, bits: int, *args):
    """Hand the call to the top mode or to the arguments' ``__torch_dispatch__``."""
    previous = snapshot = _entry.tls_on_entry
    if snapshot is None:
        snapshot = (local_state.included, local_state.excluded)
    saved_tls = (local_state.included, local_state.excluded)
    local_state.included = snapshot[0]
    local_state.excluded = snapshot[1] | ABOVE_PYTHON_EXCEPT_PYTHON_DISPATCHER
    _entry.tls_on_entry = None
    try:
        return dispatch_to_python(handle, args)
    finally:
        _entry.tls_on_entry = previous
        local_state.included, local_state.excluded = saved_tls


# qualname ("ns::op" or "ns::op.overload") -> {subclass or mode class: rule}; filled by
# ember.library.register_torch_dispatch. A rule replaces that class's __torch_dispatch__
# for that operator: rule(cls_or_mode, func, types, args, kwargs).
torch_dispatch_rules: dict[str, dict[type, object]] = {}


def _rule_for(handle, cls):
    if not torch_dispatch_rules:
        return None
    for name in (handle.name, handle.name.split(".", 1)[0]):
        rule = torch_dispatch_rules.get(name, {}).get(cls)
        if rule is not None:
            return rule
    return None


def _collect_overloaded(value, found: list) -> None:
    if isinstance(value, (list, tuple)):
        for item in value:
            _collect_overloaded(item, found)
    elif getattr(value, "_python_dispatch", False):
        cls = type(value)
        if any(type(seen) is cls for seen in found):
            return
        # Subclasses go before their bases; otherwise left to right.
        for position, seen in enumerate(found):
            if issubclass(cls, type(seen)):
                found.insert(position, value)
                return
        found.append(value)


def overloaded_args(args) -> list:
    """Tensor arguments whose class defines ``__torch_dispatch__``, one per type."""
    found: list = []
    for value in args:
        _collect_overloaded(value, found)
    return found


# How PyTorch names the handler in its result errors (Note [Results of Python kernels]).
_HOLDER = "__torch_dispatch__"


def mode_handler(mode):
    """The mode's bound ``__torch_dispatch__``; anything not bound to the mode itself (a
    classmethod, an instance attribute) is refused as PyTorch's dispatch_on_mode does."""
    handler = mode.__torch_dispatch__
    if getattr(handler, "__self__", None) is not mode:
        raise RuntimeError(
            "Defining your mode's `__torch_dispatch__` as a classmethod is not supported, "
            "please make it a plain method"
        )
    return handler


def dispatch_to_python(handle, full_args: tuple):
    """handle_torch_function_no_python_arg_parser for TorchDispatch."""
    op = _ops.overload_for_handle(handle)
    args, kwargs = handle.schema.python_kernel_args(list(full_args))
    args = tuple(_ops.unwrap_number(value) for value in args)  # as torch::jit::toPyObject
    overloaded = overloaded_args(full_args)
    types = tuple(type(arg) for arg in overloaded)
    tried: list[str] = []
    if _modes._len_torch_dispatch_stack() > 0:
        with _modes._pop_mode_temporarily() as mode:
            handler = mode_handler(mode)
            rule = _rule_for(handle, type(mode))
            if rule is not None:
                result = rule(mode, op, types, args, kwargs)
            else:
                result = handler(op, types, args, kwargs)
        if result is not NotImplemented:
            return returns_converter(handle.schema, _HOLDER)(result)
        tried.append(f"  - mode object {mode!r}")
    for arg in overloaded:
        rule = _rule_for(handle, type(arg))
        if rule is not None:
            result = rule(type(arg), op, types, args, kwargs)
        else:
            result = arg.__torch_dispatch__(op, types, args, kwargs)
        if result is not NotImplemented:
            return returns_converter(handle.schema, _HOLDER)(result)
        tried.append(f"  - tensor subclass {type(arg)}")
    raise TypeError(
        f"Multiple dispatch failed for 'torch._ops.{op}'; all __torch_dispatch__ handlers "
        "returned NotImplemented:\n\n" + "\n".join(tried) + "\n\nFor more information, try "
        "re-running with TORCH_LOGS=not_implemented"
    )


_SOURCE = __file__
builtin_fallbacks.override(
    DispatchKey.Python,
    python_fallback,
    f"registered at {_SOURCE}:{python_fallback.__code__.co_firstlineno}",
    keyset_arg="boxed_raw",
)
builtin_fallbacks.override(
    DispatchKey.PythonTLSSnapshot,
    python_tls_snapshot_fallback,
    f"registered at {_SOURCE}:{python_tls_snapshot_fallback.__code__.co_firstlineno}",
    keyset_arg="boxed_raw",
)
