"""The model of derivatives.yaml: one DifferentiabilityInfo per differentiable operator.

Layer: codegen. In: src/ember/autograd/derivatives.yaml and the NativeFunctions
of native_functions.yaml. Out: for every operator that is not
CompositeImplicitAutograd, how its autograd kernel behaves (record a node,
only redispatch, refuse out=, NotImplemented). Mirrors torchgen/api/autograd.py
(DifferentiabilityInfo, match_differentiability_info) and load_derivatives.py.

Note [Formulas in derivatives.yaml]
-----------------------------------
A formula is a Python expression over `grad` (the gradient of the first
output; `grads` for all of them), `result` (or the schema's output names),
the schema's argument names, metadata names `<arg>_sizes`, `<arg>_strides`,
`<arg>_dtype`, `<arg>_numel`, `<arg>_dim`, `<arg>_storage_offset` (saved
instead of the tensor), the helpers of ember.autograd.formulas and the
module `ember`. The generator reads the names with `ast` and saves exactly
what the formulas use. An in-place operator shares the entry (and the node
class) of its functional overload with the same arguments; a formula that
reads `self` then sees a clone of `self` taken before the operator ran.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
from pathlib import Path

import yaml

from .model import NativeFunction

DERIVATIVES = Path(__file__).resolve().parent.parent / "autograd" / "derivatives.yaml"
FORMULAS = DERIVATIVES.parent / "formulas.py"
METADATA_SUFFIXES = ("_sizes", "_strides", "_dtype", "_numel", "_dim", "_storage_offset")
_RESERVED = {"grad", "grads", "ember"}


@dataclasses.dataclass(frozen=True)
class Derivative:
    """The entry of one functional overload."""

    op: str
    node: str | None
    formulas: dict[str, str]  # input name -> expression
    non_differentiable: tuple[str, ...]
    output_differentiability: tuple[bool, ...] | None
    not_implemented: bool
    manual: bool

    def names_used(self) -> set[str]:
        names: set[str] = set()
        for expression in self.formulas.values():
            tree = ast.parse(expression, mode="eval")
            names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        return names


def load_derivatives(path: Path = DERIVATIVES) -> dict[str, Derivative]:
    entries = yaml.safe_load(path.read_text())
    result = {}
    special = {"op", "node", "output_differentiability", "not_implemented", "manual"}
    for entry in entries:
        formulas, non_diff = {}, []
        for key, value in entry.items():
            if key in special:
                continue
            if value == "non_differentiable":
                non_diff.append(key)
            else:
                formulas[key] = str(value)
        outputs = entry.get("output_differentiability")
        if entry["op"] in result:
            raise ValueError(f"derivatives.yaml: {entry['op']} appears twice")
        result[entry["op"]] = Derivative(
            op=entry["op"],
            node=entry.get("node"),
            formulas=formulas,
            non_differentiable=tuple(non_diff),
            output_differentiability=tuple(outputs) if outputs is not None else None,
            not_implemented=bool(entry.get("not_implemented", False)),
            manual=bool(entry.get("manual", False)),
        )
    return result


def _signature(f: NativeFunction) -> tuple:
    return tuple((a.name, str(a.type)) for a in f.func.arguments if not a.is_out)


def functional_of(f: NativeFunction, functions: list[NativeFunction]) -> NativeFunction | None:
    """The functional overload an in-place overload derives from (same arguments)."""
    base = f.base_name[:-1]
    for g in functions:
        if g.base_name == base and not g.is_out and _signature(g) == _signature(f):
            return g
    return None


def helper_names() -> set[str]:
    """The public functions of ember/autograd/formulas.py, its own and those it imports
    from its sibling helper modules (read, not imported)."""
    tree = ast.parse(FORMULAS.read_text())
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name[0] != "_"}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "ember.autograd.formulas_"
        ):
            names.update(alias.name for alias in node.names if alias.name[0] != "_")
    return names


def is_tensor_type(arg) -> bool:
    return arg.type.is_tensor_like()[0]


@dataclasses.dataclass(frozen=True)
class AutogradOp:
    """What the generated autograd kernel of one overload does."""

    f: NativeFunction
    kind: str  # "record", "nondiff", "out", "not_implemented", "manual"
    derivative: Derivative | None = None

    @property
    def differentiable_inputs(self) -> list:
        """Tensor arguments that get an edge, in schema order."""
        args = [a for a in self.f.func.arguments if not a.is_out and is_tensor_type(a)]
        if self.kind == "not_implemented":
            return args
        if self.derivative is None:
            return []
        return [a for a in args if a.name in self.derivative.formulas]

    def check(self) -> None:
        d = self.derivative
        if d is None or self.kind != "record":
            return
        names = {a.name for a in self.f.func.arguments}
        for arg in self.f.func.arguments:
            listed = arg.name in d.formulas or arg.name in d.non_differentiable
            if is_tensor_type(arg) and not arg.is_out and not listed:
                raise ValueError(f"derivatives.yaml {d.op}: tensor argument {arg.name} unlisted")
        outputs = {r.name for r in self.f.func.returns if r.name}
        known = names | outputs | _RESERVED | {"result"} | set(dir(builtins))
        for name in d.names_used():
            if name in known or name.endswith(METADATA_SUFFIXES):
                continue
            if name not in helper_names():
                raise ValueError(f"derivatives.yaml {d.op}: unknown name {name}")


def autograd_ops(functions: list[NativeFunction], derivatives: dict[str, Derivative]):
    ops = []
    used = set()
    for f in functions:
        if f.is_composite_implicit:
            continue
        if f.is_out:
            ops.append(AutogradOp(f, "out"))
            continue
        d = derivatives.get(f.name)
        if d is None and f.is_inplace:
            functional = functional_of(f, functions)
            if functional is not None:
                d = derivatives.get(functional.name)
        if d is not None:
            used.add(d.op)
        if d is None:
            kind = "nondiff"
        elif d.manual:
            kind = "manual"
        elif d.not_implemented:
            kind = "not_implemented"
        elif d.output_differentiability is not None and not any(d.output_differentiability):
            kind = "nondiff"
        else:
            kind = "record"
        op = AutogradOp(f, kind, d)
        op.check()
        ops.append(op)
    unused = set(derivatives) - used
    if unused:
        raise ValueError(f"derivatives.yaml: entries match no operator: {sorted(unused)}")
    return ops
