"""Python signatures of ember's public functions and Tensor methods, derived from schemas.

Layer: codegen. In: NativeFunctions. Out: PythonSignature objects that the
writers turn into `ember.<fn>` functions and Tensor methods.
Mirrors the rules of torchgen/api/python.py and gen_python_functions.py:
`self` is `input` in functions and implicit in methods, an out= overload
joins its functional overload as a keyword-only `out`, factory functions
gain `requires_grad`, some Scalar overloads are hidden, and overloads are
tried Tensor-first (a partial order; see `sort_overloads`).
"""

from __future__ import annotations

import dataclasses
import re

from ember.aten import python_signature

from .model import NativeFunction

# Overloads PyTorch keeps out of its Python bindings (a Tensor overload covers them).
SKIP_PYTHON_BINDINGS = frozenset(
    {"add.Scalar", "add_.Scalar", "sub.Scalar", "sub_.Scalar", "mul.Scalar", "mul_.Scalar",
     "div.Scalar", "div_.Scalar", "div.Scalar_mode", "div_.Scalar_mode"}
)  # fmt: skip
# Functions whose Tensor parameters also take Python numbers: the parser's own list.
NUMBERS_AS_TENSORS = python_signature.NUMBERS_AS_TENSORS
# Python names that PyTorch does not expose at top level, or exposes elsewhere.
# (norm is torch/functional.py's Python function, Tensor.norm torch/_tensor.py's.)
HIDDEN_FUNCTIONS = frozenset({"_local_scalar_dense", "_to_copy", "_unsafe_view", "_softmax",
                              "_log_softmax", "nll_loss_forward", "nll_loss_backward", "to",
                              "norm"})  # fmt: skip
TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")


@dataclasses.dataclass(frozen=True)
class PythonArgument:
    name: str  # the Python name (`input` for a function's self)
    schema_name: str | None  # the schema argument it feeds (None: requires_grad)
    type: str  # yaml-style type for the parser
    default: str | None
    kwarg_only: bool

    def declaration(self) -> str:
        text = f"{self.type} {self.name}"
        return text if self.default is None else f"{text}={self.default}"


@dataclasses.dataclass(frozen=True)
class PythonSignature:
    """One Python overload: a functional NativeFunction, maybe with its out= twin."""

    name: str
    method: bool
    function: NativeFunction
    out: NativeFunction | None
    arguments: tuple[PythonArgument, ...]

    def declaration(self) -> str:
        positional = [a.declaration() for a in self.arguments if not a.kwarg_only]
        keyword = [a.declaration() for a in self.arguments if a.kwarg_only]
        parts = positional + (["*", *keyword] if keyword else [])
        return f"{self.name}({', '.join(parts)})"

    def input_types(self) -> tuple[str, ...]:
        return tuple(a.type for a in self.arguments if a.name not in ("out", "requires_grad"))


def yaml_type(arg) -> str:
    """The type as native_functions.yaml spells it, without alias annotations: `int[1]?`."""
    declaration = str(arg).split("=", 1)[0].rsplit(" ", 1)[0]
    return re.sub(r"\([^)]*\)", "", declaration)


def _python_default(arg) -> str | None:
    if not arg.has_default_value():
        return None
    text = str(arg).split("=", 1)[1] if "=" in str(arg) else None
    if arg.name == "pin_memory":
        return "False"
    if yaml_type(arg).startswith(("ScalarType", "Layout", "MemoryFormat")):
        return "None"  # Python callers leave enum options unset; the kernel applies the default
    return text


def _out_type(out_args) -> str:
    if len(out_args) == 1:
        return "Tensor?"
    return f"Tensor[{len(out_args)}]?"


