"""ember.library against torch.library: behaviour, lifetime and exact errors (facts §5.5-5.10, §10)."""

from __future__ import annotations

import gc
import itertools
import warnings

import pytest
from conftest import CPU_TENSOR_KEYS, KeyCarrier, normalise

import ember.library as ember_library
from ember import _C
from ember._ops import ops

try:
    import torch
    import torch.library as torch_library
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
_names = itertools.count()
CPU = KeyCarrier(*CPU_TENSOR_KEYS)


def ns() -> str:
    return f"emblib{next(_names)}"


def outcome(fn):
    """(exception type name, normalised message) or ("OK", repr of the result)."""
    try:
        result = fn()
    except Exception as error:  # noqa: BLE001 (comparing whatever is raised)
        builtin = next(c for c in type(error).__mro__ if c.__module__ == "builtins")
        return builtin.__name__, normalise(str(error))
    return "OK", None if result is None else repr(result)


def same(script):
    """Run ``script(library_module, ns)`` against ember and torch; compare each step's outcome."""
    name = ns()
    mine = [outcome(step) for step in script(ember_library, name)]
    if torch is None:
        return mine
    theirs = [outcome(step) for step in script(torch_library, name + "t")]
    assert [normalise(m[1] or "").replace(name, "NS") for m in mine] == [
        normalise(t[1] or "").replace(name + "t", "NS") for t in theirs
    ]
    assert [m[0] for m in mine] == [t[0] for t in theirs]
    return mine


def test_constructor_errors():
    def script(L, n):
        return [
            lambda: L.Library(n, "BLAH"),
            lambda: L.Library("prim", "DEF"),
            lambda: L.Library("prim", "FRAGMENT"),
            lambda: L.Library("_", "FRAGMENT"),
            lambda: L.Library(n, "DEF", "CPU"),
            lambda: L.Library(n + "b", "IMPL", "NotAKey"),
            lambda: L.Library(n + "c", "IMPL", "QuantizedXLA"),
            lambda: repr(L.Library(n + "d", "IMPL", "CPU")),
        ]

    results = same(script)
    assert results[0] == ("ValueError", "Unsupported kind: BLAH")
    assert results[-1][1].startswith("'Library(kind=IMPL, ns=emblib")
    assert results[-1][1].endswith("d, dispatch_key=CPU)>'")


def test_one_def_library_per_namespace_until_destroyed():
    def script(L, n):
        first = L.Library(n, "DEF")
        return [
            lambda: L.Library(n, "DEF"),
            lambda: L.Library(n, "FRAGMENT") and None,
            first._destroy,
            lambda: L.Library(n, "DEF") and None,
        ]

    results = same(script)
    assert results[0][0] == "RuntimeError" and "Only a single TORCH_LIBRARY" in results[0][1]
    assert results[-1] == ("OK", None)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # torch's own
def test_define_errors_and_return_values():
    def script(L, n):
        frag = L.Library(n, "FRAGMENT")
        impl = L.Library(n, "IMPL")
        return [
            lambda: frag.define("foo(Tensor x) -> Tensor"),
            lambda: frag.define("foo.ov(Tensor x) -> Tensor"),
            lambda: frag.define(f"{n}::bar.ov(Tensor x) -> Tensor"),
            lambda: frag.define("other::baz(Tensor x) -> Tensor"),
            lambda: frag.define("foo(Tensor y) -> Tensor"),
            lambda: frag.define("q(Tensor x) -> Tensor", alias_analysis="PURE"),
            lambda: frag.define("q(Tensor x -> Tensor"),
            lambda: impl.define("f(Tensor x) -> Tensor"),
            lambda: frag.define("cons(Tensor x) -> Tensor", alias_analysis="CONSERVATIVE"),
        ]

    results = same(script)
    assert results[:3] == [("OK", "'foo'"), ("OK", "'foo'"), ("OK", repr(results[2][1][1:-1]))]
    assert "Tried to register an operator" in results[4][1]


