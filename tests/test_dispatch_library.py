"""torch._C._dispatch_library against PyTorch: the same dumps after the same registrations.

Each scenario is a list of registrations, each made through its own ``_dispatch_library``
module so that it can be undone alone by dropping the module. The registrations run in
several orders and are undone in several orders; after every step the operator's
``_dispatch_dump`` and ``_dispatch_dump_table`` (locations of built-in fallbacks masked),
or the error a step raised, must be PyTorch's, step for step.
"""

from __future__ import annotations

import itertools
import random
import re
import warnings

import pytest
from conftest import normalise
from oracle import torch

import ember
from ember._dispatch.dispatcher import dispatcher

_counter = itertools.count()


def _namespace() -> str:
    return f"__emdl{next(_counter)}__"


def _observe(C, ns: str, name: str) -> tuple[str, str]:
    C._dispatch_check_invariants(name)
    qualname = f"{ns}::{name}"
    state = C._dispatch_dump(qualname).replace(ns, "test")
    return state, normalise(C._dispatch_dump_table(qualname).replace(ns, "test"))


def _trace(C, name: str, ops, ctor: tuple, dtor: tuple) -> list:
    """What each step shows: registrations in ``ctor`` order, then drops in ``dtor`` order."""
    ns = _namespace()
    refs = [None] * len(ops)
    seen = [_observe(C, ns, name)]
    for index in ctor:
        refs[index] = C._dispatch_library("FRAGMENT", ns, "")
        try:
            ops[index](refs[index])
        except RuntimeError as error:
            seen.append(
                ("raised", str(error).split("\nException raised from ")[0].replace(ns, "test"))
            )
        seen.append(_observe(C, ns, name))
    for index in dtor:
        refs[index] = None
        seen.append(_observe(C, ns, name))
    return seen


def _orders(n: int) -> list[tuple[tuple, tuple]]:
    """Every (ctor, dtor) pair for up to three registrations; a fixed sample beyond."""
    if n <= 3:
        perms = list(itertools.permutations(range(n)))
        return [(c, d) for c in perms for d in perms]
    rng = random.Random(n)
    ctors = [tuple(range(n)), tuple(reversed(range(n)))]
    ctors += [tuple(rng.sample(range(n), n)) for _ in range(2)]
    return [(c, d) for c in ctors for d in (tuple(reversed(c)), c)]


