"""Registration misuse that PyTorch refuses is refused the same way, and leaves nothing behind.

Each program runs under PyTorch and under ember (in a namespace of its own, the
same for both) and must print the same: the exception's type and message, with
file locations and object addresses normalised, and the operator's dispatch
table (``_dispatch_dump``) after the failed call.
"""

from __future__ import annotations

import itertools
import re

import pytest
from oracle import torch

import ember

_names = itertools.count()
_LOCATION = re.compile(r"(registered at|block at) \S+?:\d+")
_ADDRESS = re.compile(r"0x[0-9a-f]+")
_CALLER = re.compile(r", '[^']*', \d+$")  # the file and line pybind11 prints last


def normalise(text: str) -> str:
    text = _LOCATION.sub(r"\1 <loc>", text)
    text = _CALLER.sub(", <file>, <line>", _ADDRESS.sub("0x?", text))
    return text.replace("ember", "torch")


def outcome(fn):
    try:
        return "ok", normalise(repr(fn()))
    except Exception as error:  # noqa: BLE001 - any failure is an outcome to compare
        return type(error).__name__, normalise(str(error))


def same(program, *args):
    """``program(library, namespace, *args)`` under both libraries; torch's outcome."""
    ns = f"embmisuse{next(_names)}"
    expected = program(torch, ns, *args)
    assert program(ember, ns, *args) == expected
    return expected


def dump(t, name: str) -> str:
    return normalise(t._C._dispatch_dump(name))


# -- operators that do not exist ---------------------------------------------------------------


def registrations_on_a_missing_op(t, ns):
    name = f"{ns}::missing"
    seen = {
        "register_fake": outcome(lambda: t.library.register_fake(name, lambda x: x)),
        "register_fake decorator": outcome(lambda: t.library.register_fake(name)(lambda x: x)),
        "register_fake overload": outcome(
            lambda: t.library.register_fake("aten::add.Missing", lambda x: x)
        ),
        "register_fake aten": outcome(lambda: t.library.register_fake("aten::nothere", len)),
        "Library.impl Meta": outcome(
            lambda: t.library.Library(ns, "FRAGMENT").impl("missing", len, "Meta")
        ),
        "register_autograd": outcome(lambda: t.library.register_autograd(name, len)),
        "dump after": dump(t, name),
    }
    # impl-only registrations (no def) are allowed, in both
    seen["register_kernel"] = outcome(lambda: t.library.register_kernel(name, "cpu", len))
    seen["dump with kernel"] = dump(t, name)
    seen["get_kernel"] = outcome(lambda: t.library.get_kernel(name, "CPU"))
    return seen


def test_registrations_on_a_missing_operator_fail_and_leave_nothing_behind():
    seen = same(registrations_on_a_missing_op)
    assert seen["register_fake"][1].endswith("::missing does not exist")
    assert seen["dump after"] == ""


@pytest.mark.parametrize("name", ["missing", "a::b::c", "::x", "ns::"])
@pytest.mark.parametrize(
    "api", ["register_fake", "register_autograd", "register_kernel", "impl", "get_kernel"]
)
def test_malformed_qualnames_as_torch(api, name):
    def program(t, ns):
        fn = getattr(t.library, api)
        if api == "register_fake":
            return outcome(lambda: fn(name, len))
        if api == "register_autograd":
            return outcome(lambda: fn(name, len))
        if api == "get_kernel":
            return outcome(lambda: fn(name, "CPU"))
        return outcome(lambda: fn(name, "cpu", len))

    same(program)


def get_kernel_cases(t, ns):
    lib = t.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.define("g(Tensor x) -> Tensor")
    lib.impl("g", lambda x: x, "CPU")
    cases = [("f", "CPU"), ("g", "CPU"), ("g", "Autograd"), ("g", "Bogus"), ("g", 3),
             ("g.ov", "CPU"), ("nope", "CPU"), ("g", "CompositeImplicitAutograd"),
             ("g", "Undefined")]  # fmt: skip
    seen = [outcome(lambda n=n, k=k: t.library.get_kernel(f"{ns}::{n}", k)) for n, k in cases]
    seen.append(outcome(lambda: t.library.get_kernel(3, "CPU")))
    seen.append(outcome(lambda: t.library.get_kernel(getattr(t.ops, ns).g.default, "CPU")))
    lib._destroy()
    return seen


