"""``return_and_correct_aliasing``: a wrapper subclass's results alias as the schema says.

Layer: utils (imports _c10 and utils._mode_utils). Mirrors return_and_correct_aliasing,
get_alias_info and _correct_storage_aliasing of torch/utils/_python_dispatch.py. In: an
OpOverload, its arguments and the result a ``__torch_dispatch__`` computed. Out: the
result, with a view's outputs sharing their input's storage, an ``inplace_view`` op's
metadata change applied to the wrapper itself, and a mutating op returning its mutated
argument, as PyTorch does.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ember._c10.dispatch_key import DispatchKey
from ember._c10.tls import IncludeDispatchKeyGuard
from ember.utils._mode_utils import no_dispatch

__all__ = ["AliasInfo", "SchemaInfo", "get_alias_info", "return_and_correct_aliasing"]


@dataclass
class AliasInfo:
    alias_set: set
    is_write: bool
    name: str | None


@dataclass
class SchemaInfo:
    args: list
    outs: list
    is_inplace_view_op: bool
    outs_write_aliases: list | None
    read_only_alias_match_indexes: list


def _alias_info(argument) -> AliasInfo:
    info = argument.alias_info
    if info is None:
        return AliasInfo(set(), False, argument.name or None)
    aliases = set(info.before)
    for element in info.contained:  # `Tensor(a)[]`: the annotation of the elements
        aliases |= set(element.before)
    return AliasInfo(aliases, info.is_write, argument.name or None)


def _write_alias(info: AliasInfo):
    if not info.alias_set or not info.is_write:
        return None
    if len(info.alias_set) != 1:
        raise AssertionError("Expected alias_set to contain exactly one element")
    return next(iter(info.alias_set))


@functools.cache
def get_alias_info(func) -> SchemaInfo:
    """The alias sets of ``func``'s arguments and returns (cached per overload)."""
    schema = func._schema
    args = [_alias_info(a) for a in schema.arguments]
    outs = [_alias_info(r) for r in schema.returns]
    matches = [
        (i, j)
        for i, arg in enumerate(args)
        for j, out in enumerate(outs)
        if (arg.alias_set & out.alias_set) and not arg.is_write
    ]
    write_aliases = [_write_alias(out) for out in outs]
    found = sum(alias is not None for alias in write_aliases)
    if found == 0:
        write_aliases = None
    elif found != len(write_aliases):
        raise RuntimeError("Unsupported schema: " + str(schema))
    return SchemaInfo(args, outs, "inplace_view" in func.tags, write_aliases, matches)


def _unsafe_set_storage(result, source) -> None:
    """torch._functionalize_unsafe_set: ``result`` takes ``source``'s storage, keeping its
    own sizes, strides and offset."""
    result._storage = source.storage()
    result._array = None


def _correct_storage_aliasing(func, schema_info: SchemaInfo, args, outs) -> None:
    from ember.utils._python_dispatch import is_traceable_wrapper_subclass_type

    for arg_idx, return_idx in schema_info.read_only_alias_match_indexes:
        arg, ret = args[arg_idx], outs[return_idx]
        if type(arg) is not type(ret) and (
            is_traceable_wrapper_subclass_type(type(arg))
            or is_traceable_wrapper_subclass_type(type(ret))
        ):
            for r in ret if isinstance(ret, list) else [ret]:
                if type(arg) is not type(r):
                    raise AssertionError(
                        f"Called {func} with input of type {type(arg)}\n"
                        f"and output of type {type(ret)}. But expected types to match."
                    )
        for r in ret if isinstance(ret, list) else [ret]:
            _unsafe_set_storage(r, arg)


def _arg_from_alias(func, alias, schema_info: SchemaInfo, args, kwargs):
    indices = [i for i, a in enumerate(schema_info.args) if alias in a.alias_set]
    if len(indices) != 1:
        raise AssertionError("Expected exactly one argument index for the given output alias")
    index = indices[0]
    argument = func._schema.arguments[index]
    if index < len(args) and not argument.kwarg_only:
        return args[index]
    return kwargs[argument.name]


def return_and_correct_aliasing(func, args, kwargs, out):
    """``out`` as the schema of ``func`` says it aliases ``args`` (for wrapper subclasses)."""
    schema_info = get_alias_info(func)
    _correct_storage_aliasing(func, schema_info, args, out if isinstance(out, tuple) else (out,))
    if schema_info.is_inplace_view_op:
        mutated = [x for i, x in enumerate(args) if _write_alias(schema_info.args[i]) is not None]
        if len(mutated) != 1:
            raise AssertionError("expected exactly one mutated arg for inplace_view ops")
        # The metadata change runs on the wrapper itself, through the Meta kernel.
        with no_dispatch(), IncludeDispatchKeyGuard(DispatchKey.Meta):
            func(*args, **kwargs)
    aliases = schema_info.outs_write_aliases
    if aliases is None:
        return out
    if len(aliases) == 1:
        return _arg_from_alias(func, aliases[0], schema_info, args, kwargs)
    return type(out)(_arg_from_alias(func, a, schema_info, args, kwargs) for a in aliases)
