"""torch.DispatchKey, torch._C.DispatchKeySet and the dispatcher queries of torch._C, against PyTorch.

Differential: the same calls on ember and on torch give the same values, reprs, printed
lines and errors (type and message; pybind11's TypeError for a wrong argument type).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import torch

import ember
from ember._c10.dispatch_key import RUNTIME_KEYS, key_name

E, T = ember._C, torch._C


def outcome(f):
    try:
        value = f()
    except (RuntimeError, TypeError, ValueError, AttributeError) as error:
        return type(error).__name__, re.sub(r"0x[0-9a-f]+", "0x?", str(error))
    return "ok", repr(value)


def same(f):
    """``f(C)`` on ember._C and torch._C: the same outcome (the value's repr, or the error)."""
    ours, theirs = outcome(lambda: f(E)), outcome(lambda: f(T))
    assert ours == theirs
    return ours


# -- torch.DispatchKey -----------------------------------------------------------------------


def test_dispatch_key_is_a_top_level_name_and_the_same_object_as_C_s():
    assert ember.DispatchKey is E.DispatchKey
    assert torch.DispatchKey is T.DispatchKey
    assert repr(ember.DispatchKey.AutogradCPU) == repr(torch.DispatchKey.AutogradCPU)


# -- DispatchKeySet ------------------------------------------------------------------------------

# Every key name torch's parser knows that is a runtime key, the TESTING_ONLY keys among them.
NAMES = sorted(
    {key_name(k) for k in RUNTIME_KEYS if T._parse_dispatch_key(key_name(k)) is not None}
    | {"TESTING_ONLY_GenericWrapper", "TESTING_ONLY_GenericMode", "Dense", "Autograd"}
)


@pytest.mark.parametrize("name", NAMES)
def test_a_set_from_a_key_name_equals_torchs(name):
    same(lambda C: (C.DispatchKeySet(name), C.DispatchKeySet(name).raw_repr()))
    same(lambda C: C.DispatchKeySet(name).highestPriorityTypeId())


@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4), st.sampled_from(NAMES))
def test_set_algebra_equals_torchs(names, other):
    def build(C):
        keyset = C.DispatchKeySet(names[0])
        for name in names[1:]:
            keyset = keyset | C.DispatchKeySet(name)
        return keyset

    for f in (
        lambda C: build(C),
        lambda C: build(C) - C.DispatchKeySet(other),
        lambda C: build(C) & C.DispatchKeySet(other),
        lambda C: build(C).add(other),
        lambda C: build(C).add(C.DispatchKey.CPU),
        lambda C: build(C).remove(other),
        lambda C: build(C).has(other),
        lambda C: build(C).highestPriorityTypeId(),
        lambda C: (build(C) == C.DispatchKeySet(other), build(C).raw_repr()),
        lambda C: C.DispatchKeySet.from_raw_repr(build(C).raw_repr()),
    ):
        same(f)


@pytest.mark.parametrize(
    "misuse",
    [
        lambda C: C.DispatchKeySet("bogus"),
        lambda C: C.DispatchKeySet("EndOfFunctionalityKeys"),
        lambda C: C.DispatchKeySet("TESTING_ONLY_GenericMode2"),
        lambda C: C.DispatchKeySet(1.5),
        lambda C: C.DispatchKeySet("CPU") | "AutogradCPU",
        lambda C: C.DispatchKeySet("CPU") | C.DispatchKey.CPU,
        lambda C: C.DispatchKeySet("CPU") & 3,
        lambda C: C.DispatchKeySet("CPU") - None,
        lambda C: C.DispatchKeySet("CPU").add(3),
        lambda C: C.DispatchKeySet("CPU").add("bogus"),
        lambda C: C.DispatchKeySet("CPU").has(None),
        lambda C: C.DispatchKeySet("CPU").remove(2.0),
    ],
)
def test_misused_sets_raise_torchs_errors(misuse):
    assert same(misuse)[0] != "ok"


# -- the queries ---------------------------------------------------------------------------------


def test_all_invariants_hold_and_no_impl_dangles_in_a_fresh_process():
    same(lambda C: C._dispatch_check_all_invariants())
    program = "import ember; ember._C._dispatch_check_all_invariants(); "
    program += "print(ember._C._dispatch_find_dangling_impls())"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))
    fresh = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env)
    # PyTorch's own answer in a fresh process is [] too (its test_find_dangling_impls).
    assert (fresh.returncode, fresh.stdout) == (0, "[]\n")


def test_a_dangling_impl_is_found_with_its_dump():
    def run(C):
        m = C._dispatch_library("FRAGMENT", "__emds_dangle__", "")
        m.impl_t_t("nodef", "CPU")
        found = [d for d in C._dispatch_find_dangling_impls() if "__emds_dangle__" in d]
        del m
        return found, [d for d in C._dispatch_find_dangling_impls() if "__emds_dangle__" in d]

    assert same(run)[0] == "ok"