def test_get_kernel_as_torch():
    same(get_kernel_cases)


@pytest.mark.parametrize(
    "name", ["::f", "a::b::c", "f(Tensor x) -> Tensor", "f.", "nope::x", " aten::add", ""]
)
def test_operator_names_are_parsed_as_torch_parses_them(name):
    def program(t, ns):
        return [
            outcome(lambda: t._C._dispatch_dump(name)),
            outcome(lambda: t._C._dispatch_has_kernel_for_dispatch_key(name, "CPU")),
        ]

    same(program)


# -- Library blocks ---------------------------------------------------------------------------


def second_def_blocks(t, ns):
    first = t.library.Library(ns, "DEF")
    seen = [
        outcome(lambda: t.library.Library("aten", "DEF")),
        outcome(lambda: t.library.Library(ns, "DEF")),
        outcome(lambda: t.library.Library(ns, "FRAGMENT")),  # still fine
        outcome(lambda: t.library.Library("aten", "FRAGMENT")),
    ]
    first._destroy()
    seen.append(outcome(lambda: t.library.Library(ns, "DEF")))  # the namespace is free again
    return seen


def test_a_second_def_block_is_refused_also_for_aten():
    seen = same(second_def_blocks)
    assert seen[0][1].startswith(
        "Only a single TORCH_LIBRARY can be used to register the namespace aten; please put "
        "all of your definitions in a single TORCH_LIBRARY block."
    )


def block_misuse(t, ns):
    lib = t.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    cpu = t.library.Library(ns, "IMPL", "CPU")
    seen = {
        "Conjugate": outcome(lambda: cpu.impl("f", lambda x: x, "Conjugate")),
        "CUDA": outcome(lambda: cpu.impl("f", lambda x: x, "CUDA")),
        "AutogradCPU": outcome(lambda: cpu.impl("f", lambda x: x, "AutogradCPU")),
        "dump after": dump(t, f"{ns}::f"),
        "same key": outcome(lambda: cpu.impl("f", lambda x: x, "CPU")),
        "ns int": outcome(lambda: t.library.Library(3, "FRAGMENT")),
        "key not str": outcome(lambda: t.library.Library(ns, "IMPL", t._C.DispatchKey.CPU)),
        "with_keyset str": outcome(lambda: lib.impl("f", lambda x: x, "Meta", with_keyset="yes")),
        "with_keyset 2.5": outcome(lambda: lib.impl("f", lambda x: x, "XLA", with_keyset=2.5)),
        "fallback Undefined": outcome(
            lambda: t.library.Library("_", "IMPL").fallback(lambda *a: 1, "Undefined")
        ),
        "DEF Undefined": outcome(lambda: t.library.Library(f"{ns}u", "DEF", "Undefined")),
    }
    lib.define("g(Tensor x) -> Tensor")
    lib.impl("g", lambda x: x, "Undefined")  # CatchAll: CompositeImplicitAutograd
    seen["impl Undefined"] = dump(t, f"{ns}::g")
    return seen


def test_library_block_misuse_as_torch():
    seen = same(block_misuse)
    assert seen["Conjugate"][1].startswith(
        'impl("f", ...): Explicitly provided dispatch key (Conjugate) is inconsistent with the '
        "dispatch key of the enclosing TORCH_LIBRARY_IMPL block (CPU).  Please declare a "
        "separate TORCH_LIBRARY_IMPL block for this dispatch key and move your impl() there.  "
    )
    assert "CPU:" not in seen["dump after"]


# -- define -------------------------------------------------------------------------------------

DEFINE_CASES = ["f (Tensor x) -> Tensor", " g(Tensor x) -> Tensor", "f\t(Tensor x) -> Tensor",
                "f.. (Tensor x) -> Tensor", "f..(Tensor x) -> Tensor", "f.(Tensor x) -> Tensor",
                "f.a.b(Tensor x) -> Tensor", "f a(Tensor x) -> Tensor", "f.default(Tensor x) -> Tensor",
                "f(complex x=1) -> Tensor", "f(int x=99999999999999999999) -> Tensor",
                "{ns}::h.o(Tensor x) -> Tensor", "other::h(Tensor x) -> Tensor"]  # fmt: skip


