"""The autograd kernel that register_autograd / custom_op install at the Autograd alias.

Layer: top (custom-op layer; imports _C, autograd). Mirrors torch/_library/autograd.py
(facts §6.4). In: an OpOverload and an ``Info`` holding the user's backward and
setup_context. Out: the kernel, registered at the Autograd alias (PyTorch
registers ``autograd_impl(keyset, *args, **kwonly)`` with ``with_keyset=True``;
ember's takes the raw key bits and the full argument list). With grad on and an input requiring grad it runs a
generated ``autograd.Function`` named ``GeneratedBackwardFor_<ns>_<op>_<overload>``
(so grad_fn is ``...Backward``); its forward redispatches below autograd under
``_AutoDispatchBelowAutograd``. Otherwise the same redispatch, no node.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ember import _C
from ember._c10.dispatch_key_set import autograd_dispatch_keyset
from ember._c10.thread_state import per_thread
from ember.autograd.function import Function

__all__ = ["Info", "make_autograd_impl", "fill_defaults", "is_out", "is_functional_schema"]


@dataclasses.dataclass
class Info:
    """What the autograd kernel reads at call time (a CustomOpDef fills the same slots)."""

    _backward_fn: Callable | None
    _setup_context_fn: Callable | None


@dataclasses.dataclass
class _Metadata:
    keyset: _C.DispatchKeySet
    keyword_only_args: dict


_AUTOGRAD_BITS = autograd_dispatch_keyset.raw_repr()


def _requires_grad(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_requires_grad(item) for item in value)
    return bool(getattr(value, "_requires_grad", False))


def any_requires_grad(*args, **kwargs) -> bool:
    """torch._C._any_requires_grad: some tensor (or tensor in a list) requires grad."""
    return _requires_grad(args) or _requires_grad(tuple(kwargs.values()))


def is_out(op) -> bool:
    """An op with out semantics: tagged ``out`` (torch._library.utils.is_out)."""
    return "out" in op.tags


def is_functional_schema(schema) -> bool:
    """No mutated input, no returned alias of an input, at least one return."""
    if schema.is_mutable or not schema.returns:
        return False
    return all(ret.alias_info is None for ret in schema.returns)


def fill_defaults(schema, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Positional and keyword-only arguments with every default filled in."""
    new_args = []
    new_kwargs = {}
    for index, argument in enumerate(schema.arguments):
        if argument.kwarg_only:
            if argument.name in kwargs:
                new_kwargs[argument.name] = kwargs[argument.name]
            elif argument.has_default_value():
                new_kwargs[argument.name] = argument.default_value
        elif index < len(args):
            new_args.append(args[index])
        else:
            new_args.append(argument.default_value)
    return tuple(new_args), new_kwargs


def make_autograd_impl(op, info) -> Callable:
    """The §6.4 kernel for ``op``; ``info`` is read on every call, so later registrations apply.

    The kernel uses ember's raw convention, ``kernel(bits, *full_args)`` (Note
    [Dispatcher calling convention]), so the common no-grad call redispatches
    without converting arguments; the user's setup_context / backward see
    PyTorch's Python arguments.
    """
    schema = op._schema
    opname = schema.name.split("::", 1)[1]
    name = f"GeneratedBackwardFor_{op.namespace}_{opname}_{op._overloadname}"
    has_kwarg_only_args = any(argument.kwarg_only for argument in schema.arguments)
    # Positional tensor (or tensor list) arguments: the ones `_any_requires_grad(*args)` sees.
    grad_positions = [
        i for i, _ in schema.dispatch_arguments() if not schema.arguments[i].kwarg_only
    ]
    op_is_out = is_out(op)
    after_autograd = _C._after_autograd_keyset
    after_bits = after_autograd.raw_repr()
    handle = op._op

    def forward(ctx, *args):
        metadata = args[-1]
        args = args[:-1]
        with _C._AutoDispatchBelowAutograd():
            kwargs = metadata.keyword_only_args
            result = op.redispatch(metadata.keyset & after_autograd, *args, **kwargs)
            if info._setup_context_fn:
                args, kwargs = fill_defaults(schema, args, kwargs)
                if has_kwarg_only_args:
                    info._setup_context_fn(
                        ctx=ctx, inputs=args, keyword_only_inputs=kwargs, output=result
                    )
                else:
                    info._setup_context_fn(ctx=ctx, inputs=args, output=result)
            return result

    def backward(ctx, *grads):
        if info._backward_fn:
            previous = ctx.needs_input_grad
            try:
                ctx.needs_input_grad = previous[:-1]
                result = info._backward_fn(ctx, *grads)
            finally:
                ctx.needs_input_grad = previous
            if isinstance(result, tuple):
                return (*result, None)
            return result, None
        raise RuntimeError(
            f"Trying to backward through {op} but no autograd formula was registered. "
            "Please use register_autograd to add one."
        )

    generated = type(
        name,
        (Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(backward)},
    )

    def forward_no_grad(bits: int, full_args: tuple):
        ts = per_thread.state
        saved = ts.excluded
        ts.excluded = saved | _AUTOGRAD_BITS  # _AutoDispatchBelowAutograd
        try:
            return handle.redispatch(bits & after_bits, *full_args)
        finally:
            ts.excluded = saved

    def autograd_kernel(bits: int, *full_args):
        grad_mode = per_thread.state.grad_mode
        if op_is_out:
            if grad_mode and _requires_grad(full_args):
                raise RuntimeError(
                    f"{opname}(): functions with out=... arguments don't support automatic "
                    "differentiation, but one of the arguments requires grad."
                )
            return forward_no_grad(bits, full_args)
        if grad_mode and any(_requires_grad(full_args[i]) for i in grad_positions):
            args, kwargs = schema.python_kernel_args(list(full_args))
            keyset = _C.DispatchKeySet.from_raw(bits)
            return generated.apply(*args, _Metadata(keyset, kwargs))
        return forward_no_grad(bits, full_args)

    autograd_kernel.__qualname__ = f"autograd_impl_{name}"
    return autograd_kernel
