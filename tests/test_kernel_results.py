"""What Python kernels return is checked against the schema, as PyTorch checks it.

Note [Results of Python kernels] (_dispatch/python_returns.py): a ``Library.impl``
kernel, a custom op, a fake impl, a fallback or a ``__torch_dispatch__`` handler
that returns a string for a ``Tensor`` fails with PyTorch's error
(``Unable to cast oops to Tensor``), and a valid result is handed on as PyTorch
hands it (a tuple for several returns, a list for ``Tensor[]``, numbers cast).
Every case runs under PyTorch and under ember: same outcome, same exception type
and message, and the operator's table is the same after the failed call.
(No ``from __future__ import annotations``: custom_op reads the annotations.)
"""

import itertools

import pytest
from oracle import torch
from torch.utils import _python_dispatch as torch_python_dispatch  # noqa: E402

import ember
from ember.utils import _python_dispatch as ember_python_dispatch

DISPATCH = {torch: torch_python_dispatch, ember: ember_python_dispatch}
_names = itertools.count()


def _ns() -> str:
    return f"embresults{next(_names)}"


def normalise(text: str) -> str:
    return text.replace("ember._tensor.Tensor", "torch.Tensor").replace("ember", "torch")


def same(program, *args, **kwargs):
    """``program(library, namespace, ...)`` under both libraries, in one fresh namespace."""
    ns = _ns()
    expected = program(torch, ns, *args, **kwargs)
    assert program(ember, ns, *args, **kwargs) == expected
    return expected


def outcome(fn):
    try:
        return "ok", normalise(repr(fn()))
    except Exception as error:  # noqa: BLE001 - any failure is an outcome to compare
        return type(error).__name__, normalise(str(error))


# Values a kernel returns; each builds its value with the library under test.
VALUES = {
    "str": lambda t: "oops",
    "None": lambda t: None,
    "int": lambda t: 3,
    "bool": lambda t: True,
    "float": lambda t: 2.5,
    "complex": lambda t: 1 + 2j,
    "tensor": lambda t: t.ones(2),
    "int tensor": lambda t: t.tensor(4),
    "[T, T]": lambda t: [t.ones(2), t.ones(2)],
    "(T, T)": lambda t: (t.ones(2), t.ones(2)),
    "[T, None]": lambda t: [t.ones(2), None],
    "[T, 'a']": lambda t: [t.ones(2), "a"],
    "[1, 2]": lambda t: [1, 2],
    "(1.5,)": lambda t: (1.5,),
    "'cpu'": lambda t: "cpu",
}
ONE_RETURN_TYPES = ["Tensor", "Tensor?", "Tensor(a)", "Tensor[]", "Tensor?[]", "int", "SymInt",
                    "float", "bool", "str", "Scalar", "int[]", "float[]", "bool[]", "SymInt[]",
                    "int?", "Device", "()"]  # fmt: skip
# (T,) or three values for two returns: PyTorch reads past its returns (see the Note).
TWO_RETURN_VALUES = ["str", "None", "int", "float", "tensor", "[T, T]", "(T, T)", "[T, None]",
                     "[T, 'a']", "[1, 2]"]  # fmt: skip


def _impl_program(t, ns, return_type: str, value: str, with_keyset: bool = False):
    lib = t.library.Library(ns, "DEF")
    lib.define(f"f(Tensor x) -> {return_type}")
    make = VALUES[value]
    if with_keyset:
        lib.impl("f", lambda keyset, x: make(t), "CPU", with_keyset=True)
    else:
        lib.impl("f", lambda x: make(t), "CPU")
    x = t.ones(2)
    before = t._C._dispatch_dump(f"{ns}::f")
    results = [
        outcome(lambda: getattr(t.ops, ns).f(x)),
        outcome(lambda: getattr(t.ops, ns).f.default(x)),
    ]
    assert t._C._dispatch_dump(f"{ns}::f") == before
    lib._destroy()
    return results


@pytest.mark.parametrize("value", list(VALUES))
@pytest.mark.parametrize("return_type", ONE_RETURN_TYPES)
def test_library_impl_results_as_torch(return_type, value):
    same(_impl_program, return_type, value)


@pytest.mark.parametrize("value", TWO_RETURN_VALUES)
@pytest.mark.parametrize(
    "return_type", ["(Tensor, Tensor)", "(Tensor, int)", "(Tensor a, Tensor[] b)"]
)
def test_several_returns_as_torch(return_type, value):
    same(_impl_program, return_type, value)


@pytest.mark.parametrize("value", ["str", "None", "int", "tensor", "(T, T)"])
def test_with_keyset_kernels_results_as_torch(value):
    same(_impl_program, "Tensor", value, with_keyset=True)