def test_dump_of_defined_and_impl_only_ops():
    def script(L, n):
        frag = L.Library(n, "FRAGMENT")
        frag.define("cons(Tensor x) -> Tensor", alias_analysis="CONSERVATIVE")
        frag.impl("nodef", lambda x: x, "CPU")
        frag.impl("cons", lambda x: x, "CPU")
        frag.impl("cons", lambda x: x, "AutogradCPU")
        dump = torch._C._dispatch_dump if L is torch_library else _C._dispatch_dump
        return [lambda: dump(f"{n}::cons"), lambda: dump(f"{n}::nodef"), lambda: dump(f"{n}::x")]

    if torch is None:
        pytest.skip("torch not installed")
    same(script)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_impl_errors():
    def script(L, n):
        frag = L.Library(n, "FRAGMENT")
        frag.define("foo(Tensor x) -> Tensor")
        other = L.Library(n, "IMPL")
        return [
            lambda: frag.impl("foo", 3, "CPU"),
            lambda: frag.impl("foo", lambda x: x, "NotAKey"),
            lambda: other.impl("elsewhere::foo", lambda x: x, "CPU"),
            lambda: frag.impl("foo", lambda x: x, "CompositeImplicitAutograd"),
            lambda: frag.impl("foo", lambda x: x, "Meta"),
            lambda: frag.impl("foo", lambda x: x, "CPU", allow_override=False),
            lambda: frag.impl("foo", lambda x: x, "CPU", allow_override=False),
            lambda: frag.impl(f"{n}::foo", lambda x: x, "SparseCPU"),
            lambda: frag.fallback(lambda *a: 0, "CPU"),
            lambda: L.Library("_", "IMPL").fallback(lambda *a: 0, "AutocastCPU"),
        ]

    results = same(script)
    assert results[1] == ("RuntimeError", "could not parse dispatch key: NotAKey")


def test_destroyed_library_asserts_and_restores_previous_kernels():
    name = ns()
    lib = ember_library.Library(name, "DEF")
    lib.define("foo(Tensor x) -> str")
    lib.impl("foo", lambda x: "base", "CPU")
    before = _C._dispatch_dump_table(f"{name}::foo")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        over = ember_library.Library(name, "IMPL")
        over.impl("foo", lambda x: "override", "CPU")
    assert getattr(ops, name).foo(CPU) == "override"
    assert "(inactive)" in _C._dispatch_dump(f"{name}::foo")
    del over
    gc.collect()
    assert getattr(ops, name).foo(CPU) == "base"
    assert _C._dispatch_dump_table(f"{name}::foo") == before
    lib._destroy()
    with pytest.raises(AssertionError, match="Library object has been destroyed"):
        lib.define("bar(Tensor x) -> Tensor")
    with pytest.raises(
        AttributeError, match=f"'_OpNamespace' '{name}' object has no attribute 'foo'"
    ):
        _ = getattr(ops, name).foo
    with pytest.raises(RuntimeError, match=f"Could not find schema for {name}::foo.$"):
        _C._dispatch_find_schema_or_throw(f"{name}::foo", "")
    assert _C._dispatch_dump(f"{name}::foo") == ""


def test_override_warning_text_matches_torch(monkeypatch):
    """Issued once per process (the flag is reset here to see it); text as torch's."""
    from ember._dispatch.dispatcher import dispatcher

    monkeypatch.setattr(dispatcher, "_warned_override", False)
    name = ns()
    lib = ember_library.Library(name, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: x, "Meta")
    lib.impl("foo", lambda x: x, "Meta")  # never for Meta
    lib.impl("foo", lambda x: x, "CPU")
    with pytest.warns(UserWarning) as record:
        lib.impl("foo", lambda x: x, "CPU")
    text = normalise(str(record[0].message)).replace(name, "NS")
    assert text.startswith("Warning only once for all operators,  other operators may also be")
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        lib.impl("foo", lambda x: x, "CPU")
    assert not again
    if torch is not None:
        expected = (
            "Warning only once for all operators,  other operators may also be overridden.\n"
            "  Overriding a previously registered kernel for the same operator and the same "
            "dispatch key\n  operator: NS::foo(Tensor x) -> Tensor\n    registered at <loc>\n"
            "  dispatch key: CPU\n  previous kernel: no debug info\n"
            "       new kernel: registered at <loc> (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/core/dispatch/OperatorEntry.cpp:208.)"
        )
        assert text == expected


def test_provenance_is_the_line_that_constructed_the_library():
    name = ns()
    lib = ember_library.Library(name, "DEF")  # this line
    lib.define("foo(Tensor x) -> Tensor")
    line = test_provenance_is_the_line_that_constructed_the_library.__code__.co_firstlineno + 2
    assert f"debug: registered at {__file__}:{line}\n" in _C._dispatch_dump(f"{name}::foo")


