"""The autograd fallback: what runs at the Autograd keys of an op without an autograd kernel.

Layer: autograd. In: calls of operators (custom ones, usually) that have no
kernel at the Autograd keys. Out: their results; in "warn" mode, outputs of
calls whose inputs require grad get a WarnNotImplemented grad_fn that warns
in backward and yields no gradient. Registered through the dispatcher's
fallback API (_dispatch never imports autograd). Mirrors
torch/csrc/autograd/autograd_not_implemented_fallback.cpp (facts §6.3).
For operators of up to 16 arguments the dispatcher caches a fixed-arity copy
made from generated source (Note [Kernels specialised per operator] in
_dispatch/dispatcher.py); it must find exactly the inputs the generic one does.
"""

from __future__ import annotations

import functools
import sys
import warnings

from ember._c10.dispatch_key import DispatchKey
from ember._c10.tensor_impl import TensorImpl  # every tensor (ember.Tensor is its one subclass)
from ember._c10.thread_state import per_thread
from ember._dispatch import builtin_fallbacks
from ember._dispatch.dispatcher import SPECIALIZE

from .graph import Node, collect_next_edges, set_history
from .variable_type import AFTER_AUTOGRAD

_WARNING = (
    "{op}: an autograd kernel was not registered to the Autograd key(s) but we are trying to "
    "backprop through it. This may lead to silently incorrect behavior. This behavior is "
    "deprecated and will be removed in a future version of PyTorch. If your operator is "
    "differentiable, please ensure you have registered an autograd kernel to the correct "
    "Autograd key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If "
    "your operator is not differentiable, or to squash this warning and use the previous "
    "behavior, please register torch::CppFunction::makeFallthrough() to DispatchKey::Autograd."
)
_MODES = ("nothing", "warn")


class _FallbackMode:
    mode = "warn"


def get_autograd_fallback_mode() -> str:
    return _FallbackMode.mode


def set_autograd_fallback_mode(mode: str) -> None:
    if mode == "error":
        raise RuntimeError("NYI: mode='error'")
    if mode not in _MODES:
        raise RuntimeError(f"Unsupported AutogradFallbackMode: {mode}")
    _FallbackMode.mode = mode


class WarnNotImplemented(Node):
    """Warns in backward that no autograd kernel exists; returns undefined gradients."""

    def __init__(self, op_name: str) -> None:
        super().__init__()
        self._op_name = op_name

    def name(self) -> str:
        return "torch::autograd::WarnNotImplemented"

    def apply(self, grads: list) -> list:
        warnings.warn(_WARNING.format(op=self._op_name), UserWarning, stacklevel=2)
        return [None] * len(self._next_edges)


def _tensors(values) -> list:
    found = []
    for value in values:
        if isinstance(value, TensorImpl):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, TensorImpl))
    return found


def _some_requires_grad(items) -> bool:
    """A tensor among ``items`` (one level, as ``_tensors`` scans a list) requires grad."""
    for item in items:
        if isinstance(item, TensorImpl) and item._requires_grad:
            return True
    return False


def _warn_hook(op_name: str):
    def hook(grad):
        warnings.warn(_WARNING.format(op=op_name), UserWarning, stacklevel=2)

    return hook


def autograd_fallback(op, bits, *args):
    """Redispatch below autograd with no TLS guard; in warn mode, mark what it produced."""
    result = op.redispatch(bits & AFTER_AUTOGRAD, *args)
    # any(t._requires_grad for t in _tensors(args)), without building the list, is
    # checked before the modes: it is cheaper than reading the thread-local grad mode
    for value in args:
        if isinstance(value, TensorImpl):
            if value._requires_grad:
                break
        elif isinstance(value, (list, tuple)) and _some_requires_grad(value):
            break
    else:
        return result
    return _mark(op, result, args)


def _mark(op, result, args: tuple):
    """Some input requires grad: in warn mode with grad on, give the outputs a warning grad_fn."""
    if _FallbackMode.mode != "warn" or not per_thread.state.grad_mode:
        return result
    inputs = _tensors(args)
    outputs = _tensors(result if isinstance(result, (list, tuple)) else (result,))
    node = None
    for out in outputs:
        if not (out.dtype.is_floating_point or out.dtype.is_complex):
            continue
        if any(out is t for t in inputs):
            continue
        if out._requires_grad:
            out.register_hook(_warn_hook(op.name))
            continue
        if node is None:
            node = WarnNotImplemented(op.name)
            node.set_next_edges(collect_next_edges(*inputs))
        set_history(out, node)
    return result


_SPECIALIZED_SOURCE = """
def make(op, after, some, mark, T, seq):
    def fallback(bits, {params}):
        result = op.redispatch(bits & after, {params})
        if {requires_grad}:
            return mark(op, result, ({params},))
        return result

    return fallback
"""


@functools.cache
def _specialized_factory(arity: int):
    """``autograd_fallback`` for operators of ``arity`` arguments, as fixed-arity source."""
    names = [f"a{i}" for i in range(arity)]
    checks = [f"({a}._requires_grad if isinstance({a}, T) else isinstance({a}, seq) and some({a}))"
              for a in names]  # fmt: skip
    source = _SPECIALIZED_SOURCE.format(params=", ".join(names), requires_grad=" or ".join(checks))
    namespace: dict = {}
    exec(source, namespace)
    return namespace["make"]


def _specialize(handle, arity: int):
    """The autograd fallback made for one operator (Note [Kernels specialised per operator]).

    Operators without arguments or with very many keep the generic version.
    """
    if not 0 < arity <= 16:
        return None
    make = _specialized_factory(arity)
    fallback = make(handle, AFTER_AUTOGRAD, _some_requires_grad, _mark, TensorImpl, (list, tuple))
    return fallback, "raw"


setattr(autograd_fallback, SPECIALIZE, _specialize)


_AUTOGRAD_FALLBACK_KEYS = ("AutogradOther", "AutogradCPU", "AutogradCUDA", "AutogradXLA",
                           "AutogradMPS", "AutogradXPU", "AutogradHPU", "AutogradLazy",
                           "AutogradMTIA", "AutogradMAIA", "AutogradPrivateUse1",
                           "AutogradMeta")  # fmt: skip


def install() -> None:
    """Make this the built-in fallback at the autograd keys (so `restore` brings it back)."""
    keys = {DispatchKey[name] for name in _AUTOGRAD_FALLBACK_KEYS}
    debug = f"registered at {__file__}:{sys._getframe().f_lineno}"
    table = builtin_fallbacks.BUILTIN_FALLBACKS
    for index, (key, _fn, _debug) in enumerate(table):
        if key in keys:
            table[index] = (key, autograd_fallback, debug)
            builtin_fallbacks.restore(key)
