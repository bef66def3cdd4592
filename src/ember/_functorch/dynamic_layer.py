"""The dynamic layer stack and the FuncTorchDynamicLayerFrontMode / BackMode fallbacks.

Layer: _functorch. Mirrors aten/src/ATen/functorch/DynamicLayer.h / DynamicLayer.cpp.
In: transforms pushing and popping interpreters; every operator call made while a
layer is live (the DynamicLayer keys are in the TLS include set). Out: each call
routed through the top layer's interpreter, then below it, down to ordinary level-0
dispatch. See Note [The functorch layer stack] in ember/_functorch/__init__.py.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from .._c10.dispatch_key import DispatchKey
from .._c10.thread_state import per_thread
from .._dispatch import builtin_fallbacks
from .._dispatch.dispatcher import caller_debug
from .interpreter import FRONT_BACK_BITS, Interpreter
from .tensor_wrapper import unwrap_dead_args


class _Stack(threading.local):
    """This OS thread's layers, innermost last (functorch's dynamicLayerStack is
    thread-local too)."""

    def __init__(self) -> None:
        self.layers: list[Interpreter] = []


_stack = _Stack()


def layers() -> list[Interpreter]:
    """This thread's live layers, outermost first (the list itself: do not mutate)."""
    return _stack.layers


def current_level() -> int | None:
    """The level of the innermost layer, or None outside every transform."""
    stack = _stack.layers
    return stack[-1].lvl if stack else None


def top() -> Interpreter | None:
    stack = _stack.layers
    return stack[-1] if stack else None


def push(interpreter: Interpreter) -> None:
    """pushDynamicLayer: the first layer adds the DynamicLayer keys to the include set."""
    stack = _stack.layers
    stack.append(interpreter)
    if len(stack) == 1:
        per_thread.state.included |= FRONT_BACK_BITS


def pop() -> Interpreter:
    """popDynamicLayer: the last layer removes the DynamicLayer keys again."""
    stack = _stack.layers
    interpreter = stack.pop()
    if not stack:
        per_thread.state.included &= ~FRONT_BACK_BITS
    return interpreter


def next_level() -> int:
    """The level the next pushed layer gets: levels count from 1 (fact A2)."""
    return len(_stack.layers) + 1


@contextmanager
def pushed(interpreter: Interpreter):
    """Run the body with ``interpreter`` as the innermost layer (initAndPushDynamicLayer /
    popDynamicLayerAndDeleteMetadata); the TLS found is restored on exit."""
    ts = per_thread.state
    saved = (ts.included, ts.excluded)
    push(interpreter)
    try:
        yield interpreter
    finally:
        popped = pop()
        popped.is_alive = False
        ts.included, ts.excluded = saved


def dump_dls() -> str:
    """torch._C._functorch.dump_dls's text."""
    return "DynamicLayerStack[ " + "".join(f"{i.lvl}:{i.name()} " for i in _stack.layers) + "]"


# -- the two fallbacks ------------------------------------------------------------------


def front_fallback(op, bits, *args):
    """dynamicLayerFrontFallback: save the TLS, install the top layer's, let it process."""
    stack = _stack.layers
    if not stack:
        raise RuntimeError(
            "At least one transform must be active when FuncTorchDynamicLayerFrontMode is "
            "reached (is the DynamicLayer key in a tensor's key set?)"
        )
    interpreter = stack[-1]
    ts = per_thread.state
    saved = (ts.included, ts.excluded)
    interpreter.saved_tls.append(saved)
    interpreter.enter_tls()
    try:
        return interpreter.process(op, unwrap_dead_args(args))
    finally:
        interpreter.saved_tls.pop()
        ts.included, ts.excluded = saved


def back_fallback(op, bits, *args):
    """dynamicLayerBack: restore the TLS the top layer saved at FrontMode, pop the layer
    for the duration (WithoutTop) and hand the call to its ``send_to_next``."""
    stack = _stack.layers
    ts = per_thread.state
    current = (ts.included, ts.excluded)
    interpreter = stack.pop()
    ts.included, ts.excluded = interpreter.saved_tls[-1]
    if not stack:
        ts.included &= ~FRONT_BACK_BITS
    try:
        return interpreter.send_to_next(op, args)
    finally:
        stack.append(interpreter)
        ts.included, ts.excluded = current


builtin_fallbacks.override(
    DispatchKey.FuncTorchDynamicLayerFrontMode,
    front_fallback,
    caller_debug(0),
    keyset_arg="boxed_raw",
)
builtin_fallbacks.override(
    DispatchKey.FuncTorchDynamicLayerBackMode,
    back_fallback,
    caller_debug(0),
    keyset_arg="boxed_raw",
)
