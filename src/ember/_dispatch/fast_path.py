"""The generated fast paths of an operator handle: key-set extraction, cache lookup, call.

Layer: _dispatch. Mirrors DispatchKeyExtractor.h (which arguments carry key sets)
and the inlined lookup of Dispatcher.h. In: the dispatch argument positions of
a schema and its arity. Out: a factory for ``call`` / ``redispatch`` closures
over an OperatorHandle's caches. See Note [Dispatch caches] in dispatcher.py.
"""

from __future__ import annotations

import functools
from collections.abc import Callable


def _list_bits(values) -> int:
    bits = 0
    for value in values:
        if value is not None:
            bits |= getattr(value, "_key_bits", 0)
    return bits


def generic_key_bits(args: tuple, positions: tuple) -> int:
    bits = 0
    for index, is_list in positions:
        if index >= len(args):
            continue
        value = args[index]
        if value is None:
            continue
        if is_list:
            bits |= _list_bits(value)
        else:
            bits |= getattr(value, "_key_bits", 0)
    return bits


def _key_bits_expression(positions: tuple, names: list[str]) -> str:
    terms = []
    for index, is_list in positions:
        value = names[index]
        if is_list:
            terms.append(f"_list_bits({value})")
        else:
            terms.append(f"({value}._key_bits if {value} is not None else 0)")
    return " | ".join(terms) or "0"


_FAST_PATH_SOURCE = """
def make(call_cache, redispatch_cache, slow_call, slow_redispatch, per_thread, fm):
    def call({params}):
        try:
            ks = {expression}
        except (IndexError, TypeError, AttributeError):
            ks = _generic({packed}, {positions!r})
        ts = per_thread.state  # this thread's: Note [Thread state per OS thread]
        pre = (ks | ts.included) & ~(ts.excluded & fm)
        try:
            fn, mode, final = call_cache[pre]
        except KeyError:
            fn, mode, final = slow_call(pre)
        if mode is None:
            return fn({params})
        return fn(final, {params})

    def redispatch(bits, {params}):
        try:
            fn, mode, _ = redispatch_cache[bits]
        except KeyError:
            fn, mode, _ = slow_redispatch(bits)
        if mode is None:
            return fn({params})
        return fn(bits, {params})

    return call, redispatch
"""


@functools.cache
def fast_path_factory(positions: tuple, arity: int | None) -> Callable:
    """Generated per (dispatch positions, number of arguments) (DispatchKeyExtractor).

    ``call`` takes exactly the schema's arguments as named parameters (``*args``
    when the arity is unknown) and reads the key bits of the dispatch arguments
    inline; anything unusual (an object without ``_key_bits``) takes the generic
    path. See Note [Dispatch caches].
    """
    if arity is None:
        names, params, packed = [f"args[{i}]" for i in range(64)], "*args", "args"
    else:
        names = [f"a{i}" for i in range(arity)]
        params = ", ".join(names)
        packed = f"({params},)" if names else "()"
    source = (
        _FAST_PATH_SOURCE.format(
            params=params,
            packed=packed,
            expression=_key_bits_expression(positions, names),
            positions=positions,
        )
        .replace("(bits, )", "(bits)")
        .replace("(final, )", "(final)")
    )
    namespace = {"_list_bits": _list_bits, "_generic": generic_key_bits}
    exec(source, namespace)
    return namespace["make"]
