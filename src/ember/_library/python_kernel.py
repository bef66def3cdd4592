"""The Python-kernel adapter: user kernels and fallbacks in ember's calling convention.

Layer: top (imports _c10, _dispatch, _ops, _tensor; used by ember.library).
Mirrors PythonKernelHolder (torch/csrc/utils/python_dispatch.cpp). In: a user
kernel ``fn(*args, **kwargs)`` or fallback ``fn(op, *args, **kwargs)``. Out: a
KernelFunction (or boxed fallback) that takes the full argument list (Note
[Dispatcher calling convention], docs/architecture.md), hands the user PyTorch's
Python-kernel arguments (facts §8.6) and checks what comes back against the
schema's returns (Note [Results of Python kernels]).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ember import _ops
from ember._c10.tensor_impl import TensorImpl
from ember._dispatch.dispatcher import SPECIALIZE, dispatcher
from ember._dispatch.kernel import KernelFunction
from ember._dispatch.python_returns import returns_converter, returns_one_tensor
from ember._tensor import Tensor

__all__ = ["python_kernel", "python_fallback"]


def _has_wrapped_number(values) -> bool:
    """Some value is a wrapped number (boxing to Python turns it back into the number)."""
    for value in values:
        if isinstance(value, TensorImpl):  # every tensor has the slot: no getattr needed
            if value._is_wrapped_number:
                return True
        elif getattr(value, "_is_wrapped_number", False):
            return True
    return False


def python_kernel(qualname: str, fn: Callable, with_keyset: bool) -> KernelFunction:
    """Adapt a user kernel to ember's full-argument convention (facts §8.6).

    Once the operator's schema is known to be plain (no defaults, keyword-only
    arguments or varargs: ``BindPlan.is_plain``), Python kernel arguments are
    the full list itself, so a call whose arguments hold no wrapped number
    passes them straight through; every other call goes through ``to_python``.
    For a plain schema the dispatcher caches a fixed-arity copy of that
    pass-through instead (``specialize``, Note [Kernels specialised per operator]).
    What the kernel returns is checked against the schema's returns (Note
    [Results of Python kernels]); a plain Tensor result of a one-Tensor schema
    passes with one class test.
    """
    entry = None  # the operator's entry, looked up once (it lives as long as this kernel)
    plain = None  # the entry's schema, once known to be plain
    checked = None  # the schema whose returns ``check`` converts
    check = _unchecked

    def to_python(full_args: tuple) -> tuple[tuple, dict]:
        nonlocal entry, plain
        if entry is None:
            handle = dispatcher.find_op(qualname)
            if handle is None:
                return full_args, {}
            entry = handle.entry
        schema = entry.schema
        if schema is None:
            return full_args, {}
        if schema is plain:  # nothing to drop or move to kwargs: args as they are
            args, kwargs = full_args, {}
        else:
            args, kwargs = schema.python_kernel_args(list(full_args))
            if schema._plan.is_plain():
                plain = schema
        if _has_wrapped_number(args):
            return tuple(_ops.unwrap_number(a) for a in args), kwargs
        return args, kwargs

    def result_of(result):
        """The result as PyTorch pushes it (Note [Results of Python kernels])."""
        nonlocal checked, check
        schema = entry.schema if entry is not None else None
        if schema is not checked:
            check = _unchecked if schema is None else returns_converter(schema, _KERNEL_HOLDER)
            checked = schema
        return check(result)

    if with_keyset:

        def kernel(keyset, *full_args):
            if plain is not None and entry.schema is plain and not _has_wrapped_number(full_args):
                return result_of(fn(keyset, *full_args))
            args, kwargs = to_python(full_args)
            return result_of(fn(keyset, *args, **kwargs))

        return KernelFunction(kernel, keyset_arg="set", name=getattr(fn, "__qualname__", ""))

    def kernel(*full_args):
        if plain is not None and entry.schema is plain and not _has_wrapped_number(full_args):
            return result_of(fn(*full_args))
        args, kwargs = to_python(full_args)
        return result_of(fn(*args, **kwargs))

    def specialize(handle, arity: int):
        """For a plain schema: this adapter with ``arity`` named parameters and no ``*args``."""
        schema = handle.entry.schema
        if schema is None or not schema._plan.is_plain() or not 0 < arity <= 16:
            return None
        exact = Tensor if returns_one_tensor(schema) else _NoResultPasses
        convert = returns_converter(schema, _KERNEL_HOLDER)
        make = _plain_adapter_factory(arity)
        return make(fn, kernel, handle.entry, schema, TensorImpl, exact, convert), None

    setattr(kernel, SPECIALIZE, specialize)  # Note [Kernels specialised per operator]
    return KernelFunction(kernel, name=getattr(fn, "__qualname__", ""))


_KERNEL_HOLDER = "PythonKernelHolder"


def _unchecked(result):
    return result


class _NoResultPasses:
    """No result's class: with it the adapter converts every result."""


_PLAIN_ADAPTER_SOURCE = """
def make(fn, generic, entry, schema, T, exact, convert):
    def kernel({params}):
        if entry.schema is schema and not ({wrapped}):
            result = fn({params})
            if result.__class__ is exact:
                return result
            return convert(result)
        return generic({params})

    return kernel
"""


@functools.cache
def _plain_adapter_factory(arity: int):
    """The Python-kernel adapter of a plain schema of ``arity`` arguments, as source."""
    names = [f"a{i}" for i in range(arity)]
    wrapped = [f"({a}._is_wrapped_number if isinstance({a}, T) "
               f"else getattr({a}, '_is_wrapped_number', False))" for a in names]  # fmt: skip
    source = _PLAIN_ADAPTER_SOURCE.format(params=", ".join(names), wrapped=" or ".join(wrapped))
    namespace: dict = {}
    exec(source, namespace)
    return namespace["make"]


def python_fallback(fn: Callable, with_keyset: bool) -> Callable:
    """Adapt a user fallback ``fn(op, *args, **kwargs)`` to the boxed convention."""

    def fallback(handle, keyset, *full_args):
        op = _ops.overload_for_handle(handle)
        schema = handle.schema
        args, kwargs = schema.python_kernel_args(list(full_args))
        args = tuple(_ops.unwrap_number(value) for value in args)
        if with_keyset:
            result = fn(keyset, op, *args, **kwargs)
        else:
            result = fn(op, *args, **kwargs)
        return returns_converter(schema, _KERNEL_HOLDER)(result)

    return fallback