T_T = "(Tensor x) -> Tensor"
SCENARIOS = {
    "def_and_impls": [
        lambda m: m.def_("foo" + T_T),
        lambda m: m.impl_t_t("foo"),
        lambda m: m.impl_t_t("foo", dispatch="CPU"),
        lambda m: m.impl_t_t("foo", dispatch="Autograd"),
        lambda m: m.impl_t_t("foo", dispatch="AutogradCPU"),
    ],
    "impl_schema_mismatch": [
        lambda m: m.def_("foo(Tensor x, Tensor y) -> Tensor"),
        lambda m: m.impl_t_t("foo"),
    ],
    "def_with_inference": [
        lambda m: m.def_name_t_t("foo"),
        lambda m: m.impl_t_t("foo", "CPU"),
        lambda m: m.impl_t_t("foo", "Autograd"),
        lambda m: m.impl_t_t("foo", "AutogradCPU"),
    ],
    "impl_only": [
        lambda m: m.impl_t_t("foo"),
        lambda m: m.impl_t_t("foo", "CPU"),
        lambda m: m.impl_t_t("foo", "Autograd"),
    ],
    "computed_table": [
        lambda m: m.def_name_t_t("foo"),
        lambda m: m.impl_t_t("foo", "CPU", debug="fn_cpu"),
        lambda m: m.impl_t_t("foo", "XLA", debug="fn_xla"),
        lambda m: m.impl_t_t("foo", "Autograd", debug="fn_autograd"),
        lambda m: m.impl_t_t("foo", "AutogradCPU", debug="fn_autogradcpu"),
    ],
    "cpu_math": [
        lambda m: m.def_("foo" + T_T),
        lambda m: m.impl_t_t("foo", "CPU", debug="fn_cpu"),
        lambda m: m.impl_t_t("foo", "CompositeImplicitAutograd", debug="fn_math"),
    ],
    "ambiguous_autogradother": [
        lambda m: m.def_("foo" + T_T),
        lambda m: m.impl_t_t("foo", "CompositeImplicitAutograd", debug="fn_math"),
        lambda m: m.impl_t_t("foo", "QuantizedCPU", debug="fn_quantizedcpu"),
    ],
    "cpu_autograd_defaultbackend": [
        lambda m: m.def_("foo" + T_T),
        lambda m: m.impl_t_t("foo", "CPU", debug="fn_cpu"),
        lambda m: m.impl_t_t("foo", "Autograd", debug="fn_autograd"),
        lambda m: m.impl_t_t("foo", "CompositeExplicitAutograd", debug="fn_defaultbackend"),
    ],
    "double_def": [
        lambda m: m.def_("foo(Tensor x, Tensor y) -> Tensor"),
        lambda m: m.def_("foo(Tensor x, Tensor y) -> Tensor"),
    ],
    "explicit_alias": [lambda m: m.def_("foo" + T_T, alias="PURE_FUNCTION")],
    "alias_then_legacy": [
        lambda m: m.def_("foo" + T_T, alias="PURE_FUNCTION"),
        lambda m: m.def_legacy("foo" + T_T),
    ],
    "legacy_and_schema_t_t": [
        lambda m: m.def_legacy("foo" + T_T),
        lambda m: m.impl_t_t("foo", "Meta"),
    ],
    "def_schema_t_t": [
        lambda m: m.def_schema_t_t("foo.out" + T_T, "CPU", "CONSERVATIVE", "dbg"),
        lambda m: m.impl_t_t("foo.out", "SparseCPU"),
    ],
    "def_schema_t_t_mismatch": [
        lambda m: m.def_schema_t_t("foo(int x) -> Tensor", "CPU"),
    ],
    "typed_mismatch_reasons": [
        lambda m: m.def_("foo(Tensor? x) -> Tensor"),
        lambda m: m.impl_t_t("foo", "CPU", debug="typed"),
    ],
    "return_count_mismatch": [
        lambda m: m.def_("foo(Tensor x) -> ()"),
        lambda m: m.impl_t_t("foo"),
    ],
}
RAISING = {
    "impl_schema_mismatch", "double_def", "alias_then_legacy", "def_schema_t_t_mismatch",
    "typed_mismatch_reasons", "return_count_mismatch",
}  # fmt: skip


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_registrations_commute_and_match_torch(scenario):
    ops = SCENARIOS[scenario]
    raised = False
    for ctor, dtor in _orders(len(ops)):
        ours = _trace(ember._C, "foo", ops, ctor, dtor)
        theirs = _trace(torch._C, "foo", ops, ctor, dtor)
        assert ours == theirs, (ctor, dtor)
        raised |= any(step[0] == "raised" for step in ours)
    assert raised == (scenario in RAISING)


def test_overwriting_a_kernel_keeps_the_older_one_inactive():
    with warnings.catch_warnings():  # the override warning comes once per process
        warnings.simplefilter("ignore")
        ours = _trace(
            ember._C,
            "foo",
            [lambda m: m.impl_t_t("foo", debug="fn1"), lambda m: m.impl_t_t("foo", debug="fn2")],
            (0, 1),
            (1, 0),
        )
    theirs = _trace(
        torch._C,
        "foo",
        [lambda m: m.impl_t_t("foo", debug="fn1"), lambda m: m.impl_t_t("foo", debug="fn2")],
        (0, 1),
        (1, 0),
    )
    assert ours == theirs
    assert "(inactive): fn1" in ours[2][0]


def _outcome(f):
    try:
        f()
    except (RuntimeError, TypeError) as error:
        return type(error).__name__, str(error).split("\nException raised from ")[0]
    return "ok", None


def _addresses(text):
    return None if text is None else re.sub(r"0x[0-9a-f]+", "0x?", text)


