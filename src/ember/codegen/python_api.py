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

# Overloads PyTorch keeps out of its Python bindings (gen_python_functions'
# SKIP_PYTHON_BINDINGS_SIGNATURES: a Tensor overload covers them), and the names it
# binds by hand or not at all (SKIP_PYTHON_BINDINGS, for the operators ember has).
SKIP_PYTHON_BINDINGS = frozenset(
    {"add.Scalar", "add_.Scalar", "sub.Scalar", "sub_.Scalar", "mul.Scalar", "mul_.Scalar",
     "div.Scalar", "div_.Scalar"}
)  # fmt: skip
SKIP_PYTHON_NAMES = frozenset(
    {"index", "copy_", "set_"}
)  # by hand: _tensor_conversions.py, _tensor_set.py
# Functions whose Tensor parameters also take Python numbers: the parser's own list.
NUMBERS_AS_TENSORS = python_signature.NUMBERS_AS_TENSORS
# Python names that PyTorch does not expose at top level, or exposes elsewhere.
# (norm is torch/functional.py's Python function, Tensor.norm torch/_tensor.py's.)
HIDDEN_FUNCTIONS = frozenset({"_local_scalar_dense", "_to_copy", "_unsafe_view", "_softmax",
                              "_log_softmax", "nll_loss_forward", "nll_loss_backward", "to",
                              "norm", "tanh_backward", "sigmoid_backward", "lift_fresh",
                              "select_backward", "slice_backward", "diagonal_backward",
                              "conv_tbc_backward", "fake_quantize_per_tensor_affine_cachemask",
                              "fake_quantize_per_tensor_affine_cachemask_backward",
                              "copy", "_masked_softmax_backward"})  # fmt: skip
TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")
# The deprecated Python signatures of tools/autograd/deprecated.yaml for the operators
# ember has: each lists its Python arguments in order; a schema argument it leaves
# out gets the constant named in the second item. They join every Python name of
# the operator (function, method, in-place method; the function with its out=),
# are tried last, warn once, and are left out of the error messages.
DEPRECATED = {
    "add": [("Tensor self, Scalar alpha, Tensor other", {})],
    "sub": [("Tensor self, Scalar alpha, Tensor other", {})],
    "addmm": [
        ("Scalar beta, Tensor self, Scalar alpha, Tensor mat1, Tensor mat2", {}),
        ("Scalar beta, Tensor self, Tensor mat1, Tensor mat2", {"alpha": "1"}),
    ],
    "addcmul": [("Tensor self, Scalar value, Tensor tensor1, Tensor tensor2", {})],
    "addcdiv": [("Tensor self, Scalar value, Tensor tensor1, Tensor tensor2", {})],
    "addmv": [
        ("Scalar beta, Tensor self, Scalar alpha, Tensor mat, Tensor vec", {}),
        ("Scalar beta, Tensor self, Tensor mat, Tensor vec", {"alpha": "1"}),
    ],
    "addbmm": [
        ("Scalar beta, Tensor self, Scalar alpha, Tensor batch1, Tensor batch2", {}),
        ("Scalar beta, Tensor self, Tensor batch1, Tensor batch2", {"alpha": "1"}),
    ],
    "baddbmm": [
        ("Scalar beta, Tensor self, Scalar alpha, Tensor batch1, Tensor batch2", {}),
        ("Scalar beta, Tensor self, Tensor batch1, Tensor batch2", {"alpha": "1"}),
    ],
    "addr": [
        ("Scalar beta, Tensor self, Scalar alpha, Tensor vec1, Tensor vec2", {}),
        ("Scalar beta, Tensor self, Tensor vec1, Tensor vec2", {"alpha": "1"}),
    ],
}


@dataclasses.dataclass(frozen=True)
class PythonArgument:
    name: str  # the Python name (`input` for a function's self)
    schema_name: str | None  # the schema argument it feeds (None: requires_grad; "out": out=)
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
    deprecated: bool = False
    constants: tuple[tuple[str, str], ...] = ()  # schema arguments a deprecated one fixes

    def declaration(self) -> str:
        positional = [a.declaration() for a in self.arguments if not a.kwarg_only]
        keyword = [a.declaration() for a in self.arguments if a.kwarg_only]
        parts = positional + (["*", *keyword] if keyword else [])
        suffix = "|deprecated" if self.deprecated else ""
        return f"{self.name}({', '.join(parts)}){suffix}"

    def input_types(self) -> tuple[str, ...]:
        """The types torchgen's partial order compares (every argument but out=)."""
        return tuple(a.type for a in self.arguments if a.schema_name != "out")


def yaml_type(arg) -> str:
    """The type as native_functions.yaml spells it, without alias annotations: `int[1]?`."""
    declaration = str(arg).split("=", 1)[0].rsplit(" ", 1)[0]
    return re.sub(r"\([^)]*\)", "", declaration)