@pytest.mark.parametrize("schema", DEFINE_CASES)
def test_define_names_and_schema_errors_as_torch(schema):
    def program(t, ns):
        lib = t.library.Library(ns, "DEF")
        impl = t.library.Library(ns, "IMPL")
        text = schema.format(ns=ns)
        return [outcome(lambda: lib.define(text)), outcome(lambda: impl.define(text))]

    same(program)


@pytest.mark.parametrize("namespace", ["", "a b", "1a", "a-b"])
def test_define_takes_any_namespace_string_as_torch(namespace):
    def program(t, ns):
        lib = t.library.Library(namespace + ns, "FRAGMENT")
        defined = outcome(lambda: lib.define("f(Tensor x) -> Tensor"))
        found = outcome(lambda: str(getattr(t.ops, namespace + ns).f.default._schema))
        lib._destroy()
        return defined, found

    same(program)


TAGGED = [("out", "o(Tensor x, *, Tensor(a!) out) -> Tensor(a!)"), ("out", "o(Tensor x) -> Tensor"),
          ("out", "o(Tensor(a!) x) -> Tensor(a!)"), ("out", "o(Tensor x, *, Tensor(a!)[] out) -> ()"),
          ("out", "o(Tensor x, *, Tensor(a!) out) -> ()"), ("out", "o(Tensor x, *, Tensor(a!) out) -> Tensor"),
          ("out", "o(Tensor x, *, Tensor(a!) out) -> Tensor(a)"),
          ("out", "o(Tensor x, *, Tensor(a!) out) -> Tensor(b!)"), ("out", "o(Tensor x"),
          ("inplace", "i(Tensor(a!) x) -> Tensor(a!)"), ("inplace", "i(*, Tensor(a!) x) -> Tensor(a!)"),
          ("inplace", "i(Tensor x) -> Tensor"), ("inplace", "i(Tensor(a!)[] x) -> Tensor(a!)[]"),
          ("inplace", "i(Tensor(a!) x) -> (Tensor(a!), Tensor)"), ("inplace", "i(Tensor(a!) x) -> int"),
          ("inplace", "i(Tensor(a!) x) -> Tensor"), ("inplace", "i(Tensor(a!) x) -> Tensor(a)"),
          ("inplace", "i(Tensor(a!) x) -> Tensor(b!)"),
          ("inplace", "i(Tensor(a!) x, Tensor(b!) y) -> Tensor(a!)"),
          ("inplace", "i(Tensor(a!)? x) -> Tensor(a!)")]  # fmt: skip


@pytest.mark.parametrize("tag, schema", TAGGED)
def test_out_and_inplace_tags_check_the_schema_as_torch(tag, schema):
    def program(t, ns):
        lib = t.library.Library(ns, "DEF")
        name = getattr(torch.Tag, tag) if t is torch else tag  # ember's tags are strings
        seen = [outcome(lambda: lib.define(schema, tags=(name,))),
                outcome(lambda: t.library.define(f"{ns}::d", "(Tensor x) -> Tensor", tags=(name,)))]  # fmt: skip
        seen.append(dump(t, f"{ns}::o"))
        return seen

    same(program)


def test_tags_that_are_no_collection_are_refused_as_torch():
    def program(t, ns):
        lib = t.library.Library(ns, "DEF")
        return outcome(lambda: lib.define("q(Tensor x) -> Tensor", tags=3))

    same(program)


# -- where registrations say they come from --------------------------------------------------


def _in_library(t, path: str) -> bool:
    """torch/library.py, or ember's torch.library face and the custom-op layer behind it."""
    if t is torch:
        return path == torch.library.__file__
    return path == ember.library.__file__ or "/ember/_library/" in path


def module_level_provenance(t, ns):
    t.library.define(f"{ns}::f", "(Tensor x) -> Tensor")
    t.library.impl(f"{ns}::f", "cpu", lambda x: x)
    t.library.register_fake(f"{ns}::f", lambda x: x)
    text = t._C._dispatch_dump(f"{ns}::f")
    return [_in_library(t, path) for path in re.findall(r"registered at (\S+?):\d+", text)]


def test_module_level_registrations_are_registered_at_the_library_module():
    """torch.library.define / impl / register_fake register through libraries of
    torch.library's own, so their kernels are ``registered at`` it (not at functools,
    whose singledispatch calls them)."""
    assert same(module_level_provenance) == [True, True, True]
