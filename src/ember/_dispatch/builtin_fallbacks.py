"""The global backend fallbacks PyTorch registers for every operator at start-up.

Layer: _dispatch. Mirrors the TORCH_LIBRARY_IMPL(_, <Key>, m) fallback blocks of
ATen (MetaFallbackKernel.cpp, BackendSelectFallbackKernel.cpp,
VariableFallbackKernel.cpp, ConjugateFallback.cpp, autocast_mode.cpp, ...).
In: nothing. Out: one registration per key in the dispatcher, so that a fresh
op's ``dump_table`` lists the same keys as PyTorch's (facts §4.4).

Fallbacks whose real behaviour lives in a later layer (Python modes, autograd,
functionalization, vmap) start here as the trivial behaviour: redispatch below
their own key (``keyset & FULL_AFTER(key)``). That layer replaces them with
``override(key, fn)``, which deregisters the built-in and registers its own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from .._c10.dispatch_key import DispatchKey
from .._c10.dispatch_key_set import after_autograd_keyset, full_after_bits, key_bits
from .dispatcher import RegistrationHandle, caller_debug, dispatcher
from .kernel import KernelFunction, make_fallthrough

_D = DispatchKey
_AFTER_AUTOGRAD = after_autograd_keyset.raw_repr()

_META_MESSAGE = (
    "{name}: attempted to run this operator with Meta tensors, but there was no fake impl or "
    "Meta kernel registered. You may have run into this message while using an operator with "
    "PT2 compilation APIs (torch.compile/torch.export); in order to use this operator with "
    "those APIs you'll need to add a fake impl. Please see the following for next steps:  "
    "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
)


def _here() -> str:
    return f"registered at {__file__}:{sys._getframe(1).f_lineno}"


def meta_fallback(op, bits, *args):
    """MetaFallbackKernel.cpp: an op with no Meta kernel cannot run on meta tensors (§5.2)."""
    raise NotImplementedError(_META_MESSAGE.format(name=op.name))


def redispatch_below(key: DispatchKey) -> Callable:
    """A boxed fallback that just skips ``key``: redispatch with ``keyset & FULL_AFTER(key)``."""
    after = full_after_bits(key)
    if key == DispatchKey.PythonDispatcher:  # FULL_AFTER keeps PythonDispatcher: drop it here
        after &= ~key_bits(key)

    def fallback(op, bits, *args):
        return op.redispatch(bits & after, *args)

    fallback.__qualname__ = f"redispatch_below_{key.name}"
    return fallback


def autograd_fallback(op, bits, *args):
    """VariableFallbackKernel.cpp, for now: redispatch with ``keyset & after_autograd_keyset``.

    No TLS guard, so autograd stays live inside the kernel (facts §6.3). The
    autograd layer replaces this with the warn-mode fallback.
    """
    return op.redispatch(bits & _AFTER_AUTOGRAD, *args)


_AUTOGRAD_BACKENDS = ("CPU", "CUDA", "XLA", "MPS", "XPU", "HPU", "Lazy", "MTIA", "MAIA",
                      "PrivateUse1", "Meta")  # fmt: skip

# (key, fallback ``fn(op_handle, raw_bits, *args)`` or None for a fallthrough, debug).
BUILTIN_FALLBACKS: list[tuple[DispatchKey, Callable | None, str]] = [
    (_D.Meta, meta_fallback, _here()),
    (_D.BackendSelect, None, _here()),
    (_D.Python, redispatch_below(_D.Python), _here()),
    (_D.FuncTorchDynamicLayerBackMode, redispatch_below(_D.FuncTorchDynamicLayerBackMode), _here()),
    (_D.Functionalize, redispatch_below(_D.Functionalize), _here()),
    (_D.Conjugate, redispatch_below(_D.Conjugate), _here()),
    (_D.Negative, redispatch_below(_D.Negative), _here()),
    (_D.ZeroTensor, redispatch_below(_D.ZeroTensor), _here()),
    (_D.ADInplaceOrView, None, _here()),
    (_D.AutogradOther, autograd_fallback, _here()),
    *[(_D["Autograd" + b], autograd_fallback, _here()) for b in _AUTOGRAD_BACKENDS],
    (_D.Tracer, redispatch_below(_D.Tracer), _here()),
    (_D.AutocastCPU, None, _here()),
    (_D.AutocastMTIA, None, _here()),
    (_D.AutocastMAIA, None, _here()),
    (_D.AutocastXPU, None, _here()),
    (_D.AutocastMPS, None, _here()),
    (_D.AutocastCUDA, None, _here()),
    (_D.FuncTorchBatched, redispatch_below(_D.FuncTorchBatched), _here()),
    (_D.BatchedNestedTensor, redispatch_below(_D.BatchedNestedTensor), _here()),
    (_D.FuncTorchVmapMode, None, _here()),
    (_D.Batched, redispatch_below(_D.Batched), _here()),
    (_D.VmapMode, None, _here()),
    (_D.FuncTorchGradWrapper, redispatch_below(_D.FuncTorchGradWrapper), _here()),
    (_D.PythonTLSSnapshot, redispatch_below(_D.PythonTLSSnapshot), _here()),
    (
        _D.FuncTorchDynamicLayerFrontMode,
        redispatch_below(_D.FuncTorchDynamicLayerFrontMode),
        _here(),
    ),  # fmt: skip
    (_D.PreDispatch, redispatch_below(_D.PreDispatch), _here()),
    (_D.PythonDispatcher, redispatch_below(_D.PythonDispatcher), _here()),
]

# The live registration per key, so a later layer can replace one.
_handles: dict[DispatchKey, RegistrationHandle] = {}


def _register(key: DispatchKey, fn: Callable | None, debug: str) -> None:
    if fn is None:
        kernel = make_fallthrough(debug)
    else:
        kernel = KernelFunction(fn, keyset_arg="boxed_raw", debug=debug)
    _handles[key] = dispatcher.register_fallback(key, kernel)


def override(
    key: DispatchKey, fn: Callable | None, debug: str | None = None, *, keyset_arg="boxed"
) -> None:
    """Replace the built-in fallback at ``key`` (``fn=None``: a fallthrough).

    ``fn`` is boxed, ``fn(op_handle, keyset, *args)``, unless ``keyset_arg`` says otherwise
    (``"boxed_raw"``: ``fn(op_handle, raw_bits, *args)``, as the built-ins are).
    """
    debug = debug if debug is not None else caller_debug()
    with dispatcher.lock:
        handle = _handles.pop(key, None)
        if handle is not None:
            handle.remove()
        if fn is None:
            kernel = make_fallthrough(debug)
        else:
            kernel = KernelFunction(fn, keyset_arg=keyset_arg, debug=debug)
        _handles[key] = dispatcher.register_fallback(key, kernel)


def remove(key: DispatchKey) -> None:
    """Drop the built-in fallback at ``key`` (for a layer that registers its own)."""
    with dispatcher.lock:
        handle = _handles.pop(key, None)
        if handle is not None:
            handle.remove()


def restore(key: DispatchKey) -> None:
    """Put back ember's built-in fallback at ``key`` (undoing ``override`` / ``remove``)."""
    with dispatcher.lock:
        remove(key)
        for builtin_key, fn, debug in BUILTIN_FALLBACKS:
            if builtin_key == key:
                _register(key, fn, debug)


for _key, _fn, _debug in BUILTIN_FALLBACKS:
    _register(_key, _fn, _debug)