def test_registrations_for_a_key():
    def run(C):
        m = C._dispatch_library("FRAGMENT", "__emds_regs__", "")
        m.def_("a(Tensor x) -> Tensor").impl_t_t("a", "CPU").impl_t_t("a", "Autograd")
        m.def_("b(Tensor x) -> Tensor").impl_t_t("b", "XLA")
        ours = {
            key: sorted(
                n for n in C._dispatch_get_registrations_for_dispatch_key(key) if "__emds" in n
            )
            for key in ("", "CPU", "Autograd", "XLA", "Undefined", "AutogradCPU")
        }
        del m
        return ours

    assert same(run)[0] == "ok"
    assert set(E._dispatch_get_registrations_for_dispatch_key("CPU")) < set(
        E._dispatch_get_registrations_for_dispatch_key()
    )
    same(lambda C: C._dispatch_get_registrations_for_dispatch_key("bogus"))
    same(lambda C: C._dispatch_get_registrations_for_dispatch_key(C.DispatchKey.CPU))
    same(lambda C: C._dispatch_print_registrations_for_dispatch_key("bogus"))


def test_print_registrations_prints_one_name_a_line(capsys):
    m = E._dispatch_library("FRAGMENT", "__emds_print__", "")
    m.def_("p(Tensor x) -> Tensor").impl_t_t("p", "CPU")
    E._dispatch_print_registrations_for_dispatch_key("CPU")
    lines = capsys.readouterr().out.splitlines()
    assert "__emds_print__::p" in lines
    assert lines == E._dispatch_get_registrations_for_dispatch_key("CPU")


@pytest.mark.parametrize(
    "query",
    [
        lambda C: C._dispatch_is_included_in_alias("CPU", "CompositeImplicitAutograd"),
        lambda C: C._dispatch_is_included_in_alias("AutogradCPU", "Autograd"),
        lambda C: C._dispatch_is_included_in_alias("CPU", "Autograd"),
        lambda C: C._dispatch_is_included_in_alias("CPU", "CPU"),
        lambda C: C._dispatch_is_included_in_alias("bogus", "CPU"),
        lambda C: C._dispatch_is_included_in_alias(C.DispatchKey.XLA, "CompositeExplicitAutograd"),
        lambda C: C._dispatch_has_kernel_for_dispatch_key("aten::sin", "CPU"),
        lambda C: C._dispatch_has_kernel_for_dispatch_key("aten::nothere", "CPU"),
        lambda C: C._dispatch_has_kernel_for_dispatch_key("aten::sin", "bogus"),
        lambda C: C._dispatch_has_computed_kernel_for_dispatch_key("aten::sin", "AutogradCPU"),
        lambda C: C._dispatch_has_computed_kernel_for_dispatch_key("aten::sin", "Autograd"),
        lambda C: C._dispatch_key_for_device("meta"),
    ],
)
def test_key_queries_equal_torchs(query):
    same(query)


# -- _dispatch_call_boxed ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda C, lib: C._dispatch_call_boxed(C._dispatch_find_schema_or_throw("aten::sin", ""),
                                              lib.tensor([1.0, 2.0])),
        lambda C, lib: C._dispatch_call_boxed(C._dispatch_find_schema_or_throw("aten::sin", ""),
                                              self=lib.tensor([1.0, 2.0])),
        lambda C, lib: C._dispatch_call_boxed(C._dispatch_find_schema_or_throw("aten::add", "Tensor"),
                                              lib.ones(2), lib.ones(2), alpha=3),
        lambda C, lib: C._dispatch_call_boxed(C._dispatch_find_schema_or_throw("aten::split", "Tensor"),
                                              lib.arange(4.0), 3),
        lambda C, lib: C._dispatch_call_boxed(C._dispatch_find_schema_or_throw("aten::sin", ""), 3),
        lambda C, lib: C._dispatch_call_boxed(C._dispatch_find_schema_or_throw("aten::add", "Tensor"),
                                              lib.ones(1), 2),
        lambda C, lib: C._dispatch_call_boxed(C._dispatch_find_schema_or_throw("aten::sin", "")),
        lambda C, lib: C._dispatch_call_boxed(C._dispatch_find_schema_or_throw("aten::sin", ""),
                                              lib.ones(1), bogus=2),
        lambda C, lib: C._dispatch_call_boxed("aten::sin", lib.ones(1)),
    ],
)  # fmt: skip
def test_call_boxed_equals_torchs(call):
    ours = outcome(lambda: call(E, ember))
    theirs = outcome(lambda: call(T, torch))
    assert ours == theirs


# -- the key guards ------------------------------------------------------------------------------


