"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode.

Layer: autograd. In: the thread-local AutogradState (_c10/grad_mode.py) and
the dispatch TLS (_c10/tls.py). Out: context managers that are also
decorators, restoring what they found even when the body raises.
Mirrors torch/autograd/grad_mode.py and c10/core/InferenceMode.h.

Note [Inference mode]
---------------------
no_grad changes only GradMode: the autograd kernels still run and simply
record nothing. inference_mode goes further and changes dispatch itself: it
removes ADInplaceOrView from the TLS include set and adds the autograd keys
(AutogradFunctionality, AutogradOther, AutogradNestedTensor) to the exclude
set, so calls skip the autograd layer entirely; tensors created inside are
inference tensors, whose key set has neither ADInplaceOrView nor the
autograd keys (facts §7.1-7.2). inference_mode(False) reverses both changes.
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import autograd_dispatch_keyset, key_bits
from ember._c10.grad_mode import autograd_state, is_grad_enabled, is_inference_mode_enabled
from ember._c10.naming import prefix
from ember._c10.tls import local_state
from ember.aten.python_arg_convert import tp_name

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
]

_AD_INPLACE_OR_VIEW = key_bits(DispatchKey.ADInplaceOrView)
_AUTOGRAD_KEYS = autograd_dispatch_keyset.raw_repr()


def _wrap_generator(ctx_factory, func):
    """Each step of the generator runs inside a fresh context (torch.utils._contextlib)."""

    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException:
                    with ctx_factory():
                        response = gen.throw(*sys.exc_info())
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value

    return generator_context


def _context_decorator(ctx_factory, func):
    """context_decorator: `func` (anything: it is not checked) run inside a fresh context."""
    if inspect.isclass(func):
        raise RuntimeError(
            "Cannot decorate classes; it is ambiguous whether or not only the constructor or "
            "all methods should have the context manager applied; additionally, decorating a "
            "class at definition-site will prevent use of the identifier as a conventional "
            "type.  To specify which methods to decorate, decorate each of them individually."
        )
    if inspect.isgeneratorfunction(func):
        return _wrap_generator(ctx_factory, func)

    @functools.wraps(func)
    def decorate_context(*args, **kwargs):
        with ctx_factory():
            return func(*args, **kwargs)

    return decorate_context


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generator functions)."""

    def __call__(self, orig_func):
        if inspect.isclass(orig_func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior "
                "of class decoration, you can directly decorate the `__init__` method and "
                "nothing else.",
                FutureWarning,
                stacklevel=2,
            )
            func = lambda *args, **kwargs: orig_func(*args, **kwargs)  # noqa: E731
        else:
            func = orig_func
        return _context_decorator(self.clone, func)

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Usable as a decorator without parentheses: `@no_grad`. Any argument is taken for
    the function to decorate, as in PyTorch (`no_grad(1)` gives a function)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):  # noqa: N801 (PyTorch's name)
    """Disable gradient recording; dispatch is unchanged (the autograd kernels still run)."""

    def __enter__(self) -> None:
        self._prev = autograd_state.grad_mode
        autograd_state.grad_mode = False

    def __exit__(self, *exc: object) -> None:
        autograd_state.grad_mode = self._prev


class enable_grad(_NoParamDecoratorContextManager):  # noqa: N801
    """Enable gradient recording (inside inference mode the autograd keys stay excluded)."""

    def __enter__(self) -> None:
        self._prev = autograd_state.grad_mode
        autograd_state.grad_mode = True

    def __exit__(self, *exc: object) -> None:
        autograd_state.grad_mode = self._prev


def _set_grad_enabled(enabled) -> None:
    """torch._C._set_grad_enabled: a bool, as its parser takes it."""
    if enabled is not True and enabled is not False:
        raise TypeError(
            "set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
            + tp_name(enabled)
        )
    autograd_state.grad_mode = enabled


class set_grad_enabled(_DecoratorContextManager):  # noqa: N801
    """Set grad mode; takes effect at once when called, and restores on exit as a context."""

    def __init__(self, mode: bool) -> None:
        self.prev = autograd_state.grad_mode
        self.mode = mode
        _set_grad_enabled(mode)

    def __call__(self, func):
        autograd_state.grad_mode = self.prev
        return super().__call__(func)

    def __enter__(self) -> None:
        _set_grad_enabled(self.mode)

    def __exit__(self, *exc: object) -> None:
        _set_grad_enabled(self.prev)

    def __repr__(self) -> str:
        return f"{prefix()}.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):  # noqa: N801
    """Inference mode. See Note [Inference mode]."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # used as a bare decorator: @inference_mode

    def __enter__(self) -> None:
        state = autograd_state
        self._saved = (
            state.grad_mode,
            state.inference_mode,
            state.fw_grad_mode,
            state.multithreading_enabled,
            local_state.included,
            local_state.excluded,
        )
        if self.mode:
            state.grad_mode = False
            state.inference_mode = True
            state.fw_grad_mode = False
            state.multithreading_enabled = False
            local_state.included &= ~_AD_INPLACE_OR_VIEW
            local_state.excluded |= _AUTOGRAD_KEYS
        else:
            state.grad_mode = True
            state.inference_mode = False
            state.fw_grad_mode = True
            state.multithreading_enabled = True
            local_state.included |= _AD_INPLACE_OR_VIEW
            local_state.excluded &= ~_AUTOGRAD_KEYS

    def __exit__(self, *exc: object) -> None:
        (
            autograd_state.grad_mode,
            autograd_state.inference_mode,
            autograd_state.fw_grad_mode,
            autograd_state.multithreading_enabled,
            local_state.included,
            local_state.excluded,
        ) = self._saved

    def clone(self):
        return self.__class__(self.mode)
