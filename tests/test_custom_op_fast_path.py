"""The fast paths of a custom operator call behave exactly like the full ones.

Layer: tests (ember._ops, ember.library, ember.autograd.fallback). Calling an
operator defined with ``Library.define/impl`` skips ``schema.bind`` when the
arguments already have the schema's exact types (Note [OpOverload fast path]),
the Python-kernel adapter passes a plain schema's arguments straight through,
and the autograd fallback scans for ``requires_grad`` without building lists.
Each test drives a call down the fast path and down the full one and requires
the same observations (against torch where it can, else against ember's own
slow path).
"""

from __future__ import annotations

import itertools
import re

import pytest
from conftest import normalise

import ember
from ember._dispatch import schema_binding
from ember._ops import _number_as_tensor
from ember.autograd import fallback

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
_names = itertools.count()


def _ns() -> str:
    return f"efast{next(_names)}"


def both(scenario):
    """Run ``scenario(lib, ns)`` on ember and torch with one fresh namespace; compare."""
    ns = _ns()
    ours = scenario(ember, ns)
    theirs = scenario(torch, ns)
    assert ours == theirs


def outcome(fn):
    try:
        result = fn()
    except Exception as error:  # noqa: BLE001 (comparing whatever is raised)
        text = re.sub(r"(torch|ember)\.", "LIB.", normalise(str(error)))
        return type(error).__name__, text
    return "OK", result


def seen(lib, args, kwargs) -> tuple:
    """What a kernel received, library-neutral: tensors as 'T', other values with their type."""

    def one(value):
        if isinstance(value, lib.Tensor):
            return "T"
        return type(value).__name__, value

    return tuple(one(a) for a in args), {k: one(v) for k, v in kwargs.items()}


@pytest.fixture
def bind_calls(monkeypatch):
    """How many times BindPlan.bind ran (the full binding)."""
    calls = []
    original = schema_binding.BindPlan.bind

    def counting(self, args, kwargs):
        calls.append(self.schema.name)
        return original(self, args, kwargs)

    monkeypatch.setattr(schema_binding.BindPlan, "bind", counting)
    return calls


# -- OpOverload.__call__ --------------------------------------------------------------------
def test_exact_types_skip_bind_and_anything_else_binds(bind_calls):
    ns = _ns()
    lib = ember.library.Library(ns, "DEF")
    lib.define("f(Tensor x, int n, float s, bool b, str t) -> Tensor")
    lib.define("g(Tensor x) -> Tensor")
    lib.define("h(Tensor x, int n=1, *, float s=2.0) -> Tensor")
    lib.define("k(Tensor x, int[] d=[1]) -> Tensor")
    lib.impl("f", lambda x, n, s, b, t: x, "CPU")
    lib.impl("g", lambda x: x, "CPU")
    received = []
    lib.impl("h", lambda x, n=1, s=2.0: received.append((n, s)) or x, "CPU")
    lib.impl("k", lambda x, d=(1,): x, "CPU")
    ops = getattr(ember.ops, ns)
    x = ember.ones(2)

    class Sub(ember.Tensor):
        pass

    ops.f.default(x, 1, 1.5, True, "a")
    ops.g.default(x)
    ops.h.default(x, 2)  # the keyword-only default appended, as bind appends it
    ops.h.default(x)  # immutable defaults to fill
    assert bind_calls == []
    assert received == [(2, 2.0), (1, 2.0)]
    ops.f.default(x, 1, 1, True, "a")  # an int for a float: converted by bind
    ops.f.default(x, True, 1.5, True, "a")  # a bool for an int
    ops.g.default(x=x)
    ops.g.default(x.as_subclass(Sub))
    ops.h.default(x, True)  # a bool for an int, before the defaults
    ops.k.default(x)  # a list default: bind makes a fresh list
    assert len(bind_calls) == 6
    lib._destroy()


@needs_torch
def test_kernel_receives_what_torch_passes():
    def scenario(lib, ns):
        library = lib.library.Library(ns, "DEF")
        library.define("f(Tensor x, int n, float s, bool b, str t) -> Tensor")
        library.define("h(Tensor x, int n=2, *, float s=1.0) -> Tensor")
        received = []

        def kernel(*args, **kwargs):
            received.append(seen(lib, args, kwargs))
            return args[0]

        library.impl("f", kernel, "CPU")
        library.impl("h", kernel, "CPU")
        f = getattr(lib.ops, ns).f.default
        h = getattr(lib.ops, ns).h.default
        x = lib.ones(2)
        calls = [
            lambda: f(x, 2, 1.5, True, "a"),
            lambda: f(x, 2, 1, True, "a"),
            lambda: f(x, 2, 1.5, 0, "a"),
            lambda: f(x, n=2, s=1.5, b=False, t="a"),
            lambda: h(x),
            lambda: h(x, 2),
            lambda: h(x, 3),
            lambda: h(x, 2, s=1.0),
            lambda: h(x, s=2.5),
        ]
        results = []
        for call in calls * 2:  # the second round runs with every cache warm
            received.clear()
            results.append((outcome(lambda c=call: c() is x), list(received)))
        library._destroy()
        return results

    both(scenario)


