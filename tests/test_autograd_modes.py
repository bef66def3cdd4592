"""Grad modes, inference mode and views under in-place operations, against torch: the
inference-mode grid (tensor kind x op kind x inside/outside), CopySlices, the view errors,
and the autograd fallback's warning."""

from __future__ import annotations

import itertools
import warnings

import pytest
from autograd_support import same_outcome
from oracle import torch
from test_autograd_engine import same

import ember


def _describe(result):
    return (
        result.tolist(),
        result.is_inference(),
        result.requires_grad,
        type(result.grad_fn).__name__ if result.grad_fn is not None else None,
    )


def _make(t, kind):
    if kind == "inference":
        with t.inference_mode():
            return t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    if kind == "normal":
        return t.tensor([1.0, 2.0, 3.0])
    return t.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1  # a non-leaf that requires grad


OPS = {
    "functional": lambda x: x * 2,
    "inplace": lambda x: x.add_(1),
    "view": lambda x: x.view(3),
    "view_then_inplace": lambda x: x.view(3).mul_(2),
}


@pytest.mark.parametrize(
    "kind, op, inside",
    list(itertools.product(["inference", "normal", "requires_grad"], OPS, [True, False])),
)
def test_inference_mode_grid(kind, op, inside):
    def program(t):
        x = _make(t, kind)
        if inside:
            with t.inference_mode():
                result = OPS[op](x)
        else:
            result = OPS[op](x)
        return _describe(result), x.is_inference()

    same(program)


def test_inference_tensor_errors():
    def version(t):
        with t.inference_mode():
            x = t.ones(2)
        return x._version

    def saved(t):
        with t.inference_mode():
            x = t.ones(2)
        return t.tensor([1.0, 2.0], requires_grad=True) * x

    def requires(t):
        with t.inference_mode():
            x = t.ones(2)
        x.requires_grad_()

    for program in (version, saved, requires):
        assert same(program)[0] == "raised"


def test_modes_state_and_keys():
    def program(t):
        rows = []
        for context in (t.no_grad(), t.enable_grad(), t.inference_mode(), t.inference_mode(False)):
            with context:
                x = t.ones(2)
                rows.append(
                    (
                        t.is_grad_enabled(),
                        t.is_inference_mode_enabled(),
                        x.is_inference(),
                        str(t._C._dispatch_keys(x)),
                        str(t._C._dispatch_tls_local_exclude_set()),
                    )
                )
        with t.inference_mode():
            with t.enable_grad():
                rows.append(t.is_grad_enabled())
        with t.set_grad_enabled(False):
            rows.append(t.is_grad_enabled())
        t.set_grad_enabled(False)
        rows.append(t.is_grad_enabled())
        t.set_grad_enabled(True)
        return rows

    same(program)


def test_modes_as_decorators():
    def program(t):
        @t.no_grad()
        def f(x):
            return x * 2

        @t.inference_mode()
        def g(x):
            return x * 2

        x = t.ones(2, requires_grad=True)
        return f(x).requires_grad, g(x).is_inference(), t.is_grad_enabled()

    same(program)


def test_inplace_on_view_rewrites_the_base_history():
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        w = t.tensor([5.0, 6.0], requires_grad=True)
        base = x * 1
        view = base[1:3]
        view.mul_(w)
        names = (base.grad_fn.name(), view.grad_fn.name(), base.grad_fn.next_functions)
        names = (names[0], names[1], [n.name() if n else None for n, _ in names[2]])
        base.sum().backward()
        return names, x.grad, w.grad, view._version

    same(program)


def test_inplace_on_view_of_plain_tensor_with_grad_operand():
    def program(t):
        base = t.zeros(4)
        w = t.tensor([1.0, 2.0], requires_grad=True)
        base[:2].mul_(w)
        base[2:].add_(w)
        (base * t.arange(4.0)).sum().backward()
        return base.requires_grad, base.grad_fn.name(), w.grad

    same(program)


def test_view_errors():
    def multi_output(t):
        x = t.ones(2, 3, requires_grad=True) * 1
        x.unbind(0)[0].mul_(2)

    def no_grad_view(t):
        x = t.ones(3, requires_grad=True) * 1
        with t.no_grad():
            v = x[:2]
        v.mul_(t.ones(2, requires_grad=True))

    def inference_view(t):
        x = t.ones(3)
        with t.inference_mode():
            v = x[:2]
        v.mul_(t.ones(2, requires_grad=True))

    for program in (multi_output, no_grad_view, inference_view):
        assert same(program)[0] == "raised"


