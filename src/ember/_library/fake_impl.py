"""Fake impls: the Meta kernel that register_fake installs, and get_ctx.

Layer: top (custom-op layer). Mirrors torch/_library/fake_impl.py and
simple_registry.py. In: a user's fake function ``f(*args, **kwargs)`` that
computes output metadata from input metadata. Out: one ``FakeImplHolder`` per
operator (newest registration wins, deregistered with its Library), and a
Python Meta kernel calling the current fake function, so FakeTensorMode and
meta tensors see shapes, dtypes and strides without data (facts §10.2).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

from ember import _C
from ember._dispatch.dispatcher import RegistrationHandle

__all__ = ["FakeImplHolder", "FakeImplCtx", "get_ctx", "holder_for"]


class _Kernel:
    __slots__ = ("func", "source")

    def __init__(self, func: Callable, source: str) -> None:
        self.func = func
        self.source = source


class FakeImplHolder:
    """The fake impls registered for one operator, oldest first."""

    def __init__(self, qualname: str) -> None:
        self.qualname = qualname
        self.kernels: list[_Kernel] = []

    @property
    def kernel(self) -> _Kernel | None:
        return self.kernels[-1] if self.kernels else None

    def register(self, func: Callable, source: str, lib, *, allow_override=True) -> None:
        """Store ``func`` and register the Meta kernel on ``lib`` (undone with the Library)."""
        if not allow_override:
            self._check_no_override()
        kernel = _Kernel(func, source)
        self.kernels.append(kernel)
        try:
            lib.impl(
                self.qualname, construct_meta_kernel(self.qualname, self), "Meta",
                allow_override=allow_override,
            )  # fmt: skip
        except Exception:
            self.kernels.remove(kernel)
            raise
        lib._registration_handles.append(RegistrationHandle(lambda: self.kernels.remove(kernel)))

    def _check_no_override(self) -> None:
        name = self.qualname
        if self.kernel is not None:
            raise RuntimeError(
                f"register_fake(...): the operator {name} already has a fake impl registered "
                f"at {self.kernel.source}."
            )
        if _C._dispatch_has_kernel_for_dispatch_key(name, "Meta"):
            raise RuntimeError(
                f"register_fake(...): the operator {name} already has a DispatchKey::Meta "
                "implementation via a pre-existing torch.library or TORCH_LIBRARY registration. "
                "Please either remove that registration or don't call register_fake."
            )
        if _C._dispatch_has_kernel_for_dispatch_key(name, "CompositeImplicitAutograd"):
            raise RuntimeError(
                f"register_fake(...): the operator {name} already has an implementation for "
                "this device type via a pre-existing registration to "
                "DispatchKey::CompositeImplicitAutograd.CompositeImplicitAutograd operators do "
                "not need a fake impl; instead, the operator will decompose into its "
                "constituents and those can have fake impls defined on them."
            )


_holders: dict[str, FakeImplHolder] = {}


def holder_for(qualname: str) -> FakeImplHolder:
    holder = _holders.get(qualname)
    if holder is None:
        holder = _holders[qualname] = FakeImplHolder(qualname)
    return holder


class _CtxState(threading.local):
    def __init__(self) -> None:
        self.ctx: FakeImplCtx | None = None


_current = _CtxState()


class FakeImplCtx:
    """What a fake impl may ask for while it runs (``ember.library.get_ctx()``)."""

    def __init__(self, qualname: str, source: str) -> None:
        self._qualname = qualname
        self._source = source

    def new_dynamic_size(self, *, min=0, max=None):  # noqa: A002 (PyTorch's names)
        """Meta tensors cannot carry data-dependent sizes: PyTorch's error."""
        raise RuntimeError(
            f"{self._qualname} ({self._source}): You're trying to run this operator with meta "
            "Tensors (as opposed to FakeTensors), but this operator may return an output Tensor "
            "with data-dependent shape. Meta Tensors don't support operators with outputs that "
            "have data-dependent shapes but FakeTensors do. If your operator does not return an "
            "output with data-dependent shape, make sure the FakeTensor and/or meta kernel does "
            "not call torch.library.get_ctx(). Otherwise, please use FakeTensors."
        )


@contextlib.contextmanager
def set_ctx_getter(ctx: FakeImplCtx):
    previous, _current.ctx = _current.ctx, ctx
    try:
        yield
    finally:
        _current.ctx = previous


def get_ctx() -> FakeImplCtx:
    """The context of the fake impl now running (torch.library.get_ctx)."""
    if _current.ctx is None:
        raise AssertionError("get_ctx() can only be called inside a fake impl")
    return _current.ctx


def construct_meta_kernel(qualname: str, holder: FakeImplHolder) -> Callable:
    """A Meta kernel that runs the holder's newest fake impl with a ctx set."""

    def meta_kernel(*args, **kwargs):
        kernel = holder.kernel
        if kernel is None:
            raise AssertionError("fake_impl_holder.kernel must not be None")
        with set_ctx_getter(FakeImplCtx(qualname, kernel.source)):
            return kernel.func(*args, **kwargs)

    meta_kernel.__qualname__ = f"meta_kernel[{qualname}]"
    return meta_kernel