@needs_torch
def test_binding_errors_match_torch():
    def scenario(lib, ns):
        library = lib.library.Library(ns, "DEF")
        library.define("f(Tensor x, int n) -> Tensor")
        library.define("g(Tensor x) -> Tensor")
        library.impl("f", lambda x, n: x, "CPU")
        library.impl("g", lambda x: x, "CPU")
        f = getattr(lib.ops, ns).f.default
        g = getattr(lib.ops, ns).g.default
        x = lib.ones(2)
        calls = [
            lambda: g(1.0),
            lambda: g(),
            lambda: f(x, 2.5),
            lambda: f(x, "2"),
            lambda: f(2, x),
            lambda: f(x),
        ]
        results = [outcome(lambda c=call: c() is x) for call in calls]
        library._destroy()
        return results

    both(scenario)


def test_fast_path_errors_are_the_binding_errors():
    """Calls shaped like the fast path's but with a wrong type raise bind's own error."""
    ns = _ns()
    lib = ember.library.Library(ns, "DEF")
    lib.define("f(Tensor x, int n, str s) -> Tensor")
    lib.impl("f", lambda x, n, s: x, "CPU")
    op = getattr(ember.ops, ns).f.default
    x = ember.ones(1)
    for args in [(1, 2, "a"), (x, 2.0, "a"), (x, 2, 3), (x, None, "a"), (x, 2), (x, 2, "a", x)]:
        with pytest.raises(RuntimeError) as expected:
            op._schema.bind(args, {})
        with pytest.raises(RuntimeError) as raised:
            op(*args)
        assert str(raised.value) == str(expected.value)
    lib._destroy()


def test_aten_numbers_for_tensors_still_bind():
    """aten accepts a Python number for a Tensor argument; the fast path must not reject it."""
    x = ember.ones(2)
    assert ember.ops.aten.mul.Tensor(x, 3).tolist() == [3.0, 3.0]
    assert ember.ops.aten.mul.Tensor(x, x).tolist() == [1.0, 1.0]


# -- the Python-kernel adapter --------------------------------------------------------------
@pytest.mark.parametrize("with_keyset", [False, True])
def test_wrapped_numbers_reach_python_kernels_as_numbers(with_keyset):
    ns = _ns()
    lib = ember.library.Library(ns, "DEF")
    lib.define("f(Tensor x, Tensor y) -> Tensor")
    received = []

    def kernel(*args):
        if with_keyset:
            args = args[1:]
        received.append(seen(ember, args, {}))
        return None  # a number is no Tensor result (Note [Results of Python kernels])

    lib.impl("f", kernel, "CPU", with_keyset=with_keyset)
    handle = getattr(ember.ops, ns).f.default._op
    x = ember.ones(1)
    for _ in range(2):  # the first call learns that the schema is plain
        handle.call(x, x)
        handle.call(x, _number_as_tensor(2.5))
        handle.call(_number_as_tensor(3), x)
    expected = [(("T", "T"), {}), (("T", ("float", 2.5)), {}), ((("int", 3), "T"), {})]
    assert received == expected * 2
    lib._destroy()


def test_a_redefined_schema_is_followed_by_the_adapter():
    """The IMPL kernel outlives its schema; a new schema with defaults changes what it gets."""
    ns = _ns()
    impl_lib = ember.library.Library(ns, "IMPL")
    received = []

    def kernel(*args, **kwargs):
        received.append(seen(ember, args, kwargs))
        return args[0]

    impl_lib.impl("f", kernel, "CPU")
    x = ember.ones(1)
    first = ember.library.Library(ns, "DEF")
    first.define("f(Tensor x, int n) -> Tensor")
    getattr(ember.ops, ns).f.default(x, 2)
    getattr(ember.ops, ns).f.default(x, 2)
    first._destroy()
    second = ember.library.Library(ns, "DEF")
    second.define("f(Tensor x, int n=2, *, int k=0) -> Tensor")
    getattr(ember.ops, ns).f.default(x, 2)
    getattr(ember.ops, ns).f.default(x, 3, k=1)
    assert received == [
        (("T", ("int", 2)), {}),
        (("T", ("int", 2)), {}),
        (("T",), {}),
        (("T", ("int", 3)), {"k": ("int", 1)}),
    ]
    second._destroy()
    impl_lib._destroy()


# -- the autograd fallback ------------------------------------------------------------------
def _set_fallback_mode(lib, mode: str) -> None:
    if lib is torch:
        torch._C._set_autograd_fallback_mode(mode)
    else:
        fallback.set_autograd_fallback_mode(mode)


