"""autograd.Function.jvp against torch: ctx.save_for_forward, the setup_context style,
several outputs, the forward and jvp modes, and the errors of a missing or wrong jvp."""

from __future__ import annotations

import numpy as np
from oracle import torch

import ember


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001 (compared, type and message)
        return type(error).__name__, str(error)
    return None


def _functions(lib):
    class Sin(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_forward(x)
            ctx.save_for_backward(x)
            ctx.k = k
            ctx.modes = (lib._C._is_fwd_grad_enabled(), lib.is_grad_enabled())
            return x.sin() * k

        @staticmethod
        def jvp(ctx, x_t, k_t):
            (x,) = ctx.saved_tensors
            ctx.jvp_modes = (type(x_t).__name__, k_t, lib._C._is_fwd_grad_enabled())
            return x_t * x.cos() * ctx.k

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x.cos() * ctx.k, None

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2, x * 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(*inputs)

        @staticmethod
        def jvp(ctx, x_t):
            (x,) = ctx.saved_tensors
            return x_t * 2, x_t * 3 + x

    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad

    class TooFew(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def jvp(ctx, x_t):
            return x_t

    class IntOutput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, (x > 0)

        @staticmethod
        def jvp(ctx, x_t):
            return x_t, x_t

    class InPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def jvp(ctx, x_t):
            return x_t.mul_(2)

    class InPlaceWrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def jvp(ctx, x_t):
            return x_t * 2

    return Sin, Two, NoJvp, TooFew, IntOutput, InPlace, InPlaceWrong


def _run(lib):
    fw = lib.autograd.forward_ad
    Sin, Two, NoJvp, TooFew, IntOutput, InPlace, InPlaceWrong = _functions(lib)
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    shown = []
    with fw.dual_level():
        dual = fw.make_dual(x, lib.tensor([1.0, 2.0]))
        y = Sin.apply(dual, 3.0)
        primal, tangent = fw.unpack_dual(y)
        shown.append(np.round(tangent.detach().numpy(), 5).tolist())
        shown.append(tangent.grad_fn.name())
        shown.append(type(y.grad_fn).__name__)
        a, b = Two.apply(dual)
        shown.append(fw.unpack_dual(a).tangent.tolist())
        shown.append(fw.unpack_dual(b).tangent.tolist())
        for cls in (NoJvp, TooFew, IntOutput, InPlaceWrong):
            shown.append(_error(lambda cls=cls: cls.apply(fw.make_dual(lib.ones(2), lib.ones(2)))))
        shown.append(fw.unpack_dual(Sin.apply(lib.ones(2), 2.0)).tangent)
        inplace = fw.make_dual(lib.ones(2), lib.full((2,), 3.0))
        InPlace.apply(inplace)
        shown.append(fw.unpack_dual(inplace).tangent.tolist())
        plain = lib.ones(2)
        InPlace.apply(plain)
        shown.append(fw.unpack_dual(plain).tangent)
        y.sum().backward()
    shown.append(np.round(x.grad.numpy(), 5).tolist())
    return shown


def _modes(lib):
    fw = lib.autograd.forward_ad
    Sin = _functions(lib)[0]
    ctx_holder = []
    original = Sin.jvp

    def spy(ctx, *tangents):
        ctx_holder.append(ctx)
        return original(ctx, *tangents)

    Sin.jvp = staticmethod(spy)
    with fw.dual_level():
        Sin.apply(fw.make_dual(lib.ones(2), lib.ones(2)), 1.0)
    ctx = ctx_holder[0]
    return ctx.modes, ctx.jvp_modes


def test_custom_function_jvp_matches_torch():
    assert repr(_run(ember)).replace("ember.", "torch.") == repr(_run(torch))


def test_modes_inside_forward_and_jvp():
    assert _modes(ember) == _modes(torch)


def test_forward_grad_mode_is_off_inside_forward_without_a_level():
    def run(lib):
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                seen.append(lib._C._is_fwd_grad_enabled())
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad

        F.apply(lib.ones(1))
        F.apply(lib.ones(1, requires_grad=True))
        return seen, lib._C._is_fwd_grad_enabled()

    assert run(ember) == run(torch)
