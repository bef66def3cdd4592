"""infer_schema: a nameless operator schema from a Python function's type hints.

Layer: top (custom-op layer; imports ember's Tensor, dtype, device). Mirrors
torch/_library/infer_schema.py (facts §9.5). In: a function with annotations,
``mutates_args``. Out: a schema string such as ``(Tensor(a0!) x, SymInt n=3) -> Tensor``:
``int`` becomes SymInt, mutated tensors get the alias set ``a<index>!``,
a dtype default prints as its name (the parser turns it into a number).
"""

from __future__ import annotations

import collections.abc
import inspect
import typing
from types import GenericAlias

from ember._c10.device import device
from ember._c10.dtypes import dtype
from ember._tensor import Tensor

__all__ = ["infer_schema", "SUPPORTED_PARAM_TYPES", "SUPPORTED_RETURN_TYPES"]

UNKNOWN_MUTATES = "unknown"
Number = int | float | bool  # torch.types.Number (a types.UnionType: printed `int | float | bool`)


def _sequence_types(element) -> tuple:
    return (
        typing.Sequence[element],
        typing.List[element],  # noqa: UP006 (both spellings are accepted)
        GenericAlias(collections.abc.Sequence, (element,)),
        GenericAlias(list, (element,)),
    )


def _derived_types(base, schema_type: str, list_base, optional_base_list, optional_list_base):
    """``T``, ``Optional[T]`` and, as flagged, ``T[]``, ``T?[]``, ``T[]?`` spellings."""
    result = [(base, schema_type), (typing.Optional[base], f"{schema_type}?")]  # noqa: UP045
    if list_base:
        result += [(seq, f"{schema_type}[]") for seq in _sequence_types(base)]
    if optional_base_list:
        result += [(seq, f"{schema_type}?[]") for seq in _sequence_types(typing.Optional[base])]  # noqa: UP045
    if optional_list_base:
        result += [(typing.Optional[seq], f"{schema_type}[]?") for seq in _sequence_types(base)]  # noqa: UP045
    return result


# (Python type, schema type, T[] variant, T?[] variant, T[]? variant)
_PARAM_TABLE = [
    (Tensor, "Tensor", True, True, False),
    (int, "SymInt", True, False, True),
    (float, "float", True, False, True),
    (bool, "bool", True, False, True),
    (str, "str", False, False, False),
    (Number, "Scalar", True, False, False),
    (dtype, "ScalarType", False, False, False),
    (device, "Device", False, False, False),
]
SUPPORTED_PARAM_TYPES = dict(pair for line in _PARAM_TABLE for pair in _derived_types(*line))
SUPPORTED_RETURN_TYPES = {
    Tensor: "Tensor",
    typing.List[Tensor]: "Tensor[]",  # noqa: UP006
    list[Tensor]: "Tensor[]",
    int: "SymInt",
    float: "float",
    bool: "bool",
    Number: "Scalar",
}


def _default_repr(default, error_fn, name: str) -> str:
    if default is None or isinstance(default, (int, float, bool)):
        return str(default)
    if isinstance(default, (str, device)):
        return f'"{default}"'
    if isinstance(default, dtype):
        return str(default).rsplit(".", 1)[-1]
    error_fn(
        f"Parameter {name} has an unsupported default value type {type(default)}. "
        "Please file an issue on GitHub so we can prioritize this."
    )
    raise AssertionError("unreachable")


def _resolve(annotation, fn_globals, error_fn):
    """Evaluate a string annotation (``from __future__ import annotations``)."""
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, fn_globals)  # noqa: S307 (as PyTorch does)
    except Exception as error:  # noqa: BLE001
        error_fn(
            f"Unsupported type annotation {annotation}. It is not a type. "
            f"({type(error).__name__}: {error})"
        )
        raise AssertionError("unreachable") from None


def parse_return(annotation, error_fn) -> str:
    if annotation is None:
        return "()"
    if annotation is inspect.Parameter.empty:
        error_fn("No return type annotation was provided. Please add one.")
    if typing.get_origin(annotation) is not tuple:
        if annotation not in SUPPORTED_RETURN_TYPES:
            error_fn(
                f"Return has unsupported type {annotation}. "
                f"The valid types are: {SUPPORTED_RETURN_TYPES}."
            )
        return SUPPORTED_RETURN_TYPES[annotation]
    elements = typing.get_args(annotation)
    for element in elements:
        if element not in SUPPORTED_RETURN_TYPES:
            error_fn(
                f"Return has unsupported type {annotation}. "
                f"The valid types are: {SUPPORTED_RETURN_TYPES}."
            )
    joined = ", ".join(SUPPORTED_RETURN_TYPES[element] for element in elements)
    if len(elements) == 1:
        joined = f"({joined})"
    return f"({joined})"


def infer_schema(prototype_function, /, *, mutates_args, op_name=None, tags=()) -> str:
    """The schema of ``prototype_function`` from its type hints (torch.library.infer_schema)."""
    fn_globals = prototype_function.__globals__  # first, as torch's (a non-function refused)
    sig = inspect.signature(prototype_function)
    if type(mutates_args) is not str:
        mutates_args = tuple(mutates_args)

    def error_fn(what: str):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    params = []
    seen = set()
    saw_kwarg_only = False
    for index, (name, param) in enumerate(sig.parameters.items()):
        if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if param.kind == param.KEYWORD_ONLY and not saw_kwarg_only:
            params.append("*")
            saw_kwarg_only = True
        if param.annotation is inspect.Parameter.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
        annotation = _resolve(param.annotation, fn_globals, error_fn)
        if annotation not in SUPPORTED_PARAM_TYPES:
            if typing.get_origin(annotation) is tuple:
                error_fn(
                    f"Parameter {name} has unsupported type {param.annotation}. We do not "
                    "support Tuple inputs in schema. As a workaround, please try to use List "
                    f"instead. \n\nThe valid types are: {SUPPORTED_PARAM_TYPES.keys()}."
                )
            error_fn(
                f"Parameter {name} has unsupported type {param.annotation}. "
                f"The valid types are: {SUPPORTED_PARAM_TYPES.keys()}."
            )
        schema_type = SUPPORTED_PARAM_TYPES[annotation]
        if type(mutates_args) is str:
            if mutates_args != UNKNOWN_MUTATES:
                raise ValueError(
                    "mutates_args must either be a sequence of the names of the arguments that "
                    "are mutated or the string 'unknown'. "
                )
            if schema_type.startswith("Tensor"):
                schema_type = f"Tensor(a{index}!){schema_type[len('Tensor') :]}"
        elif name in mutates_args:
            if not schema_type.startswith("Tensor"):
                error_fn(
                    f"Parameter {name} is in mutable_args but only Tensors or collections of "
                    "Tensors can be mutated"
                )
            schema_type = f"Tensor(a{index}!){schema_type[len('Tensor') :]}"
        seen.add(name)
        if param.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
        else:
            params.append(f"{schema_type} {name}={_default_repr(param.default, error_fn, name)}")
    if mutates_args != UNKNOWN_MUTATES:
        not_seen = set(mutates_args) - seen
        if not_seen:
            error_fn(
                f"{not_seen} in mutates_args were not found in the custom op's signature. "
                "mutates_args should contain the names of all args that the custom op mutates, "
                "or just the string 'unknown' if you don't know."
            )
    ret = parse_return(_resolve(sig.return_annotation, fn_globals, error_fn), error_fn)
    if op_name is not None:
        return f"{op_name}({', '.join(params)}) -> {ret}"
    return f"({', '.join(params)}) -> {ret}"
