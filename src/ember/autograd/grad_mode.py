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

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import autograd_dispatch_keyset, key_bits
from ember._c10.grad_mode import autograd_state, is_grad_enabled, is_inference_mode_enabled
from ember._c10.tls import local_state

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


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generator functions)."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError(
                "Please use ember.no_grad() / enable_grad() ... on a function, not a class."
            )
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return decorated

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def generator(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    with self.clone():
                        response = gen.send(request)
            except StopIteration as stop:
                return stop.value

        return generator

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):  # noqa: N801 (PyTorch's name)
    """Disable gradient recording; dispatch is unchanged (the autograd kernels still run)."""

    def __enter__(self) -> None:
        self._prev = autograd_state.grad_mode
        autograd_state.grad_mode = False

    def __exit__(self, *exc: object) -> None:
        autograd_state.grad_mode = self._prev


class enable_grad(_DecoratorContextManager):  # noqa: N801
    """Enable gradient recording (inside inference mode the autograd keys stay excluded)."""

    def __enter__(self) -> None:
        self._prev = autograd_state.grad_mode
        autograd_state.grad_mode = True

    def __exit__(self, *exc: object) -> None:
        autograd_state.grad_mode = self._prev


class set_grad_enabled(_DecoratorContextManager):  # noqa: N801
    """Set grad mode; takes effect at once when called, and restores on exit as a context."""

    def __init__(self, mode: bool) -> None:
        self.prev = autograd_state.grad_mode
        self.mode = bool(mode)
        autograd_state.grad_mode = self.mode

    def __call__(self, func):
        autograd_state.grad_mode = self.prev
        return super().__call__(func)

    def __enter__(self) -> None:
        autograd_state.grad_mode = self.mode

    def __exit__(self, *exc: object) -> None:
        autograd_state.grad_mode = self.prev

    def __repr__(self) -> str:
        return f"ember.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

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