def test_guards_change_the_thread_local_sets_as_torchs():
    def run(C):
        seen = []
        with C._ExcludeDispatchKeyGuard(C.DispatchKeySet("Python")) as bound:
            seen.append((bound, C._dispatch_tls_local_exclude_set()))
            with C._IncludeDispatchKeyGuard("CPU"):
                seen.append(C._dispatch_tls_local_include_set())
            with C._IncludeDispatchKeyGuard(
                C.DispatchKey.TESTING_ONLY_GenericWrapper
                if hasattr(C.DispatchKey, "TESTING_ONLY_GenericWrapper")
                else "TESTING_ONLY_GenericWrapper"
            ):
                seen.append(C._dispatch_tls_local_include_set())
        seen.append((C._dispatch_tls_local_include_set(), C._dispatch_tls_local_exclude_set()))
        return seen

    assert same(run)[0] == "ok"


@pytest.mark.parametrize(
    "misuse",
    [
        lambda C: C._ExcludeDispatchKeyGuard("CPU"),
        lambda C: C._ExcludeDispatchKeyGuard(C.DispatchKey.CPU),
        lambda C: C._IncludeDispatchKeyGuard(3.0),
        lambda C: C._IncludeDispatchKeyGuard("bogus"),
    ],
)
def test_guards_refuse_torchs_wrong_arguments(misuse):
    assert same(lambda C: misuse(C).__class__.__name__)[0] != "ok"


def test_force_guard_sets_exactly_the_given_sets_and_restores():
    def run(C):
        generic = C.DispatchKeySet("TESTING_ONLY_GenericMode")
        include = C._dispatch_tls_local_include_set() | generic
        exclude = C._dispatch_tls_local_exclude_set() | C.DispatchKeySet("Python")
        with C._ForceDispatchKeyGuard(include, exclude) as bound:
            inside = (
                bound,
                C._dispatch_tls_local_include_set(),
                C._dispatch_tls_local_exclude_set(),
            )
            inside += (C._dispatch_tls_is_dispatch_key_included("TESTING_ONLY_GenericMode"),)
        return inside, C._dispatch_tls_local_include_set(), C._dispatch_tls_local_exclude_set()

    assert same(run)[0] == "ok"
    same(lambda C: C._ForceDispatchKeyGuard(C.DispatchKeySet("CPU"), "CPU"))


def test_a_fallback_at_a_testing_key_sees_the_calls_made_under_the_force_guard():
    def run(lib):
        C = lib._C
        generic = C.DispatchKeySet("TESTING_ONLY_GenericMode")
        include = C._dispatch_tls_local_include_set() | generic
        exclude = C._dispatch_tls_local_exclude_set()
        seen = []

        def fallback(op, *args, **kwargs):
            with C._ForceDispatchKeyGuard(include, exclude | generic):
                seen.append(f"{op} {args} {sorted(kwargs)}")
                return lib.zeros(3)

        with lib.library._scoped_library("_", "IMPL") as library:
            library.fallback(fallback, "TESTING_ONLY_GenericMode")
            a, b = lib.ones(2), lib.ones(2)
            with C._ForceDispatchKeyGuard(include, exclude):
                cpu = lib.device("cpu")
                shapes = [
                    tuple(lib.empty(2, dtype=lib.float64, device=cpu, pin_memory=False).shape)
                ]
                shapes.append(tuple((a + b).shape))
        return shapes, seen

    assert run(ember) == run(torch)


def test_tensor_subclass_like():
    def run(lib):
        from_mode = []

        class Mode(lib.utils._python_dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))

        with Mode():
            from_mode.append(lib._C._dispatch_isTensorSubclassLike(lib.ones(1)))
        return (
            lib._C._dispatch_isTensorSubclassLike(lib.ones(2)),
            lib._C._dispatch_isTensorSubclassLike(lib.ones(2, device="meta")),
            from_mode,
        )

    assert run(ember) == run(torch)
    same(lambda C: C._dispatch_isTensorSubclassLike(3))


def test_a_key_set_pickles():
    import pickle

    same(lambda C: pickle.loads(pickle.dumps(C.DispatchKeySet("AutogradCPU"))))


def test_enable_python_dispatcher_includes_its_key_until_exit_or_collection():
    def run(lib):
        C = lib._C
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        enabled = C._EnablePythonDispatcher()
        seen.append(str(C._dispatch_tls_local_include_set()))
        y = lib.add(x, x)  # every call now passes the PythonDispatcher key
        y.sum().backward()
        seen += [type(y.grad_fn).__name__, y.tolist(), x.grad.tolist()]
        second = C._EnablePythonDispatcher()
        del second  # puts back what it found: included
        seen.append(str(C._dispatch_tls_local_include_set()))
        del enabled  # puts back what it found: not included
        seen.append(str(C._dispatch_tls_local_include_set()))
        with C._EnablePythonDispatcher() as bound:
            seen += [bound, str(C._dispatch_tls_local_include_set())]
        seen.append(str(C._dispatch_tls_local_include_set()))
        return seen

    assert run(ember) == run(torch)
