"""The model of derivatives.yaml: one DifferentiabilityInfo per differentiable operator.

Layer: codegen. In: src/ember/autograd/derivatives.yaml and the NativeFunctions
of native_functions.yaml. Out: for every operator that is not
CompositeImplicitAutograd, how its autograd kernel behaves (record a node,
only redispatch, refuse out=, NotImplemented). Mirrors torchgen/api/autograd.py
(DifferentiabilityInfo, match_differentiability_info, gen_differentiable_outputs),
load_derivatives.py and the choices of gen_variable_type.py.

Note [Operators without a derivative formula]
---------------------------------------------
As in PyTorch, an operator with tensor inputs and tensor outputs that has no
entry (its own, or its functional overload's) is differentiable but not
implemented: when an input requires grad its outputs get a NotImplemented
grad_fn, whose backward raises `derivative for aten::OP is not implemented`
(torch's autogradNotImplementedFallback). Only what PyTorch declares
non-differentiable escapes this: the names of DONT_REQUIRE_DERIVATIVE
(gen_variable_type.py's list), entries whose outputs are all
non-differentiable, operators without tensor inputs or outputs. An out=
overload follows its functional overload's entry: it refuses arguments that
require grad when that entry is differentiable, and is NotImplemented when
there is none, or when it is one the functional's `autogen:` names (PyTorch
2.13 gives those its NotImplemented fallback: as_strided_scatter.out, expand_copy.out). Of those that return nothing (a Tensor[] out=), the ones of
CHECKED_LIST_OUTS refuse out= tensors that require grad, as PyTorch's do. A
tensor input an entry leaves unlisted may not require grad
(check_no_requires_grad).

Note [Formulas in derivatives.yaml]
-----------------------------------
A formula is a Python expression over `grad` (the gradient of the first
output; `grads` for all of them), `result` (or the schema's output names),
the schema's argument names, metadata names `<arg>_sizes`, `<arg>_strides`,
`<arg>_dtype`, `<arg>_device`, `<arg>_numel`, `<arg>_dim`, `<arg>_storage_offset` (saved
instead of the tensor; `<arg>_sym_sizes_opt`: the sizes of an optional tensor, None
when absent), `grad_input_mask` (See Note [Formulas for several inputs]) and the
names of ember.autograd.formulas: its public
functions and what it imports (`zeros_like`, `where`, `at`, ...), as PyTorch's
formulas call `at::` functions by their bare names. The package root `ember` is
not among them (formulas sit in the autograd layer, below the root). The
generator reads the names with `ast` and saves exactly what the formulas use. An in-place operator shares the entry (and the node
class) of its functional overload with the same arguments; a formula that
reads `self` then sees a clone of `self` taken before the operator ran.

Note [Formulas for several inputs]
----------------------------------
An entry keyed by several inputs (`input, weight, bias: convolution_backward(...)`)
is one expression returning a tuple with one gradient per listed input, as in
PyTorch's derivatives.yaml. The node evaluates it once, when any of them needs a
gradient, with `grad_input_mask` (a list of bools, one per listed input: does it
need one), and drops the gradients of inputs that need none.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import re
from pathlib import Path

import yaml

from .model import NativeFunction

DERIVATIVES = Path(__file__).resolve().parent.parent / "autograd" / "derivatives.yaml"
FORMULAS = DERIVATIVES.parent / "formulas.py"
METADATA_SUFFIXES = (
    "_sizes", "_strides", "_dtype", "_device", "_numel", "_dim", "_storage_offset", "_sym_sizes_opt",
)  # fmt: skip
_RESERVED = {"grad", "grads", "grad_input_mask"}
_FORWARD_KEY = re.compile(r"result\d*")

# torchgen/packaged/autograd/gen_variable_type.py: operators autograd does not look at
# (their results depend only on metadata, or are integral / boolean).
DONT_REQUIRE_DERIVATIVE = frozenset({
    "empty_like", "ones_like", "full_like", "zeros_like", "rand_like", "randn_like",
    "new_empty", "new_empty_strided", "new_full", "new_zeros", "new_ones",
    "__and__", "__iand__", "__ilshift__", "__ior__", "__irshift__", "__ixor__", "__lshift__",
    "__or__", "__rshift__", "__xor__",
    "_sobol_engine_draw", "_sobol_engine_ff", "_sobol_engine_scramble_",
    "_sobol_engine_initialize_state_", "_coalesced_", "quantize_per_tensor",
    "quantize_per_channel", "argmax", "argmin", "argsort", "searchsorted", "bucketize",
    "isnan", "isposinf", "isneginf", "isinf", "signbit", "isin", "allclose", "record_stream",
    "logical_and", "logical_xor", "logical_not", "logical_or",
    "_nested_tensor_size", "_nested_tensor_strides", "_nested_tensor_storage_offsets",
})  # fmt: skip

# The Tensor[] out= overloads returning nothing whose VariableType kernel in PyTorch 2.13
# refuses out= tensors that require grad (split_with_sizes_copy.out's lets them through).
CHECKED_LIST_OUTS = frozenset({"unbind_copy.int_out"})

# gen_variable_type.py's MANUAL_AUTOGRAD: kernels PyTorch writes by hand, whose results
# are not differentiable (ember's resize_ is hand-written too: `manual` in the yaml).
NON_DIFFERENTIABLE_MANUAL = frozenset({"detach", "detach_"})


@dataclasses.dataclass(frozen=True)
class Derivative:
    """The entry of one functional overload."""

    op: str
    node: str | None
    formulas: dict[str, str]  # input name -> expression
    non_differentiable: tuple[str, ...]
    output_differentiability: tuple[bool, ...] | None
    manual: bool
    # "input, weight, bias: f(...)": one formula for several inputs, returning one gradient
    # per name and reading `grad_input_mask` (which of them are needed), as PyTorch's
    joint: tuple[tuple[tuple[str, ...], str], ...] = ()
    # the forward formulas: output key (`result`, or `result<i>` for output i) -> expression,
    # `auto_linear` or `auto_element_wise`; See Note [Generated forward formulas]
    forward: tuple[tuple[str, str], ...] = ()

    def names_used(self) -> set[str]:
        names: set[str] = set()
        for expression in self.formulas.values():
            tree = ast.parse(expression, mode="eval")
            names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        return names

    def differentiable_outputs(self, count: int) -> tuple[bool, ...]:
        """Which of `count` tensor outputs get the node: output_differentiability, else
        all of them, or only the first when the formulas read `grad` (uses_single_grad)."""
        if self.output_differentiability is not None:
            return self.output_differentiability
        if not self.formulas:
            return (False,) * count
        if count > 1 and "grad" in self.names_used():
            return (True,) + (False,) * (count - 1)
        return (True,) * count


def load_derivatives(path: Path = DERIVATIVES) -> dict[str, Derivative]:
    entries = yaml.safe_load(path.read_text())
    result = {}
    special = {"op", "node", "output_differentiability", "manual"}
    for entry in entries:
        formulas, non_diff, joint, forward = {}, [], [], []
        for key, value in entry.items():
            if key in special:
                continue
            if _FORWARD_KEY.fullmatch(key):
                forward.append((key, str(value)))
                continue
            if value == "non_differentiable":
                non_diff.append(key)
            elif ", " in key:
                names = tuple(key.split(", "))
                joint.append((names, str(value)))
                formulas.update(dict.fromkeys(names, str(value)))
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
            manual=bool(entry.get("manual", False)),
            joint=tuple(joint),
            forward=tuple(forward),
        )
    return result


def _signature(f: NativeFunction) -> tuple:
    return tuple((a.name, str(a.type)) for a in f.func.arguments if not a.is_out)


def functional_of(f: NativeFunction, functions: list[NativeFunction]) -> NativeFunction | None:
    """The functional overload an in-place or out= overload derives from: the same base
    name (an in-place one without its `_`) and the same arguments, out= ones aside
    (FunctionSchema.signature in torchgen)."""
    base = f.base_name[:-1] if f.is_inplace else f.base_name
    for g in functions:
        if g is f or g.is_out or g.is_inplace or g.base_name != base:
            continue
        if _signature(g) == _signature(f):
            return g
    return None


def helper_names() -> set[str]:
    """The public functions of ember/autograd/formulas.py and the names it imports with
    ``from X import name`` (read, not imported)."""
    tree = ast.parse(FORMULAS.read_text())
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            names |= {alias.asname or alias.name for alias in node.names}
    return {name for name in names if name[0] != "_"}


def is_tensor_type(arg) -> bool:
    return arg.type.is_tensor_like()[0]


@dataclasses.dataclass(frozen=True)
class AutogradOp:
    """What the generated autograd kernel of one overload does.

    kind: "record" (a node from the entry's formulas), "nondiff" (only redispatch),
    "out" (refuse arguments that require grad), "not_implemented" (a NotImplemented
    node; See Note [Operators without a derivative formula]), "manual" (hand-written)."""

    f: NativeFunction
    kind: str
    derivative: Derivative | None = None

    @property
    def tensor_inputs(self) -> list:
        """The tensor arguments (out= ones aside), in schema order."""
        return [a for a in self.f.func.arguments if not a.is_out and is_tensor_type(a)]

    @property
    def differentiable_inputs(self) -> list:
        """Tensor arguments that get an edge ("record"), that may get one ("not_implemented":
        those that require grad), or that may not require grad ("out")."""
        args = self.tensor_inputs
        if self.kind == "not_implemented":
            return [a for a in self.f.func.arguments if is_tensor_type(a)]
        d = self.derivative
        if d is None:
            return []
        if self.kind == "out":
            return [a for a in args if a.name not in d.non_differentiable]
        return [a for a in args if a.name in d.formulas]

    @property
    def unlisted_inputs(self) -> list:
        """Tensor arguments the entry names neither way: they may not require grad."""
        d = self.derivative
        if d is None or self.kind != "record":
            return []
        listed = set(d.formulas) | set(d.non_differentiable) | {"output"}
        return [a for a in self.tensor_inputs if a.name not in listed]

    @property
    def differentiable_outputs(self) -> tuple[bool, ...]:
        """Per tensor return: does it join the node (or, for out=, must it not require grad)."""
        count = len(self.f.func.returns)
        if self.derivative is None:
            return (True,) * count
        return self.derivative.differentiable_outputs(count)

    @property
    def out_arguments(self) -> list:
        return [a for a in self.f.func.arguments if a.is_out]

    def check(self) -> None:
        d = self.derivative
        if d is None or self.kind != "record":
            return
        names = {a.name for a in self.f.func.arguments}
        for name in (*d.formulas, *d.non_differentiable):
            if name not in names:
                raise ValueError(f"derivatives.yaml {d.op}: {name} is no argument")
        outputs = {r.name or f"result{i}" for i, r in enumerate(self.f.func.returns)}
        known = names | outputs | _RESERVED | {"result"} | set(dir(builtins))
        for name in d.names_used():
            if name in known or name.endswith(METADATA_SUFFIXES):
                continue
            if name not in helper_names():
                raise ValueError(f"derivatives.yaml {d.op}: unknown name {name}")


def _differentiable_returns(f: NativeFunction) -> bool:
    return any(r.type.is_tensor_like()[0] for r in f.func.returns)


def _kind(f: NativeFunction, d: Derivative | None) -> str:
    """See Note [Operators without a derivative formula]."""
    if d is not None and d.manual:
        return "manual"
    has_inputs = any(is_tensor_type(a) for a in f.func.arguments)
    base = f.base_name[:-1] if f.is_inplace else f.base_name  # torchgen's get_base_name
    if base in DONT_REQUIRE_DERIVATIVE | NON_DIFFERENTIABLE_MANUAL or not has_inputs:
        return "nondiff"
    if f.name in CHECKED_LIST_OUTS:
        return "out"
    if not _differentiable_returns(f):
        return "nondiff"
    if d is None:
        return "not_implemented"
    if not any(d.differentiable_outputs(len(f.func.returns))):
        return "nondiff"
    if f.is_out:
        differentiable = [a for a in f.func.arguments if is_tensor_type(a) and not a.is_out]
        if not [a for a in differentiable if a.name not in d.non_differentiable]:
            return "nondiff"
        return "out"
    if not d.formulas:
        return "nondiff"
    return "record"


def autograd_ops(functions: list[NativeFunction], derivatives: dict[str, Derivative]):
    ops = []
    used = set()
    for f in functions:
        if f.is_composite_implicit:
            continue
        d = derivatives.get(f.name)
        if d is None and (f.is_inplace or f.is_out):
            functional = functional_of(f, functions)
            if functional is not None and f.name not in functional.autogen:
                d = derivatives.get(functional.name)
        if d is not None:
            used.add(d.op)
        op = AutogradOp(f, _kind(f, d), d)
        op.check()
        ops.append(op)
    unused = set(derivatives) - used
    if unused:
        raise ValueError(f"derivatives.yaml: entries match no operator: {sorted(unused)}")
    return ops