MISUSE = {
    "bad_kind": lambda C, ns: C._dispatch_library("BOGUS", ns, ""),
    "bad_key": lambda C, ns: C._dispatch_library("IMPL", ns, "bogus"),
    "def_block_with_key": lambda C, ns: C._dispatch_library("DEF", ns, "CPU"),
    "fragment_block_with_key": lambda C, ns: C._dispatch_library("FRAGMENT", ns, "CPU"),
    "kind_not_str": lambda C, ns: C._dispatch_library(1, ns, ""),
    "def_in_impl_block": lambda C, ns: C._dispatch_library("IMPL", ns, "CPU").def_("z.ov" + T_T),
    "def_other_namespace": lambda C, ns: C._dispatch_library("FRAGMENT", ns, "").def_(
        "other::z" + T_T
    ),
    "def_bad_alias": lambda C, ns: C._dispatch_library("FRAGMENT", ns, "").def_("z" + T_T, "X"),
    "def_bad_schema": lambda C, ns: C._dispatch_library("FRAGMENT", ns, "").def_("z(Tensor x"),
    "def_not_str": lambda C, ns: C._dispatch_library("FRAGMENT", ns, "").def_(3),
    "impl_bad_key": lambda C, ns: C._dispatch_library("FRAGMENT", ns, "").impl_t_t("z", "bogus"),
    "impl_other_namespace": lambda C, ns: C._dispatch_library("FRAGMENT", ns, "").impl_t_t(
        "other::z", "CPU"
    ),
    "impl_inconsistent_key": lambda C, ns: C._dispatch_library("IMPL", ns, "CPU").impl_t_t(
        "z", "XLA"
    ),
    "impl_not_str": lambda C, ns: C._dispatch_library("FRAGMENT", ns, "").impl_t_t(3),
    "impl_kwarg_not_str": lambda C, ns: C._dispatch_library("FRAGMENT", ns, "").impl_t_t(
        "z", dispatch=3
    ),
    "fallback_in_fragment": lambda C, ns: C._dispatch_library(
        "FRAGMENT", ns, ""
    ).fallback_fallthrough("PrivateUse3"),
    "fallback_in_namespace": lambda C, ns: C._dispatch_library(
        "IMPL", ns, "CPU"
    ).fallback_fallthrough(),
}


@pytest.mark.parametrize("case", sorted(MISUSE))
def test_misuse_raises_torchs_error(case):
    ours = _outcome(lambda: MISUSE[case](ember._C, "__emdl_misuse__"))
    theirs = _outcome(lambda: MISUSE[case](torch._C, "__emdl_misuse__"))
    assert theirs[0] != "ok"
    assert (ours[0], _addresses(ours[1])) == (theirs[0], _addresses(theirs[1]))
    assert dispatcher.find_op("__emdl_misuse__::z") is None  # nothing half-registered


def test_a_second_fallback_at_one_key_is_refused_and_dropping_restores():
    def run(C):
        ns = _namespace()
        m = C._dispatch_library("FRAGMENT", ns, "")
        m.def_("op" + T_T)

        def at_private_use3():
            table = C._dispatch_dump_table(f"{ns}::op").splitlines()
            return [line for line in table if line.startswith("PrivateUse3")]

        global_m = C._dispatch_library("IMPL", "_", "PrivateUse3")
        global_m.fallback_fallthrough()
        second = C._dispatch_library("IMPL", "_", "PrivateUse3")
        refused = _outcome(second.fallback_fallthrough)
        during = at_private_use3()
        del global_m
        return refused, during, at_private_use3()

    ours = run(ember._C)
    assert ours == run(torch._C)
    assert ours[1] == ["PrivateUse3: fallthrough registered at /dev/null:0 [backend fallback]"]


def test_define_returns_the_name_and_reset_undoes_everything():
    def run(C):
        ns = _namespace()
        m = C._dispatch_library("FRAGMENT", ns, "")
        names = (m.define("dd" + T_T), m.define(f"{ns}::dd2" + T_T, "CONSERVATIVE"))
        m.impl_t_t("dd", "CPU")
        dumps = [C._dispatch_dump(f"{ns}::{n}").replace(ns, "test") for n in ("dd", "dd2")]
        m.reset()
        after = [C._dispatch_dump(f"{ns}::{n}") for n in ("dd", "dd2")]
        m.def_("dd" + T_T)  # the module stays usable
        return (
            tuple(n.replace(ns, "test") for n in names),
            dumps,
            after,
            C._dispatch_dump(f"{ns}::dd").replace(ns, "test"),
        )

    assert run(ember._C) == run(torch._C)


def test_python_kernel_impl_runs_and_dumps_as_torchs():
    def run(C, lib):
        ns = _namespace().strip("_")  # torch.ops has no dunder namespaces
        m = C._dispatch_library("FRAGMENT", ns, "", "myfile.py", 7)
        m.def_("k" + T_T)
        m.impl("k", "CPU", lambda x: x + 1)
        result = getattr(lib.ops, ns).k(lib.ones(2)).tolist()
        return result, C._dispatch_dump(f"{ns}::k").replace(ns, "test")

    assert run(ember._C, ember) == run(torch._C, torch)
