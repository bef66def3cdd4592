"""Functionalization as the Functionalize key, without a transform: the functional tensor
wrapper, its kernels and the ops a dispatch mode below it sees.

Differential against PyTorch 2.13: each program runs on both libraries (torch's
_to_functional_tensor / _enable_functionalization against ember's). See
ember/_functionalization/ and Note [Which Functionalize kernel an operator gets].
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode as EmberMode

LIBS = {"torch": torch, "ember": ember}


def _log_mode(lib):
    base = torch.utils._python_dispatch.TorchDispatchMode if lib is torch else EmberMode

    class Log(base):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func))
            return func(*args, **(kwargs or {}))

    return Log()


def _both(program):
    return {name: program(lib) for name, lib in LIBS.items()}


def _same(program):
    out = _both(program)
    assert out["ember"] == out["torch"]
    return out["torch"]


def _run_functionalized(lib, body, reapply=False):
    """body(lib, log) under _enable_functionalization, with a logging mode pushed."""
    log = _log_mode(lib)
    lib._enable_functionalization(reapply_views=reapply)
    try:
        with log:
            result = body(lib)
    finally:
        lib._disable_functionalization()
    return result, log.ops


def test_wrapper_keys_type_and_metadata():
    def program(lib):
        x = lib.arange(6.0).reshape(2, 3)
        f = lib._to_functional_tensor(x.t())
        return (
            repr(lib._C._dispatch_keys(f)), type(f).__name__, tuple(f.shape), f.stride(),
            f.is_contiguous(), f.requires_grad, lib._is_functional_tensor(f),
            lib._is_functional_tensor(x), f.dtype is lib.float32,
        )  # fmt: skip

    _same(program)


def test_repr_outside_a_transform():
    def program(lib):
        f = lib._to_functional_tensor(lib.arange(4.0).reshape(2, 2))
        g = lib._to_functional_tensor(lib.ones(2, dtype=lib.int32))
        return [text.replace("ember.", "torch.") for text in (repr(f), repr(g), str(f))]

    _same(program)


def test_enable_functionalization_tls_and_reapply_flag():
    def program(lib):
        C = lib._C
        seen = [repr(C._dispatch_tls_local_include_set()), C._functionalization_reapply_views_tls()]
        lib._enable_functionalization(reapply_views=True)
        seen += [
            repr(C._dispatch_tls_local_include_set()),
            C._functionalization_reapply_views_tls(),
        ]
        lib._disable_functionalization()
        seen += [
            repr(C._dispatch_tls_local_include_set()),
            C._functionalization_reapply_views_tls(),
        ]
        return seen

    _same(program)


def test_factories_are_wrapped_and_plain_inputs_are_not():
    def program(lib):
        x = lib.zeros(2)
        lib._enable_functionalization()
        try:
            made = lib.ones(2)
            plain = x + 1
            return lib._is_functional_tensor(made), lib._is_functional_tensor(plain)
        finally:
            lib._disable_functionalization()

    assert _same(program) == (True, False)


@pytest.mark.parametrize("reapply", [False, True])
def test_mutation_through_a_view_ops_seen_below(reapply):
    """The ops a mode below Functionalize sees: the view (or its *_copy), the functional
    variant of add_, the view inverse and the view replayed when the view is synced."""

    def program(lib):
        base = lib._to_functional_tensor(lib.zeros(2, 2))

        def body(lib):
            v = base.view(-1)
            v.add_(1)
            b = base * 2
            c = b[0]
            c.mul_(10)
            lib._sync(b)
            lib._sync(base)
            return lib._from_functional_tensor(b).tolist(), lib._from_functional_tensor(
                base
            ).tolist()

        return _run_functionalized(lib, body, reapply)

    _same(program)


def test_out_variant_becomes_functional():
    def program(lib):
        a = lib._to_functional_tensor(lib.zeros(2))

        def body(lib):
            out = lib.empty(2)
            lib.add(a, 1, out=out)
            lib._sync(out)
            return lib._from_functional_tensor(out).tolist()

        return _run_functionalized(lib, body)

    assert _same(program)[1] == ["aten.empty.memory_format", "aten.add.Tensor"]


def test_copy_becomes_aten_copy():
    def program(lib):
        a = lib._to_functional_tensor(lib.zeros(2, 2))

        def body(lib):
            a.copy_(lib.arange(2.0))
            lib._sync(a)
            return lib._from_functional_tensor(a).tolist()

        return _run_functionalized(lib, body)

    _same(program)


def test_in_place_views_grow_the_wrappers_view_chain():
    def program(lib):
        h = lib._to_functional_tensor(lib.zeros(3, 4))
        lib._enable_functionalization()
        try:
            h.t_()
            shape = (tuple(h.shape), h.stride())
            h[1].fill_(3.0)
            h.transpose_(0, 1)
            h.unsqueeze_(0)
            h.squeeze_(0)
            lib._sync(h)
            return shape, lib._from_functional_tensor(h).tolist()
        finally:
            lib._disable_functionalization()

    _same(program)


def test_multi_output_views_scatter_back():
    def program(lib):
        k = lib._to_functional_tensor(lib.zeros(2, 5))
        lib._enable_functionalization()
        try:
            a, b = k.split(3, dim=1)
            b.add_(5)
            p, q = k.unbind(0)
            q.sub_(2)
            k.split_with_sizes([1, 4], dim=1)[0].mul_(0).add_(7)
            lib._sync(k)
            lib._sync(a)
            return lib._from_functional_tensor(k).tolist(), lib._from_functional_tensor(a).tolist()
        finally:
            lib._disable_functionalization()

    _same(program)


def test_errors():
    def program(lib):
        def err(fn):
            try:
                fn()
            except Exception as e:  # noqa: BLE001 (the type and message are compared)
                return type(e).__name__, str(e)
            return None

        f = lib._to_functional_tensor(lib.zeros(2))
        plain = lib.zeros(2)
        lib._enable_functionalization()
        try:
            nested = err(lambda: lib._enable_functionalization())
        finally:
            lib._disable_functionalization()
        return (
            err(lambda: lib._from_functional_tensor(plain)),
            err(lambda: lib._to_functional_tensor(f)),
            nested,
        )

    _same(program)


def test_failed_in_place_leaves_the_wrapper_unchanged():
    """The in-place op's refusal (broadcast, promotion) is an error and nothing changes
    (PyTorch's message comes from its Python meta kernels there, so the types are compared)."""

    def program(lib):
        f = lib._to_functional_tensor(lib.zeros(2))
        i = lib._to_functional_tensor(lib.zeros(2, dtype=lib.int32))
        lib._enable_functionalization()
        try:
            kinds = []
            for fn in (lambda: f.add_(lib.ones(3, 2)), lambda: i.add_(1.5)):
                try:
                    fn()
                except RuntimeError:
                    kinds.append("RuntimeError")
            lib._sync(f)
            lib._sync(i)
            return (
                kinds,
                lib._from_functional_tensor(f).tolist(),
                lib._from_functional_tensor(i).tolist(),
            )
        finally:
            lib._disable_functionalization()

    assert _same(program)[0] == ["RuntimeError", "RuntimeError"]


@pytest.mark.parametrize(
    "op", ["aten::add_.Tensor", "aten::add.Tensor", "aten::view", "aten::add.out", "aten::copy_",
           "aten::select.int", "aten::reshape", "aten::t_", "aten::sin", "aten::split.Tensor",
           "aten::empty.memory_format", "aten::resize_"],
)  # fmt: skip
def test_table_entry_kind(op):
    def program(lib):
        line = [
            row for row in lib._C._dispatch_dump_table(op).splitlines()
            if row.startswith("Functionalize:")
        ]  # fmt: skip
        return line[0].rsplit(" [", 1)[1]

    _same(program)


# -- random chains of views and mutations ------------------------------------------------------

_VIEWS = [
    lambda t: t.view(-1) if t.is_contiguous() else t.t(),
    lambda t: t.transpose(0, -1),
    lambda t: t[0] if t.dim() > 1 else t[1:],
    lambda t: t[:, 1:] if t.dim() > 1 else t[::2],
    lambda t: t.unsqueeze(0),
    lambda t: t.diagonal() if t.dim() > 1 else t.flip(0),
    lambda t: t.reshape(-1),
    lambda t: t.squeeze(),
]
_MUTATIONS = [
    lambda t: t.add_(1.5),
    lambda t: t.mul_(-2),
    lambda t: t.fill_(0.25),
    lambda t: t.zero_(),
    lambda t: t.clamp_(max=1.0),
]


def _chain(lib, start, steps, functional):
    base = start.clone()
    if functional:
        base = lib._to_functional_tensor(base)
        lib._enable_functionalization()
    try:
        tensors = [base]
        for kind, pick, which in steps:
            t = tensors[pick % len(tensors)]
            if kind == "view":
                tensors.append(_VIEWS[which % len(_VIEWS)](t))
            else:
                _MUTATIONS[which % len(_MUTATIONS)](t)
        values = []
        for t in tensors:
            if functional:
                lib._sync(t)
                t = lib._from_functional_tensor(t)
            values.append(t.tolist())
        return values
    finally:
        if functional:
            lib._disable_functionalization()


_STEP = st.tuples(st.sampled_from(["view", "mutate"]), st.integers(0, 20), st.integers(0, 20))


@settings(max_examples=60, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=8))
def test_random_view_mutation_chains_match_eager_torch(steps):
    start = [[float(i * 4 + j) for j in range(4)] for i in range(3)]
    expected = _chain(torch, torch.tensor(start), steps, functional=False)
    got = _chain(ember, ember.tensor(start), steps, functional=True)
    assert got == expected