def test_a_wrong_number_of_results_is_refused():
    """PyTorch's result is undefined here (it often crashes); ember refuses."""
    for value, count in [((1,), 1), ((1, 2, 3), 3)]:
        ns = _ns()
        lib = ember.library.Library(ns, "DEF")
        lib.define("f(Tensor x) -> (Tensor, Tensor)")
        lib.impl("f", lambda x, value=value: tuple(x for _ in value), "CPU")
        with pytest.raises(RuntimeError) as raised:
            getattr(ember.ops, ns).f(ember.ones(1))
        assert str(raised.value) == (
            f"Expected PythonKernelHolder for {ns}::f to return 2 values but it returned {count} "
            "instead."
        )
        lib._destroy()


def test_valid_results_are_handed_on_as_torch_hands_them():
    """A list for two returns comes back a tuple, a tuple for Tensor[] a list, numbers cast."""
    for return_type, value in [("(Tensor, Tensor)", "[T, T]"), ("Tensor[]", "(T, T)"),
                               ("float", "int"), ("int", "bool"), ("bool", "None")]:  # fmt: skip
        assert same(_impl_program, return_type, value)[0][0] == "ok"


def _custom_op_program(t, ns, value: str, kind: str):
    make = VALUES[value]
    if kind == "one":

        def fn(x: t.Tensor) -> t.Tensor:
            return make(t)

    elif kind == "two":

        def fn(x: t.Tensor) -> tuple[t.Tensor, t.Tensor]:
            return make(t)

    else:

        def fn(x: t.Tensor) -> list[t.Tensor]:
            return make(t)

    op = t.library.custom_op(f"{ns}::f", fn, mutates_args=())
    op.register_fake(lambda x: make(t))
    x = t.ones(2)
    before = t._C._dispatch_dump(f"{ns}::f")
    results = [outcome(lambda: op(x)), outcome(lambda: op(t.ones(2, device="meta")))]
    assert t._C._dispatch_dump(f"{ns}::f") == before
    return results


@pytest.mark.parametrize("value", ["str", "None", "int", "[T, 'a']"])
@pytest.mark.parametrize("kind", ["one", "two", "list"])
def test_custom_op_and_fake_results_as_torch(kind, value):
    same(_custom_op_program, value, kind)


def _registered_program(t, ns, value: str):
    t.library.define(f"{ns}::f", "(Tensor x) -> Tensor")
    make = VALUES[value]
    t.library.register_fake(f"{ns}::f", lambda x: make(t))
    t.library.register_kernel(f"{ns}::f", "cpu", lambda x: make(t))
    op = getattr(t.ops, ns).f.default
    return [outcome(lambda: op(t.ones(2))), outcome(lambda: op(t.ones(2, device="meta")))]


@pytest.mark.parametrize("value", ["str", "int", "[T, T]"])
def test_register_fake_and_register_kernel_results_as_torch(value):
    same(_registered_program, value)


def _mode_program(t, ns, value: str):
    lib = t.library.Library(ns, "DEF")
    lib.define("k(Tensor x) -> ()")
    lib.impl("k", lambda x: None, "CPU")
    make = VALUES[value]

    class Returns(DISPATCH[t].TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return make(t)

    x = t.ones(3)
    calls = {
        "ones": lambda: t.ones(2),
        "binding, two returns": lambda: t.max(x, 0),
        "ops, two returns": lambda: t.ops.aten.max.dim(x, 0),
        "Tensor[]": lambda: t.ops.aten.split.Tensor(x, 1),
        "no returns": lambda: getattr(t.ops, ns).k(x),
    }
    results = {}
    with Returns():
        for name, call in calls.items():
            results[name] = outcome(call)
    lib._destroy()
    return results


@pytest.mark.parametrize("value", ["str", "None", "float", "[T, 'a']"])
def test_dispatch_mode_results_as_torch(value):
    same(_mode_program, value)


def _subclass_program(t, ns, value: str):
    make = VALUES[value]

    class Wrapper(t.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return t.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return make(t)

    w = Wrapper(t.ones(2))
    return [outcome(lambda: t.add(w, w)), outcome(lambda: t.ops.aten.mul.Tensor(w, w))]


@pytest.mark.parametrize("value", ["str", "None", "(T, T)"])
def test_subclass_results_as_torch(value):
    same(_subclass_program, value)


def _fallback_program(t, ns, value: str):
    lib = t.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.define("k(Tensor x) -> ()")
    make = VALUES[value]
    fallback = t.library.Library("_", "IMPL")
    fallback.fallback(lambda op, *args, **kwargs: make(t), "CPU")
    x = t.ones(2)
    try:
        return [outcome(lambda: getattr(t.ops, ns).f(x)), outcome(lambda: getattr(t.ops, ns).k(x))]
    finally:
        fallback._destroy()
        lib._destroy()


@pytest.mark.parametrize("value", ["str", "None", "tensor"])
def test_fallback_results_as_torch(value):
    same(_fallback_program, value)