def _python_default(arg, yaml_text=None) -> str | None:
    if not arg.has_default_value():
        return None
    if yaml_text is not None:
        return yaml_text
    text = str(arg).split("=", 1)[1] if "=" in str(arg) else None
    if arg.name == "pin_memory":
        return "False"
    if yaml_type(arg).startswith(("ScalarType", "Layout", "MemoryFormat")):
        return "None"  # Python callers leave enum options unset; the kernel applies the default
    if text == "[]":
        return "None"  # torchgen's default_expr: `{}`, printed (and accepted) as None
    if text is not None and text.startswith("[") and re.search(r"\[\d+\]", yaml_type(arg)):
        # `SymInt[2] stride=1` in the yaml: the schema prints [1, 1], the signature 1
        items = [item.strip() for item in text[1:-1].split(",")]
        if len(set(items)) == 1:
            return items[0]
        return "[" + ",".join(items) + "]"
    return text


def _out_type(out_args) -> str:
    if len(out_args) == 1:
        # PythonOutArgument.from_outputs: one out= argument keeps its type (TensorList)
        return "Tensor[]?" if out_args[0].type.is_tensor_like()[1] else "Tensor?"
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
        # PythonOutArgument.from_outputs: one output keeps its schema name (`grad_input`)
        out_name = outs[0].name if len(outs) == 1 else "out"
        out_arg = PythonArgument(out_name, "out", _out_type(outs), "None", True)
    options = []  # a factory's TensorOptions: after every other argument and out=, as torchgen
    for arg in schema_args:
        if method and arg.name == "self":
            continue
        # torchgen's argument_str renames only a Tensor `self` (`pow(Number self, ...)`)
        name = "input" if arg.name == "self" and yaml_type(arg) == "Tensor" else arg.name
        default = _python_default(arg, dict(f.float_defaults).get(arg.name))
        argument = PythonArgument(name, arg.name, yaml_type(arg), default, arg.kwarg_only)
        (options if is_factory and arg.name in TENSOR_OPTIONS else arguments).append(argument)
    if out_arg is not None:
        arguments.append(out_arg)
    arguments += options
    if is_factory:  # torchgen types it bool? (None is False), unlike torch.tensor's
        arguments.append(PythonArgument("requires_grad", None, "bool?", "False", True))
    name = f.base_name
    return PythonSignature(name, method, f, out, tuple(arguments))


def deprecated_signatures(name: str, sigs: list[PythonSignature]) -> list[PythonSignature]:
    """The deprecated overloads of Python name ``name`` (``add``, ``add_``, ``addmm``...)."""
    templates = DEPRECATED.get(name.removesuffix("_"), [])
    result = []
    for text, constants in templates:
        wanted = [part.rsplit(" ", 1) for part in text.split(", ")]
        names = {arg_name for _, arg_name in wanted} | set(constants)
        for sig in sigs:
            schema = {a.name: a for a in sig.function.func.arguments if not a.is_out}
            if (
                names <= set(schema)
                and {n for n in schema if not schema[n].has_default_value()} <= names
            ):
                break
        else:
            continue
        method = sig.method
        arguments = [
            PythonArgument(
                "input" if arg_name == "self" else arg_name, arg_name, type_, None, False
            )
            for type_, arg_name in wanted
            if not (method and arg_name == "self")
        ]
        if sig.out is not None:
            out = next(a for a in sig.arguments if a.schema_name == "out")
            arguments.append(out)
        deprecated = dataclasses.replace(
            sig, arguments=tuple(arguments), deprecated=True, constants=tuple(constants.items())
        )
        result.append(deprecated)
    return result


def _core_signature(f: NativeFunction) -> list[tuple[str, str]]:
    """FunctionSchema.signature() of torchgen, as far as pairing needs it: the arguments
    without out= and without the TensorOptions group (dtype, layout, device, pin_memory
    together: out= variants of factories have none); a lone `dtype` stays."""
    names = {a.name for a in f.func.arguments}
    options = set(TENSOR_OPTIONS) if set(TENSOR_OPTIONS) <= names else set()
    return [
        (a.name, yaml_type(a)) for a in f.func.arguments if not a.is_out and a.name not in options
    ]


def _out_twin(f: NativeFunction, outs: list[NativeFunction]) -> NativeFunction | None:
    """The out= overload bound with `f` in Python; torchgen leaves out those it generates
    (`autogen:`) except for view_copy operators (as_strided_scatter has no out=)."""
    inputs = _core_signature(f)
    for candidate in outs:
        if candidate.base_name == f.base_name and _core_signature(candidate) == inputs:
            if candidate.name in f.autogen and "view_copy" not in f.tags:
                return None
            return candidate
    return None