def python_signature(
    f: NativeFunction, out: NativeFunction | None, *, method: bool
) -> PythonSignature:
    arguments = []
    schema_args = [a for a in f.func.arguments if not a.is_out]
    names = {a.name for a in schema_args}
    is_factory = {"layout", "device"} <= names
    out_arg = None
    if out is not None:
        outs = [a for a in out.func.arguments if a.is_out]
        out_arg = PythonArgument("out", "out", _out_type(outs), "None", True)
    for arg in schema_args:
        if method and arg.name == "self":
            continue
        name = "input" if arg.name == "self" else arg.name
        if out_arg is not None and is_factory and arg.name == "dtype":
            arguments.append(out_arg)  # PyTorch puts out before the tensor options
            out_arg = None
        arguments.append(
            PythonArgument(name, arg.name, yaml_type(arg), _python_default(arg), arg.kwarg_only)
        )
    if out_arg is not None:
        arguments.append(out_arg)
    if is_factory:
        arguments.append(PythonArgument("requires_grad", None, "bool", "False", True))
    name = f.base_name
    return PythonSignature(name, method, f, out, tuple(arguments))


def _out_twin(f: NativeFunction, outs: list[NativeFunction]) -> NativeFunction | None:
    inputs = [(a.name, yaml_type(a)) for a in f.func.arguments]
    for candidate in outs:
        if candidate.base_name != f.base_name:
            continue
        args = [(a.name, yaml_type(a)) for a in candidate.func.arguments if not a.is_out]
        if args == inputs:
            return candidate
    return None


def _is_smaller_type(t1: str, t2: str) -> bool:
    return (
        (t1 == "Scalar" and t2 == "Tensor")
        or (t1 == "Scalar?" and t2 == "Tensor?")
        or (t1 == "int[]" and t2 in ("int", "int?"))
        or (t1 == "Tensor[]" and "[]" in t2)
        or (t1 == "SymInt[]" and t2 == "int[]")
        or (t1 in ("SymInt", "int") and t2 == "Tensor")
    )


def _is_smaller(s1: PythonSignature, s2: PythonSignature) -> bool:
    a1, a2 = s1.input_types(), s2.input_types()
    if len(a1) != len(a2) or a1 == a2:
        return False
    return all(x == y or _is_smaller_type(x, y) for x, y in zip(a1, a2))


def sort_overloads(signatures: list[PythonSignature]) -> list[PythonSignature]:
    """Order overloads so that a more general one never shadows a more specific one."""
    ordered = sorted(signatures, key=lambda s: s.declaration())
    result: list[PythonSignature] = []
    remaining = list(ordered)
    while remaining:
        for candidate in remaining:
            if not any(
                _is_smaller(candidate, other) for other in remaining if other is not candidate
            ):
                result.append(candidate)
                remaining.remove(candidate)
                break
        else:  # a cycle cannot happen for a partial order; keep the rest in name order
            result.extend(remaining)
            break
    return result


def group_python_signatures(
    functions: list[NativeFunction], *, method: bool
) -> dict[str, list[PythonSignature]]:
    """Python name -> its overloads, in the order the parser tries them."""
    variant = "method" if method else "function"
    outs = [f for f in functions if f.is_out]
    grouped: dict[str, list[PythonSignature]] = {}
    for f in functions:
        if f.is_out or variant not in f.variants or f.name in SKIP_PYTHON_BINDINGS:
            continue
        if f.python_module is not None and not method:
            continue
        if f.base_name in HIDDEN_FUNCTIONS:
            continue
        if method and not any(a.name == "self" for a in f.func.arguments):
            continue
        twin = None if method else _out_twin(f, outs)
        grouped.setdefault(f.base_name, []).append(python_signature(f, twin, method=method))
    return {name: sort_overloads(sigs) for name, sigs in sorted(grouped.items())}


def nn_python_signatures(functions: list[NativeFunction]) -> dict[str, list[PythonSignature]]:
    """Functions with `python_module: nn` (ember._C._nn in PyTorch)."""
    return module_python_signatures(functions, "nn")


def module_python_signatures(
    functions: list[NativeFunction], module: str
) -> dict[str, list[PythonSignature]]:
    """Functions with `python_module: <module>` (torch._C._nn, torch._C._linalg)."""
    outs = [f for f in functions if f.is_out]
    grouped: dict[str, list[PythonSignature]] = {}
    for f in functions:
        if f.python_module != module or f.is_out:
            continue
        twin = _out_twin(f, outs)
        grouped.setdefault(f.base_name, []).append(python_signature(f, twin, method=False))
    return {name: sort_overloads(sigs) for name, sigs in sorted(grouped.items())}
