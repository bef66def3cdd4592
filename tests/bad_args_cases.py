"""The cases of the bad-arguments sweep: argument recipes, entry points, malformed calls.

A recipe (``T``, ``Attr``, ``Dev``, ``NP``, plain Python values) is built in either
library, so one case runs under torch and under ember with equal arguments. Every
public entry point ember has comes with its Python signatures (those the argument
parser binds with, or written out here for the hand-written ones); ``cases_for``
malforms each: wrong types and out-of-range values in each position, unknown and
repeated keywords, too many and too few arguments. tests/bad_args_sweep.py runs them.
"""

from __future__ import annotations

import dataclasses

from bad_args_entries import *  # noqa: F403 (the sweep's vocabulary, re-exported)
from bad_args_entries import Entry, Param, entries
from bad_args_recipes import *  # noqa: F403
from bad_args_recipes import NP, OBJECT, Attr, Dev, T

from ember.aten.python_arg_convert import (
    BOOL,
    BOOL_LIST,
    DEVICE,
    DOUBLE,
    FLOAT_LIST,
    GENERATOR,
    INT64,
    INT_LIST,
    LAYOUT,
    MEMORY_FORMAT,
    SCALAR,
    SCALARTYPE,
    STRING,
    SYM_INT,
    SYM_INT_LIST,
    TENSOR,
    TENSOR_LIST,
)

# ---------------------------------------------------------------------------
# Valid values per parameter kind, and the malformed ones.

_GOOD_INT_LISTS = {"size": [2, 3], "shape": [2, 3], "stride": [3, 1], "dims": [0], "dim": [0]}


def good_value(param: Param):
    kind, name = param.kind, param.name
    if kind == TENSOR:
        return T((2, 3), "int64") if name in ("index", "target", "indices") else T()
    if kind == SCALAR:
        return 2
    if kind in (INT64, SYM_INT):
        return 0 if "dim" in name else 1
    if kind == DOUBLE:
        return 0.5
    if kind == BOOL:
        return False
    if kind == STRING:
        return "none"
    if kind == SCALARTYPE:
        return Attr("float64")
    if kind == LAYOUT:
        return Attr("strided")
    if kind == DEVICE:
        return "cpu"
    if kind == MEMORY_FORMAT:
        return Attr("contiguous_format")
    if kind == GENERATOR:
        return None
    if kind == TENSOR_LIST:
        return [T(), T()]
    if kind in (INT_LIST, SYM_INT_LIST):
        return list(_GOOD_INT_LISTS.get(name, [1] * max(param.size, 1)))
    if kind == FLOAT_LIST:
        return [0.5]
    if kind == BOOL_LIST:
        return [False] * max(param.size, 1)
    return [1.0, 2.0]


INT64_OUT = [2**63, -(2**63) - 1, 2**64]
COMMON_BAD = [None, "a", 2.5, [1, "a"], {"a": 1}, OBJECT, 2**63]
_BAD_BY_KIND = {
    TENSOR: [1, [T()], T(device="meta"), T((2, 3), "int64"), T((), "float32"), T((0,)),
             T((2, 3), requires_grad=True), T((3, 2))],
    SCALAR: [*INT64_OUT, 10**100, float("nan"), 1j, T((2,)), T(())],
    INT64: [*INT64_OUT, 2**62, -1, True, 1.0, "1", T((), "int64"), T((), "float32"), [1]],
    DOUBLE: [10**400, True, "0.5", 1j, T(())],
    BOOL: [1, 0, "True", T((), "bool")],
    STRING: [1, b"mean", "not-a-mode"],
    SCALARTYPE: ["float32", 5, float, Dev("cpu"), Attr("strided")],
    LAYOUT: ["strided", 1, Attr("float32")],
    DEVICE: ["cpx", "cuda:x", 1.5, -1, "meta", Attr("float32"), "cpu:1"],
    MEMORY_FORMAT: ["x", 1, Attr("channels_last"), Attr("float32")],
    GENERATOR: [1, "a"],
    TENSOR_LIST: [T(), [T(), 1], [T(), None], [], (T(), T(device="meta")), [T(), T((3,))]],
    INT_LIST: [[2**63], [1, 2**63], [2.5], (1, "a"), [-1], [2**62, 4], -2, 1.5, [T((), "int64")],
               [T((), "float32")]],
    FLOAT_LIST: [[1, "a"], 1, ["a"]],
    BOOL_LIST: [[1], 1, [True, 1]],
    -1: [[1, "a"], [[1], [2, 3]], [[1], 2], [2**63], [2**64], [1, None], "abc", OBJECT, None,
         {"a": 1}, [1, [2]], [True, "a"], NP(("a", "b"), "U1"), NP((1, 2), "uint16")],
}  # fmt: skip
_BAD_BY_KIND[SYM_INT] = _BAD_BY_KIND[INT64]
_BAD_BY_KIND[SYM_INT_LIST] = _BAD_BY_KIND[INT_LIST]


def bad_values(param: Param) -> list:
    values = list(_BAD_BY_KIND.get(param.kind, [])) + COMMON_BAD
    unique = []
    for value in values:
        if not any(_same_recipe(value, seen) for seen in unique):
            unique.append(value)
    return unique


def _same_recipe(a, b) -> bool:
    return type(a) is type(b) and repr(a) == repr(b)


# ---------------------------------------------------------------------------
# Cases


@dataclasses.dataclass(frozen=True)
class Case:
    entry: Entry
    args: tuple
    kwargs: tuple  # of (name, recipe) pairs
    what: str  # which malformation

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        head = f"{self.entry.self_recipe!r}." if self.entry.space == "method" else ""
        label = self.entry.label() if not head else self.entry.name
        return f"{head}{label}({', '.join(parts)})  # {self.what}"


def _base(entry: Entry, signature: tuple) -> list:
    if entry.base:
        return list(entry.base)
    return [good_value(p) for p in signature if not p.optional and not p.keyword_only]


def cases_for(entry: Entry) -> list[Case]:
    cases: list[Case] = []
    seen: set[str] = set()

    def add(args, kwargs, what):
        case = Case(entry, tuple(args), tuple(kwargs), what)
        key = repr(case)
        if key not in seen:
            seen.add(key)
            cases.append(case)

    for signature in entry.signatures:
        base = _base(entry, signature)
        positional = [p for p in signature if not p.keyword_only]
        for index, param in enumerate(positional[: len(base)]):
            for value in bad_values(param):
                args = list(base)
                args[index] = value
                add(args, (), f"bad {param.name}")
        for param in signature:
            if param in positional[: len(base)]:
                continue
            for value in bad_values(param):
                add(base, ((param.name, value),), f"bad {param.name}=")
        add(base, (("foo", 1),), "unknown keyword")
        if positional[: len(base)]:
            add(base, ((positional[0].name, base[0]),), "given twice")
        add([*base, *[1] * (len(positional) - len(base) + 1)], (), "too many")
        if base and not entry.base:
            add(base[:-1], (), "missing")
        add(base, (), "valid")
    return cases


def all_cases(names=()) -> list[Case]:
    chosen = [e for e in entries() if not names or e.name in names or e.label() in names]
    return [case for entry in chosen for case in cases_for(entry)]