# -- the order torchgen gives a Python name's overloads ------------------------------
# gen_python_functions.sort_overloads: sorted by torchgen's signature string (its C++-ish
# type names: `IntArrayRef[1]? dim`, `int64_t`, `double`), then a topological sort of the
# partial order "a Scalar is tried after a Tensor, an int list after an int...". The
# order decides which overload a call binds to and the order of the error message.

_ARGUMENT_TYPES = {"int": "int64_t", "float": "double", "str": "c10::string_view"}
_LIST_TYPES = {"int": "IntArrayRef", "SymInt": "SymIntArrayRef", "Tensor": "TensorList"}
_LIST_TYPES["Scalar"] = "ScalarList"
_JIT_TO_CPP_DEFAULT = {"False": "false", "True": "true", "[]": "{}", "Mean": "at::Reduction::Mean"}
_JIT_TO_CPP_DEFAULT |= {"contiguous_format": "c10::MemoryFormat::Contiguous", "long": "at::kLong"}


def _torchgen_type(text: str) -> str:
    """torchgen's argument_type_str of a yaml type (`int[1]?` -> `IntArrayRef[1]?`)."""
    if text == "Tensor?[]":
        return "c10::List<::std::optional<Tensor>>"
    if text.endswith("?"):
        return _torchgen_type(text[:-1]) + "?"
    if text.endswith("]"):
        elem, _, size = text[:-1].partition("[")
        if elem == "bool":
            return f"::std::array<bool,{size}>"
        if elem in _LIST_TYPES:
            return _LIST_TYPES[elem] + (f"[{size}]" if size else "")
        return f"ArrayRef<{_torchgen_type(elem)}>"
    return _ARGUMENT_TYPES.get(text, text)


def _torchgen_default(default: str, type_text: str) -> str:
    """pythonify_default(cpp.default_expr(...)) as argument_str prints it."""
    if default == "None":
        return "None"
    if type_text.endswith("[]") or "[" in type_text and default.startswith("["):
        default = "{" + default[1:-1] + "}" if default.startswith("[") else default
    default = _JIT_TO_CPP_DEFAULT.get(default, default)
    if default == "{}":
        return "None"
    if default in ("true", "false"):
        return default.title()
    for convert in (int, float):
        try:
            return str(convert(default))
        except ValueError:
            pass
    return default


def torchgen_signature_str(sig: PythonSignature) -> str:
    """PythonSignature.signature_str of torchgen: the key overloads are sorted by."""
    formals, positional = [], 0
    for arg in sig.arguments:
        type_text = _torchgen_type(arg.type)
        if arg.schema_name == "out" and arg.type.startswith("Tensor["):
            type_text = "TensorList" + arg.type[len("Tensor") : arg.type.index("]") + 1]
        elif arg.schema_name == "out":
            type_text = "Tensor"
        text = f"{type_text} {arg.name}"
        if arg.default is not None:
            text += "=" + _torchgen_default(arg.default, arg.type)
        formals.append(text)
        positional += not arg.kwarg_only
    if len(formals) > positional:
        formals.insert(positional, "*")
    suffix = "|deprecated" if sig.deprecated else ""
    return f"{sig.name}({', '.join(formals)}){suffix}"


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
    """gen_python_functions.sort_overloads: a more general overload never shadows a
    more specific one; otherwise torchgen's signature-string order."""
    ordered = sorted(signatures, key=torchgen_signature_str)
    larger_than: dict[int, set[int]] = {}
    for i, first in enumerate(ordered):
        for j, second in enumerate(ordered):
            if _is_smaller(first, second):
                larger_than.setdefault(i, set()).add(j)
    if not larger_than:
        return ordered
    sorted_ids = [i for i in range(len(ordered)) if i not in larger_than]
    for position in range(len(ordered)):
        done = sorted_ids[position]
        for j in sorted(larger_than):
            larger_than[j].discard(done)
            if not larger_than[j]:
                del larger_than[j]
                sorted_ids.append(j)
    return [ordered[i] for i in sorted_ids]


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
        if f.base_name in SKIP_PYTHON_NAMES:
            continue
        if f.python_module is not None and not method:
            continue
        if f.base_name in HIDDEN_FUNCTIONS or (not method and f.base_name.startswith("__")):
            continue  # torch/__init__.py exports no dunder name of _VariableFunctions
        if method and not any(a.name == "self" for a in f.func.arguments):
            continue
        twin = None if method else _out_twin(f, outs)
        grouped.setdefault(f.base_name, []).append(python_signature(f, twin, method=method))
    return {
        name: sort_overloads(sigs) + sort_overloads(deprecated_signatures(name, sigs))
        for name, sigs in sorted(grouped.items())
    }


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