@needs_torch
def test_requires_grad_inputs_get_the_warn_grad_fn():
    def scenario(lib, ns):
        library = lib.library.Library(ns, "DEF")
        library.define("f(Tensor x, Tensor y) -> Tensor")
        library.define("cat(Tensor[] xs, int n) -> Tensor")
        library.define("count(Tensor x) -> Tensor")
        library.impl("f", lambda x, y: lib.zeros(2), "CPU")
        library.impl("cat", lambda xs, n: lib.zeros(2), "CPU")
        library.impl("count", lambda x: lib.zeros(2, dtype=lib.int64), "CPU")
        ops = getattr(lib.ops, ns)
        plain, grad = lib.ones(2), lib.ones(2, requires_grad=True)

        def name(result):
            return None if result.grad_fn is None else result.grad_fn.name()

        observed = [
            name(ops.f.default(plain, plain)),
            name(ops.f.default(plain, grad)),
            name(ops.cat.default([plain, grad], 1)),
            name(ops.cat.default((plain, plain), 1)),
            name(ops.count.default(grad)),
        ]
        with lib.no_grad():
            observed.append(name(ops.f.default(grad, grad)))
        _set_fallback_mode(lib, "nothing")
        try:
            observed.append(name(ops.f.default(grad, grad)))
        finally:
            _set_fallback_mode(lib, "warn")
        library._destroy()
        return observed

    both(scenario)


# -- tracing --------------------------------------------------------------------------------
def test_tracing_sees_the_fallback_and_the_kernel():
    ns = _ns()
    lib = ember.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")

    def f_cpu(x):
        return x

    lib.impl("f", f_cpu, "CPU")
    op = getattr(ember.ops, ns).f.default
    x = ember.ones(2)
    op(x)  # warm caches first: tracing must still see every step
    with ember.dispatch.trace() as recorded:
        op(x)
    assert recorded.text() == (
        f" [call] op=[{ns}::f], key=[AutogradCPU]\n  [redispatch] op=[{ns}::f], key=[CPU]\n"
    )
    call = recorded.events[0]
    assert call.kernel_label == "backend fallback"
    assert call.children[0].kernel_name.endswith("f_cpu")
    lib._destroy()


def test_the_fallback_marks_outputs_for_every_operator_shape():
    """Fixed-arity fallbacks (arity 1..16) and the generic one (17) find the same inputs."""
    ns = _ns()
    lib = ember.library.Library(ns, "DEF")
    wide = ", ".join(f"Tensor x{i}" for i in range(17))
    schemas = {
        "scalar": "(Tensor x, Scalar s) -> Tensor",
        "lists": "(Tensor? x, Tensor[] ys) -> Tensor",
        "wide": f"({wide}) -> Tensor",
    }
    for name, schema in schemas.items():
        lib.define(name + schema)
        lib.impl(name, lambda *args: ember.zeros(1), "CPU")
    ops = getattr(ember.ops, ns)
    plain, grad = ember.ones(1), ember.ones(1, requires_grad=True)
    cases = [
        (ops.scalar.default, (plain, 2.0), False),
        (ops.scalar.default, (plain, grad), True),  # a tensor held by a Scalar argument
        (ops.lists.default, (None, [plain, plain]), False),
        (ops.lists.default, (None, [plain, grad]), True),
        (ops.lists.default, (grad, []), True),
        (ops.wide.default, (plain,) * 17, False),
        (ops.wide.default, (plain,) * 16 + (grad,), True),
    ]
    for op, args, marked in cases:
        for _ in range(2):  # filled caches, then cached ones
            grad_fn = op(*args).grad_fn
            assert (grad_fn is not None and grad_fn.name()) == (
                marked and "torch::autograd::WarnNotImplemented"
            )
    lib._destroy()


def test_the_fast_call_is_what_bind_would_call(bind_calls):
    """OpOverload's generated ``_call``: a call it takes gets the very arguments bind
    would give (the defaults appended); one it does not take goes to ``_bound_call``."""
    x = ember.ones(2)
    cases = [
        (ember.ops.aten.add.Tensor, (x, x)),  # alpha's default appended
        (ember.ops.aten.mm.default, (ember.ones(2, 2), ember.ones(2, 2))),
        (ember.ops.aten.relu.default, (x,)),
        (ember.ops.aten.sum.default, (x,)),  # the keyword-only dtype's default appended
    ]
    for op, args in cases:
        seen = []
        handle = op._op
        original = handle.call
        handle.call = lambda *full, seen=seen: seen.append(full)
        try:
            assert op(*args) is None
        finally:
            handle.call = original
        assert bind_calls == []  # (the check below binds)
        assert seen == [tuple(op._schema.bind(args, {}))]
        bind_calls.clear()
    add = ember.ops.aten.add.Tensor
    sub = x.as_subclass(type("Sub", (ember.Tensor,), {}))
    for args in [(x, 2), (x, x, 2.5), (sub, x), (x,)]:
        before = len(bind_calls)
        try:
            add(*args)
        except RuntimeError:  # (x, x, 2.5) and (x,): bind's errors
            pass
        assert len(bind_calls) > before  # bound by the general path
