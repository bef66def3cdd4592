"""Dispatcher: key-set computation, TLS, mask, call / redispatch, errors, tracing (facts §3, §5, §11)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import pytest
from conftest import CPU_TENSOR_KEYS, META_TENSOR_KEYS, KeyCarrier, normalise

from ember import _C
from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import DispatchKeySet, after_autograd_keyset
from ember._dispatch import builtin_fallbacks, trace
from ember._dispatch.dispatcher import dispatcher
from ember._ops import ops
from ember.library import Library, _scoped_library, fallthrough_kernel

try:
    import torch
    import torch.library as torch_library
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
_names = itertools.count()
CPU = KeyCarrier(*CPU_TENSOR_KEYS)
META = KeyCarrier(*META_TENSOR_KEYS)


def fresh(schema: str = "foo(Tensor x, Tensor y) -> Tensor"):
    """(ember DEF library, torch DEF library or None, namespace) for one test."""
    ns = f"embdisp{next(_names)}"
    ours = Library(ns, "DEF")
    ours.define(schema)
    theirs = None
    if torch is not None:
        theirs = torch_library.Library(ns, "DEF")
        theirs.define(schema)
    return ours, theirs, ns


def both(ours, theirs, *args, **kwargs):
    ours.impl(*args, **kwargs)
    if theirs is not None:
        theirs.impl(*args, **kwargs)


def error_text(fn) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        fn()
    return info.type, normalise(str(info.value))


# -- key sets ----------------------------------------------------------------------


@needs_torch
def test_keyset_received_by_with_keyset_kernels_matches_torch():
    ours, theirs, ns = fresh()
    seen = {"ours": [], "theirs": []}
    both(ours, None, "foo", lambda ks, x, y: seen["ours"].append(str(ks)), "CPU", with_keyset=True)
    both(ours, None, "foo", lambda ks, x, y: seen["ours"].append(str(ks)), "Meta", with_keyset=True)

    def theirs_kernel(ks, x, y):
        seen["theirs"].append(str(ks))
        return x

    theirs.impl("foo", theirs_kernel, "CPU", with_keyset=True)
    theirs.impl("foo", theirs_kernel, "Meta", with_keyset=True)
    x, m = torch.ones(1), torch.ones(1, device="meta")
    for (a, b), (c, d) in [((CPU, CPU), (x, x)), ((CPU, META), (x, m)), ((META, META), (m, m))]:
        getattr(ops, ns).foo(a, b)
        getattr(torch.ops, ns).foo(c, d)
    with _C._AutoDispatchBelowAutograd():
        getattr(ops, ns).foo(CPU, CPU)
    with torch._C._AutoDispatchBelowAutograd():
        getattr(torch.ops, ns).foo(x, x)
    assert seen["ours"] == seen["theirs"]
    assert seen["ours"][0] == "DispatchKeySet(CPU)"


def test_dispatch_arguments_or_lists_and_skip_none():
    ours, _, ns = fresh("bar(Tensor?[] xs, Tensor? y) -> Any")
    ours.impl("bar", lambda ks, xs, y: ("meta", str(ks)), "Meta", with_keyset=True)
    ours.impl("bar", lambda ks, xs, y: ("cpu", str(ks)), "CPU", with_keyset=True)
    bar = getattr(ops, ns).bar
    assert bar([CPU, None], None) == ("cpu", "DispatchKeySet(CPU)")
    assert bar([CPU, None, META], None)[0] == "meta"
    assert bar([], META)[0] == "meta"


@needs_torch
def test_no_tensor_arguments_uses_undefined_slot_error_matches_torch():
    ours, theirs, ns = fresh("bar(Tensor[] xs) -> Tensor")
    both(ours, theirs, "bar", lambda xs: xs, "CPU")
    mine = error_text(lambda: getattr(ops, ns).bar([]))
    their = error_text(lambda: getattr(torch.ops, ns).bar([]))
    assert mine == their
    assert mine[0] is NotImplementedError


@needs_torch
def test_missing_backend_error_matches_torch():
    ours, theirs, ns = fresh("foo.ov(Tensor x) -> Tensor")
    ours.impl("foo.ov", lambda x: x, "Meta")
    theirs.impl("foo.ov", lambda x: x, "Meta")
    mine = error_text(lambda: getattr(ops, ns).foo.ov(CPU))
    their = error_text(lambda: getattr(torch.ops, ns).foo.ov(torch.ones(1)))
    assert mine == their


@needs_torch
def test_meta_fallback_error_matches_torch():
    ours, theirs, ns = fresh("baz(Tensor x) -> Tensor")
    mine = error_text(lambda: getattr(ops, ns).baz(META))
    their = error_text(lambda: getattr(torch.ops, ns).baz(torch.ones(1, device="meta")))
    assert mine == their == (NotImplementedError, their[1])


@needs_torch
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_ambiguous_autogradother_error_matches_torch():
    ours, theirs, ns = fresh("f(Tensor x) -> Tensor")
    both(ours, theirs, "f", lambda x: x, "SparseCPU")
    both(ours, theirs, "f", lambda x: x, "CompositeImplicitAutograd")
    other = DispatchKeySet(DispatchKey.AutogradOther)
    mine = error_text(lambda: getattr(ops, ns).f.default.redispatch(other, CPU))
    their = error_text(
        lambda: getattr(torch.ops, ns).f.default.redispatch(
            torch._C.DispatchKeySet(torch._C.DispatchKey.AutogradOther), torch.ones(1)
        )
    )
    assert mine == their
    assert mine[0] is RuntimeError


@needs_torch
def test_redispatch_uses_keyset_as_is_and_fallthrough_asserts_like_torch():
    ours, theirs, ns = fresh("g(Tensor x) -> Tensor")
    both(ours, theirs, "g", lambda x: x, "CPU")
    select = DispatchKeySet(DispatchKey.BackendSelect)
    mine = error_text(lambda: getattr(ops, ns).g.default.redispatch(select, CPU))
    their = error_text(
        lambda: getattr(torch.ops, ns).g.default.redispatch(
            torch._C.DispatchKeySet(torch._C.DispatchKey.BackendSelect), torch.ones(1)
        )
    )
    assert mine == their


# -- TLS and the mask ----------------------------------------------------------------


def test_tls_include_adds_a_key_and_exclude_removes_it():
    ours, _, ns = fresh("h(Tensor x) -> Any")
    ours.impl("h", lambda ks, x: ("tracer", str(ks)), "Tracer", with_keyset=True)
    ours.impl("h", lambda ks, x: ("cpu", str(ks)), "CPU", with_keyset=True)
    h = getattr(ops, ns).h
    assert h(CPU)[0] == "cpu"
    with _C._IncludeDispatchKeyGuard(DispatchKey.Tracer):
        assert h(CPU) == ("tracer", "DispatchKeySet(CPU, AutogradCPU, Tracer)")
        with _C._ExcludeDispatchKeyGuard(DispatchKeySet(DispatchKey.Tracer)):
            assert h(CPU)[0] == "cpu"
    assert h(CPU)[0] == "cpu"


def test_op_level_fallthrough_is_masked_out_per_backend():
    ours, _, ns = fresh("m(Tensor x) -> Tensor")
    seen = []
    ours.impl("m", lambda ks, x: seen.append(str(ks)), "CPU", with_keyset=True)
    ours.impl("m", lambda ks, x: seen.append(str(ks)), "Meta", with_keyset=True)
    ours.impl("m", fallthrough_kernel, "AutogradCPU")
    ours.impl("m", lambda ks, x: seen.append("autograd-meta"), "AutogradMeta", with_keyset=True)
    getattr(ops, ns).m(CPU)
    getattr(ops, ns).m(META)
    assert seen == ["DispatchKeySet(CPU)", "autograd-meta"]
    assert _C._dispatch_kernel_for_dispatch_key_is_fallthrough(f"{ns}::m", "AutogradCPU")


def test_raw_keyset_kernel_and_handle_call_redispatch():
    ours, _, ns = fresh("r(Tensor x, int n=2) -> Any")
    seen = []

    def autograd_raw(bits, x, n):
        seen.append(("autograd", bits, n))
        return handle.redispatch(bits & after_autograd_keyset.raw_repr(), x, n)

    dispatcher.register_impl(f"{ns}::r", DispatchKey.AutogradCPU, autograd_raw, keyset_arg="raw")
    dispatcher.register_impl(f"{ns}::r", DispatchKey.CPU, lambda x, n: ("cpu", n))
    handle = dispatcher.find_schema_or_throw(f"{ns}::r")
    assert handle.call(CPU, 5) == ("cpu", 5)
    assert isinstance(seen[0][1], int)
    assert getattr(ops, ns).r(CPU) == ("cpu", 2)


def test_registration_invalidates_cached_kernels():
    ours, _, ns = fresh("c(Tensor x) -> Any")
    ours.impl("c", lambda x: "old", "CPU")
    c = getattr(ops, ns).c
    assert c(CPU) == "old"
    with pytest.warns(UserWarning) if not dispatcher._warned_override else _nothing():
        with _scoped_library(ns, "IMPL") as lib:
            lib.impl("c", lambda x: "new", "CPU")
            assert c(CPU) == "new"
    assert c(CPU) == "old"


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_user_fallback_gets_opoverload_and_python_arguments():
    ours, _, ns = fresh("fb(Tensor x, int n=1, *, int k=0) -> Tensor")
    seen = []
    with _scoped_library("_", "IMPL") as lib:
        lib.fallback(
            lambda op, *args, **kwargs: seen.append((str(op), args, kwargs)), "PrivateUse3"
        )
        getattr(ops, ns).fb(KeyCarrier("PrivateUse3"), 4, k=2)
        with pytest.raises(RuntimeError, match="multiple backend fallbacks.*PrivateUse3"):
            lib.fallback(lambda *a: 0, "PrivateUse3")
    assert seen[0][0] == f"{ns}.fb.default"
    assert seen[0][1][1:] == (4,) and seen[0][2] == {"k": 2}
    assert not _C._dispatch_has_backend_fallback(DispatchKey.PrivateUse3)


def test_builtin_fallback_can_be_overridden_and_restored():
    ours, _, ns = fresh("o(Tensor x) -> Any")
    ours.impl("o", lambda x: "cpu", "CPU")
    seen = []

    def mine(op, keyset, *args):
        seen.append(op.name)
        return op.redispatch(keyset.raw_repr() & after_autograd_keyset.raw_repr(), *args)

    before = _C._dispatch_dump_table(f"{ns}::o")
    builtin_fallbacks.override(DispatchKey.AutogradCPU, mine)
    try:
        assert getattr(ops, ns).o(CPU) == "cpu"
        assert seen == [f"{ns}::o"]
    finally:
        builtin_fallbacks.restore(DispatchKey.AutogradCPU)
    assert _C._dispatch_dump_table(f"{ns}::o") == before


# -- tracing --------------------------------------------------------------------------


def test_trace_prints_calls_and_redispatches_with_nesting(capsys):
    ours, _, ns = fresh("t(Tensor x) -> Any")
    ours.impl("t", lambda x: "cpu", "CPU")
    trace.set_show_dispatch_trace(True)
    try:
        getattr(ops, ns).t(CPU)
    finally:
        trace.set_show_dispatch_trace(False)
    err = capsys.readouterr().err
    assert err == (
        f" [call] op=[{ns}::t], key=[AutogradCPU]\n  [redispatch] op=[{ns}::t], key=[CPU]\n"
    )
    getattr(ops, ns).t(CPU)
    assert capsys.readouterr().err == ""


def test_trace_listener_sees_labels_and_depth():
    ours, _, ns = fresh("l(Tensor x) -> Any")
    ours.impl("l", lambda x: "cpu", "CPU")
    events = []
    remove = trace.add_listener(lambda label, op, bits, depth: events.append((label, op, depth)))
    try:
        getattr(ops, ns).l(CPU)
    finally:
        remove()
    assert events == [("[call]", f"{ns}::l", 0), ("[redispatch]", f"{ns}::l", 1)]


@pytest.mark.parametrize("value", ["1", "bogus"])
def test_trace_env_var(value):
    code = (
        "from ember.library import Library\nfrom ember._ops import ops\n"
        "from ember._c10.dispatch_key_set import DispatchKeySet\n"
        "class K:\n    _key_bits = 0x10001\n"
        "lib = Library('envtrace', 'DEF')\nlib.define('f(Tensor x) -> Tensor')\n"
        "lib.impl('f', lambda x: x, 'CPU')\nops.envtrace.f(K())\n"
    )
    env = dict(os.environ, EMBER_SHOW_DISPATCH_TRACE=value)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    if value == "1":
        assert "[call] op=[envtrace::f], key=[CPU]\n" in result.stderr
    else:
        assert "ignoring invalid value for EMBER_SHOW_DISPATCH_TRACE: bogus" in result.stderr
        assert "[call]" not in result.stderr
