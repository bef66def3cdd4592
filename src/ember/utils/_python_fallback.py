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
4. This runs on every operator a mode sees, so what does not change between
   calls is worked out once per operator (``_PLANS``): its OpOverload, a
   generated function that turns the boxed arguments into the handler's
   ``(args, kwargs)`` (trailing positional and keyword-only arguments equal
   to their defaults left out, as PyTorch's parseIValuesToPyArgsKwargs), and
   the check of the handler's result. The snapshot and the mode stack are
   slots of this thread's ThreadState (one read per call).
5. With no mode on the stack and no argument whose class defines
   ``__torch_dispatch__`` (a plain tensor reached Python because a handler
   restored a snapshot that had a mode's Python key in it), the call goes on
   below Python with the key dropped from the TLS include set, as PyTorch does
   since pytorch/pytorch#136566.

Note [Reentrant dispatch]
-------------------------
PyTorch keeps the snapshot PythonTLSSnapshot recorded (tls_on_entry) while a
handler runs, and ``torch._C._RestorePythonTLSSnapshot`` (behind
``torch.overrides.enable_reentrant_dispatch``) makes it the TLS again, so that a
handler's calls on inner tensors run autograd and the other keys above Python;
it clears the snapshot meanwhile, so those calls record their own. ember clears
``tls_on_entry`` while Python runs (point 2), so the Python fallback keeps the
snapshot a handler may restore in ``handler_snapshot``: the one recorded on the
way in, or for a call made from inside a handler, the one in effect there.
"""

from __future__ import annotations

import functools
import os

from ember import _ops
from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import full_after_bits, functionality_bit
from ember._c10.tensor_impl import TensorImpl
from ember._c10.thread_state import per_thread
from ember._dispatch import builtin_fallbacks, trace
from ember._dispatch.dispatcher import SPECIALIZE
from ember._dispatch.python_returns import _tensor as _one_tensor
from ember._dispatch.python_returns import returns_converter
from ember._dispatch.schema_binding import _same_as_default

from ._python_dispatch import _PYTHON_KEYS, _WITHOUT_PYTHON_KEYS

# Every functionality key strictly between Python and PythonDispatcher.
ABOVE_PYTHON_EXCEPT_PYTHON_DISPATCHER = sum(
    functionality_bit(key)
    for key in range(int(DispatchKey.Python) + 1, int(DispatchKey.PythonDispatcher))
)
_AFTER_SNAPSHOT = full_after_bits(DispatchKey.PythonTLSSnapshot)
_WITHOUT_PYTHON = ~functionality_bit(DispatchKey.Python)


def python_tls_snapshot_fallback(handle, bits: int, *args):
    """Record the TLS on the way in (if not yet recorded), then skip PythonTLSSnapshot."""
    ts = per_thread.state  # Note [Thread state per OS thread]
    if ts.tls_on_entry is not None:
        return handle.redispatch(bits & _AFTER_SNAPSHOT, *args)
    ts.tls_on_entry = (ts.included, ts.excluded)
    try:
        return handle.redispatch(bits & _AFTER_SNAPSHOT, *args)
    finally:
        ts.tls_on_entry = None


_SNAPSHOT_SOURCE = """
def make(handle, after, per_thread):
    def snapshot(bits, {params}):
        ts = per_thread.state
        if ts.tls_on_entry is not None:
            return handle.redispatch(bits & after, {params})
        ts.tls_on_entry = (ts.included, ts.excluded)
        try:
            return handle.redispatch(bits & after, {params})
        finally:
            ts.tls_on_entry = None

    return snapshot
"""

# The same with the handle's redispatch inline (its cache lookup and call): made while no
# trace is active, as the handle's untraced redispatch is then what it would call. A trace
# switching on rebuilds every handle and clears the caches this kernel sits in, so the
# next call specialises the traced form above (Note [Kernels specialised per operator]).
_SNAPSHOT_INLINE_SOURCE = """
def make(handle, after, per_thread):
    cache, slow = handle._redispatch_cache, handle._slow_redispatch

    def snapshot(bits, {params}):
        ts = per_thread.state
        bits &= after
        try:
            fn, mode, _ = cache[bits]
        except KeyError:
            fn, mode, _ = slow(bits)
        if ts.tls_on_entry is not None:
            if mode is None:
                return fn({params})
            return fn(bits, {params})
        ts.tls_on_entry = (ts.included, ts.excluded)
        try:
            if mode is None:
                return fn({params})
            return fn(bits, {params})
        finally:
            ts.tls_on_entry = None

    return snapshot
"""


# inside the package, as a trace's caller search expects of ember's frames
_SNAPSHOT_FILENAME = os.path.join(os.path.dirname(__file__), "<PythonTLSSnapshot fallback>")


@functools.cache
def _snapshot_factory(arity: int, inline: bool):
    """``python_tls_snapshot_fallback`` for operators of ``arity`` arguments."""
    namespace: dict = {}
    template = _SNAPSHOT_INLINE_SOURCE if inline else _SNAPSHOT_SOURCE
    source = template.format(params=", ".join(f"a{i}" for i in range(arity)))
    exec(compile(source, _SNAPSHOT_FILENAME, "exec"), namespace)
    return namespace["make"]


def _specialize_snapshot(handle, arity: int):
    """The snapshot fallback made for one operator, without ``*args`` and the handle's
    partial on every call (Note [Kernels specialised per operator])."""
    if not 0 < arity <= 16:
        return None
    make = _snapshot_factory(arity, not trace.is_active())
    return make(handle, _AFTER_SNAPSHOT, per_thread), "raw"


setattr(python_tls_snapshot_fallback, SPECIALIZE, _specialize_snapshot)


class RestorePythonTLSSnapshot:
    """torch._C._RestorePythonTLSSnapshot: entered inside a handler, the TLS the Python
    key's call found on its way in, until exit (Note [Reentrant dispatch])."""

    __slots__ = ("_saved",)

    def __init__(self) -> None:
        self._saved = None

    def __enter__(self) -> None:
        ts = per_thread.state
        snapshot = ts.handler_snapshot
        if snapshot is None:
            raise RuntimeError(
                "Accessing torch dispatch state outside of '__torch_dispatch__' is not allowed."
            )
        self._saved = (ts.included, ts.excluded, ts.tls_on_entry, snapshot)
        ts.included, ts.excluded = snapshot
        ts.tls_on_entry = None
        ts.handler_snapshot = None

    def __exit__(self, *exc: object) -> None:
        ts = per_thread.state
        ts.included, ts.excluded, ts.tls_on_entry, ts.handler_snapshot = self._saved
        self._saved = None


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


def _add_overloaded(value, found: list) -> None:
    """``value``'s class defines __torch_dispatch__: add it unless its type is there."""
    cls = type(value)
    for position, seen in enumerate(found):
        kind = type(seen)
        if kind is cls:
            return
        if issubclass(cls, kind):  # subclasses go before their bases; otherwise left to right
            if any(type(other) is cls for other in found[position + 1 :]):
                return
            found.insert(position, value)
            return
    found.append(value)


def _collect_overloaded(value, found: list) -> None:
    if isinstance(value, (list, tuple)):
        for item in value:
            _collect_overloaded(item, found)
    elif getattr(value, "_python_dispatch", False):
        _add_overloaded(value, found)


def overloaded_args(args) -> list:
    """Tensor arguments whose class defines ``__torch_dispatch__``, one per type."""
    found: list = []
    for value in args:
        _collect_overloaded(value, found)
    return found


# How PyTorch names the handler in its result errors (Note [Results of Python kernels]).
_HOLDER = "__torch_dispatch__"

_OVERLOADS = _ops._OVERLOADS  # emptied in place, never replaced
# handle -> (op, kernel_args, convert): its OpOverload, how the boxed arguments become the
# handler's (args, kwargs), and the check of the handler's result. Rebuilt when the
# OpOverload changes (the op was redefined). See Note [Python key dispatch].
_PLANS: dict = {}


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


def _plain_kernel_args(full_args: tuple) -> tuple:
    return full_args, {}


def _same_expression(value: str, index: int, default, constants: dict) -> str:
    """Python source testing ``_same_as_default(value, default)``, inline where it can be."""
    constants[f"d{index}"] = default
    if default is None:
        return f"{value} is None"
    kind = type(default)
    if kind in (bool, int, float, str):  # the usual case inline, the rest as it decides
        constants[f"t{index}"] = kind
        return f"((type({value}) is t{index} and {value} == d{index}) or _same({value}, d{index}))"
    return f"_same({value}, d{index})"


def _kernel_args_function(plan):
    """``kernel_args(full_args) -> (args, kwargs)``, generated per schema: PyTorch leaves
    out trailing positional arguments that equal their defaults, and keyword-only
    arguments that equal theirs (as ``BindPlan.python_kernel_args``)."""
    positional, names = plan.num_positional, plan.names
    tail = []
    for index in reversed(range(positional)):
        if not plan.has_default[index]:
            break
        tail.append(index)
    if not tail and positional == len(names):
        return _plain_kernel_args
    constants = {"_same": _same_as_default}
    lines = ["def kernel_args(full):", f"    end = {positional}"]
    if tail:
        lines.append("    while True:")
        for index in tail:
            test = _same_expression(f"full[{index}]", index, plan.defaults[index], constants)
            lines += [f"        if not {test}:", "            break", f"        end = {index}"]
        lines.append("        break")
    lines.append("    kwargs = {}")
    for index in range(positional, len(names)):
        lines.append(f"    v = full[{index}]")
        if plan.has_default[index]:
            test = _same_expression("v", index, plan.defaults[index], constants)
            lines.append(f"    if not {test}:")
            lines.append(f"        kwargs[{names[index]!r}] = v")
        else:
            lines.append(f"    kwargs[{names[index]!r}] = v")
    lines.append("    return full[:end], kwargs")
    exec("\n".join(lines), constants)
    return constants["kernel_args"]


def _plan_for(handle) -> tuple:
    op = _ops.overload_for_handle(handle)
    kernel_args = _kernel_args_function(op._schema._plan)
    value = _PLANS[handle] = (op, kernel_args, returns_converter(op._schema, _HOLDER))
    return value


def python_fallback(handle, bits: int, *full_args):
    """Hand the call to the top mode or to the arguments' ``__torch_dispatch__``
    (handle_torch_function_no_python_arg_parser for TorchDispatch), with the TLS of
    Note [Python key dispatch] (2) around it; one frame, as it runs on every call."""
    ts = per_thread.state
    previous = ts.tls_on_entry
    included, excluded = ts.included, ts.excluded
    snapshot = ts.handler_snapshot
    if previous is None:
        ts.excluded = excluded | ABOVE_PYTHON_EXCEPT_PYTHON_DISPATCHER
    else:
        ts.included = previous[0]
        ts.excluded = previous[1] | ABOVE_PYTHON_EXCEPT_PYTHON_DISPATCHER
        ts.tls_on_entry = None
        ts.handler_snapshot = previous  # Note [Reentrant dispatch]
    try:
        plan = _PLANS.get(handle)
        if plan is None or plan[0] is not _OVERLOADS.get(handle):
            plan = _plan_for(handle)
        op, kernel_args, convert = plan
        # One pass over the arguments: the overloaded tensors, and whether a wrapped number
        # is among them (boxing into Python turns it back into the number, as toPyObject).
        overloaded: list = []
        wrapped = False
        for value in full_args:
            if isinstance(value, TensorImpl):
                if value._python_dispatch:
                    if not overloaded:
                        overloaded.append(value)
                    elif type(overloaded[0]) is not type(value):
                        _add_overloaded(value, overloaded)
                elif value._is_wrapped_number:
                    wrapped = True
            elif isinstance(value, (list, tuple)):
                _collect_overloaded(value, overloaded)
        args, kwargs = kernel_args(full_args)
        if wrapped:
            args = tuple(_ops.unwrap_number(value) for value in args)
        if len(overloaded) == 1:
            types = (type(overloaded[0]),)
        else:
            types = tuple(map(type, overloaded)) if overloaded else ()
        user, infra = ts.dispatch_modes, ts.infra_modes
        mode = None
        if user or infra:
            # The top mode handles the call, popped meanwhile (Note [Mode stack]).
            if user:
                mode, slot = user.pop(), None
            else:
                slot = max(infra)
                mode = infra.pop(slot)
            if not user and not infra:
                ts.included &= _WITHOUT_PYTHON_KEYS
            try:
                rule = _rule_for(handle, type(mode)) if torch_dispatch_rules else None
                if rule is not None:
                    result = rule(mode, op, types, args, kwargs)
                else:
                    handler = mode.__torch_dispatch__
                    if getattr(handler, "__self__", None) is not mode:
                        handler = mode_handler(mode)  # raises
                    result = handler(op, types, args, kwargs)
            finally:  # pushed back on top of whatever the handler left
                if slot is not None and slot in infra:
                    raise AssertionError(f"a mode is already in the {slot.name} slot")
                if not user and not infra:
                    ts.included |= _PYTHON_KEYS
                if slot is None:
                    user.append(mode)
                else:
                    infra[slot] = mode
            if result is not NotImplemented:
                if convert is _one_tensor and isinstance(result, TensorImpl):
                    return result  # convert(result), inline for the usual result
                return convert(result)
        for arg in overloaded:
            rule = _rule_for(handle, type(arg)) if torch_dispatch_rules else None
            if rule is not None:
                result = rule(type(arg), op, types, args, kwargs)
            else:
                result = arg.__torch_dispatch__(op, types, args, kwargs)
            if result is not NotImplemented:
                if convert is _one_tensor and isinstance(result, TensorImpl):
                    return result
                return convert(result)
        if mode is None and not overloaded:  # point 5 of Note [Python key dispatch]
            ts.included &= _WITHOUT_PYTHON
            return handle.redispatch(bits & _WITHOUT_PYTHON, *full_args)
        raise _all_not_implemented(op, mode, overloaded)
    finally:
        ts.tls_on_entry = previous
        ts.handler_snapshot = snapshot
        ts.included = included
        ts.excluded = excluded


def _all_not_implemented(op, mode, overloaded: list) -> TypeError:
    """PyTorch's error when every handler returned NotImplemented."""
    tried = [f"  - mode object {mode!r}"] if mode is not None else []
    tried += [f"  - tensor subclass {type(arg)}" for arg in overloaded]
    return TypeError(
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