def test_module_level_define_and_impl_forms():
    name = ns()
    lib = ember_library.Library(name, "FRAGMENT")
    ember_library.define(f"{name}::twice", "(Tensor x) -> Any", lib=lib)

    @ember_library.impl(lib, "twice", "CPU")
    def twice(x):
        return ("cpu", x)

    ember_library.impl(f"{name}::twice", "default", lambda x: "cea", lib=lib)
    ember_library.impl(f"{name}::twice", ["meta", "AutogradCPU"], lambda x: "m", lib=lib)
    dump = _C._dispatch_dump(f"{name}::twice")
    for key in ("CPU:", "Meta:", "AutogradCPU:", "CompositeExplicitAutograd[alias]:"):
        assert key in dump
    assert getattr(ops, name).twice(CPU) == "m"
    with pytest.raises(ValueError, match="expected schema to look like"):
        ember_library.define(f"{name}::bad", "Tensor x -> Tensor", lib=lib)
    with pytest.raises(NotImplementedError, match=r"fallthrough_kernel\(\) should never be called"):
        ember_library.fallthrough_kernel()
    lib._destroy()


@needs_torch
def test_opoverload_and_packet_faces_match_torch():
    def faces(module, L, n):
        lib = L.Library(n, "FRAGMENT")
        lib.define("foo(Tensor x) -> Tensor")
        lib.define("foo.two(Tensor(a) x, Tensor y) -> Tensor(a)")
        space = getattr(module.ops, n)
        packet, default, two = space.foo, space.foo.default, space.foo.two
        result = [
            repr(space), str(packet), repr(packet), packet.overloads(), str(default),
            repr(default), default.name(), two.name(), default.__name__, default.__qualname__,
            default._overloadname, two._overloadname, default.namespace, default.is_view,
            two.is_view, packet.default is default, str(default._schema),
            outcome(lambda: space.nosuch), outcome(lambda: packet.nosuch), packet.__name__,
        ]  # fmt: skip
        lib._destroy()
        return [normalise(str(r)).replace(n, "NS").replace("torch", "ember") for r in result]

    from ember import _ops

    name = ns()
    assert faces(_ops, ember_library, name) == faces(torch, torch_library, name + "t")


@needs_torch
def test_op_module_names_match_torch():
    # a __torch_dispatch__ logger prints f"{func.__module__}.{func.__name__}": torch._ops.aten.add.Tensor
    def names(module, L, n):
        lib = L.Library(n, "FRAGMENT")
        lib.define("foo(Tensor x) -> Tensor")
        space = getattr(module.ops, n)
        result = [
            module.ops.aten.add.__module__, module.ops.aten.add.Tensor.__module__,
            space.foo.__module__, space.foo.default.__module__, module.ops.aten.__name__,
        ]  # fmt: skip
        lib._destroy()
        return [r.replace(n, "NS").replace("torch", "ember") for r in result]

    from ember import _ops

    name = ns()
    assert names(_ops, ember_library, name) == names(torch, torch_library, name + "t")


def _finalizer_references(L, name: str) -> list:
    """sys.getrefcount of what a Library's finalizer holds, as a program sees it (of the
    module's ``_impls`` as a change, since other live libraries hold it too)."""
    import sys

    impls = L._impls
    start = sys.getrefcount(impls)
    lib = L.Library(name, "FRAGMENT")
    lib.define("foo123(Tensor x) -> Tensor")
    seen = [sys.getrefcount(lib), sys.getrefcount(impls) - start]
    seen += [sys.getrefcount(lib._op_impls), sys.getrefcount(lib._op_defs)]
    lib.impl(f"{name}::foo123", lambda x: x, "CPU")
    seen.append(f"{name}/foo123/CPU" in impls)
    saved_impls, saved_defs = lib._op_impls, lib._op_defs
    del lib  # the finalizer runs, and lets go of everything it held
    seen += [sys.getrefcount(saved_impls), sys.getrefcount(saved_defs)]
    seen += [f"{name}/foo123/CPU" in impls, sys.getrefcount(impls) - start]
    return seen


@needs_torch
def test_a_librarys_finalizer_holds_its_sets_and_lets_go_of_them():
    # PyTorch's test_finalizer: the reference counts of the sets the finalizer captures
    name = ns()
    ours = _finalizer_references(ember_library, name)
    assert ours == _finalizer_references(torch_library, name)