def test_custom_ops_go_through_the_fallback():
    """A fresh op is wrapped by the fallback; one whose output aliases is refused with
    PyTorch's message."""

    def program(lib):
        library = lib.library.Library("fnzkey", "FRAGMENT")
        library.define("alias_me(Tensor(a) x) -> Tensor(a)")
        library.impl("alias_me", lambda x: x, "CPU")
        library.define("twice(Tensor x) -> Tensor")
        library.impl("twice", lambda x: x * 2, "CPU")
        f = lib._to_functional_tensor(lib.ones(2))
        lib._enable_functionalization()
        try:
            try:
                lib.ops.fnzkey.alias_me(f)
                refused = None
            except RuntimeError as e:
                refused = str(e)
            r = lib.ops.fnzkey.twice(f)
            return refused, lib._is_functional_tensor(r), lib._from_functional_tensor(r).tolist()
        finally:
            lib._disable_functionalization()
            del library

    _same(program)


def test_mutation_queries_replace_commit_and_freeze():
    def program(lib):
        def err(fn):
            try:
                return fn()
            except RuntimeError as e:
                return str(e)

        seen = []
        x = lib.zeros(4)
        f = lib._to_functional_tensor(x)
        g = lib._to_functional_tensor(lib.zeros(3))
        lib._enable_functionalization()
        try:
            v = f.view(2, 2)
            seen.append(lib._functionalize_has_data_mutation(f))
            v.add_(1)
            seen += [
                lib._functionalize_has_data_mutation(f),
                lib._functionalize_has_data_mutation(v),
            ]
            s = f.split(2)
            seen += [lib._functionalize_is_multi_output_view(t) for t in (s[0], v, s[0].view(2))]
            g.unsqueeze_(0)
            seen += [lib._functionalize_has_metadata_mutation(t) for t in (g, f)]
            seen += [lib._functionalize_enable_reapply_views(r) for r in (True, False, False)]
            seen += [lib._is_functional_tensor_base(t) for t in (f, v)]
            lib._freeze_functional_tensor(f)
            seen.append(err(lambda: f.add_(1)))
        finally:
            lib._disable_functionalization()
        h = lib._to_functional_tensor(lib.zeros(2))
        lib._functionalize_replace(h, lib.ones(2))
        lib._functionalize_commit_update(h)
        lib._sync(h)
        seen += [lib._from_functional_tensor(h).tolist(), lib._functionalize_has_data_mutation(h)]
        for name in ("_functionalize_has_data_mutation", "_functionalize_has_metadata_mutation",
                     "_functionalize_is_multi_output_view", "_is_functional_tensor_base",
                     "_functionalize_commit_update", "_freeze_functional_tensor"):  # fmt: skip
            seen.append(err(lambda name=name: getattr(lib, name)(x)))
        seen.append(err(lambda: lib._functionalize_replace(x, x)))
        return seen

    _same(program)
