"""torch.overrides.enable_reentrant_dispatch / torch._C._RestorePythonTLSSnapshot, against
PyTorch 2.13: inside ``__torch_dispatch__`` the dispatch state from before the Python key
comes back (autograd runs on inner tensors), only there, and is put back on exit."""

from __future__ import annotations

import re

import pytest
from oracle import torch

import ember


def _text(value) -> str:
    return re.sub(r"\btorch\b", "ember", str(value))


def _wrapper_class(lib, reentrant: bool, seen: list):
    class Wrapper(lib.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = lib.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            def unwrap(x):
                return x.elem if isinstance(x, cls) else x

            inner = [unwrap(a) for a in args]
            seen.append(
                (
                    _text(lib._C._dispatch_tls_local_include_set()),
                    _text(lib._C._dispatch_tls_local_exclude_set()),
                )
            )
            if reentrant:
                with lib.overrides.enable_reentrant_dispatch():
                    seen.append(
                        (
                            _text(lib._C._dispatch_tls_local_include_set()),
                            _text(lib._C._dispatch_tls_local_exclude_set()),
                        )
                    )
                    out = func(*inner, **(kwargs or {}))
            else:
                out = func(*inner, **(kwargs or {}))
            return cls(out) if isinstance(out, lib.Tensor) else out

    return Wrapper


@pytest.mark.parametrize("reentrant", [True, False])
def test_inner_autograd_matches_torch(reentrant):
    def run(lib):
        seen = []
        wrapper = _wrapper_class(lib, reentrant, seen)
        leaf = lib.rand(2, requires_grad=True)
        out = wrapper(leaf) + 2
        inner_fn = out.elem.grad_fn
        return (
            out.requires_grad,
            out.grad_fn,
            out.elem.requires_grad,
            type(inner_fn).__name__ if inner_fn is not None else None,
            seen,
            _text(lib._C._dispatch_tls_local_include_set()),
            _text(lib._C._dispatch_tls_local_exclude_set()),
        )

    assert run(ember) == run(torch)


def test_outside_a_handler_is_refused_as_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as raised:
            with lib.overrides.enable_reentrant_dispatch():
                pass
        assert str(raised.value) == (
            "Accessing torch dispatch state outside of '__torch_dispatch__' is not allowed."
        )
        guard = lib._C._RestorePythonTLSSnapshot()  # the guard is made on entering
        with pytest.raises(RuntimeError, match="outside of '__torch_dispatch__'"):
            guard.__enter__()


def test_state_comes_back_after_an_error_in_the_body():
    def run(lib):
        seen = []

        class Failing(lib.Tensor):
            @staticmethod
            def __new__(cls, elem):
                return lib.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype)

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                before = (
                    _text(lib._C._dispatch_tls_local_include_set()),
                    _text(lib._C._dispatch_tls_local_exclude_set()),
                )
                try:
                    with lib.overrides.enable_reentrant_dispatch():
                        raise ValueError("inside")
                except ValueError:
                    pass
                after = (
                    _text(lib._C._dispatch_tls_local_include_set()),
                    _text(lib._C._dispatch_tls_local_exclude_set()),
                )
                seen.append(before == after)
                return lib.zeros(2)

        Failing(lib.ones(2)).neg()
        return seen

    assert run(ember) == run(torch) == [True]


def test_reentrant_call_on_a_plain_tensor_under_a_mode():
    """A handler restores a snapshot taken while a mode was on (its Python key included)
    and calls an op on a plain tensor: with no mode left and no subclass, the call goes
    on below Python (pytorch/pytorch#136565)."""

    def run(lib):
        mode_saw = []

        class Mode(lib.utils._python_dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                mode_saw.append(str(func))
                return func(*args, **(kwargs or {}))

        class Sub(lib.Tensor):
            @staticmethod
            def __new__(cls, elem):
                r = lib.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype)
                r.elem = elem
                return r

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                with lib.overrides.enable_reentrant_dispatch():
                    return func(args[0].elem)

        elem = lib.tensor([1.0, 2.0])
        with Mode():
            result = Sub(elem).clone()
        return type(result).__name__, result.tolist(), mode_saw

    assert run(ember) == run(torch)