def test_versions_shared_by_views():
    def program(t):
        x = t.ones(4)
        v = x[1:]
        v.add_(1)
        x.mul_(2)
        return x._version, v._version, x.detach()._version

    same(program)


def test_non_differentiable_ops_have_autograd_kernels():
    for name in ("aten::eq.Tensor", "aten::argmax", "aten::isnan", "aten::detach", "aten::mm"):
        ours = ember._C._dispatch_dump_table(name)
        theirs = torch._C._dispatch_dump_table(name)
        ours_line = [line for line in ours.splitlines() if line.startswith("AutogradCPU:")]
        theirs_line = [line for line in theirs.splitlines() if line.startswith("AutogradCPU:")]
        assert ours_line[0].endswith("[autograd kernel]")
        assert theirs_line[0].endswith("[autograd kernel]")


def test_non_differentiable_outputs():
    def program(t):
        x = t.tensor([1.0, -2.0, 3.0], requires_grad=True)
        return [
            r.requires_grad
            for r in (x > 0, x.argmax(), x.isnan(), x.detach(), t.zeros_like(x), x.max(0)[1])
        ]

    same(program)


def _custom_op(t, namespace):
    lib = t.library.Library(namespace, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: x.detach() * 2, "CPU")
    return lib, getattr(t.ops, namespace).foo


def test_autograd_fallback_warns_and_gives_no_gradient():
    def program(t):
        lib, foo = _custom_op(t, "agfallback")
        x = t.ones(2, requires_grad=True)
        y = foo(x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            (y * x).sum().backward()
        messages = [str(w.message).split(" (Triggered internally")[0] for w in caught]
        return y.grad_fn.name(), x.grad, messages, t._C._get_autograd_fallback_mode()

    same(program)


def test_autograd_fallback_modes():
    def program(t):
        results = [t._C._get_autograd_fallback_mode()]
        try:
            t._C._set_autograd_fallback_mode("error")
        except RuntimeError as error:
            results.append(str(error))
        t._C._set_autograd_fallback_mode("nothing")
        lib, foo = _custom_op(t, "agnothing")
        results.append(foo(t.ones(2, requires_grad=True)).requires_grad)
        t._C._set_autograd_fallback_mode("warn")
        return results

    same(program)


# -- the mode objects' own arguments --------------------------------------------------------


def _with(mode):
    with mode:
        pass


def _decorated(t, mode, generator=False):
    if generator:

        def gen():
            yield t.is_grad_enabled()
            yield t.is_grad_enabled()

        return list(mode(gen)())
    return mode(lambda: t.is_grad_enabled())()


class _Plain:
    pass


MODE_ARGUMENTS = {
    "no_grad_with_argument": lambda t: _with(t.no_grad(1)),
    "enable_grad_with_argument": lambda t: _with(t.enable_grad(True)),
    "inference_mode_int": lambda t: _with(t.inference_mode(0)),
    "no_grad_of_a_number": lambda t: t.no_grad(1)(),
    "no_grad_bare_decorator": lambda t: t.no_grad(lambda: t.is_grad_enabled())(),
    "no_grad_generator": lambda t: _decorated(t, t.no_grad(), generator=True),
    "no_grad_class": lambda t: type(t.no_grad()(_Plain)()).__name__,
    "set_grad_enabled_str": lambda t: t.set_grad_enabled("x"),
    "set_grad_enabled_int": lambda t: t.set_grad_enabled(1),
    "set_grad_enabled_none": lambda t: t.set_grad_enabled(None),
    "set_grad_enabled_call": lambda t: (t.set_grad_enabled(False), t.is_grad_enabled())[1],
    "set_grad_enabled_decorator": lambda t: _decorated(t, t.set_grad_enabled(False)),
}


@pytest.mark.parametrize("name", sorted(MODE_ARGUMENTS))
def test_mode_arguments_as_torch(name):
    def program(t):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return MODE_ARGUMENTS[name](t)
        finally:
            t.set_grad_enabled(True)

    same_outcome(program)
