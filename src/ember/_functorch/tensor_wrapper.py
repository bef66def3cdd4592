"""GradTrackingTensor: a value wrapped at a grad (or jvp) level, with its own autograd meta.

Layer: _functorch. Mirrors aten/src/ATen/functorch/TensorWrapper.h / .cpp and
_wrap_for_grad / _unwrap_for_grad of torch._C._functorch. A wrapper is an
``ember.Tensor`` whose key set is its value's plus FuncTorchGradWrapper (fact
A2), whose sizes and strides are its value's, and whose autograd metadata
(requires_grad, grad_fn, forward grads) belongs to the wrapper: the autograd
kernels that run at the wrapper's level record their graph on wrappers, the
level below sees only the values. A wrapper whose level has exited is dead:
the FuncTorchGradWrapper fallback unwraps dead wrappers and redispatches, so a
graph recorded at a finished level (vjp's vjp_fn) still runs, on the values.
An immutable wrapper stands for a tensor the function captured rather than
received: an in-place operation on it is refused (checkForInvalidMutationOnCaptures).
"""

from __future__ import annotations

from .._c10.dispatch_key import DispatchKey
from .._c10.thread_state import per_thread
from .._dispatch import builtin_fallbacks
from .._dispatch.dispatcher import caller_debug
from .._tensor import Tensor
from .wrappers import WrapperRecord, make_wrapper

_GRAD_WRAPPER_BIT = 1 << 0  # replaced below by the key's own bit


class GradRecord(WrapperRecord):
    """A GradTrackingTensor's value, level, interpreter (alive or not) and mutability."""

    __slots__ = ("interpreter", "immutable")
    kind = "grad"

    def __init__(self, value, level: int, interpreter, immutable: bool) -> None:
        super().__init__(value, level)
        self.interpreter = interpreter
        self.immutable = immutable

    def header(self) -> str:
        return f"GradTrackingTensor(lvl={self.level}"

    def dump(self) -> str:
        from .wrappers import dump_tensor

        return f"Wrapper[lvl={self.level}, {dump_tensor(self.value)}]"

    def is_alive(self) -> bool:
        return self.interpreter.is_alive


def make_tensor_wrapper(value, level: int, interpreter, immutable: bool = False) -> Tensor:
    """makeTensorWrapper: ``value`` wrapped at ``level`` (sizes and strides are the value's)."""
    record = GradRecord(value, level, interpreter, immutable)
    return make_wrapper(value, record, DispatchKey.FuncTorchGradWrapper, value._sizes,
                        value._strides)  # fmt: skip


def grad_record(tensor) -> GradRecord | None:
    record = getattr(tensor, "_functorch", None)
    return record if record.__class__ is GradRecord else None


def wrapped_at(tensor, level: int) -> bool:
    record = getattr(tensor, "_functorch", None)
    return record.__class__ is GradRecord and record.level == level


def unwrap_for_grad(tensor, level: int):
    """_unwrap_for_grad: the value of a wrapper at ``level``; anything else unchanged."""
    record = getattr(tensor, "_functorch", None)
    if record.__class__ is GradRecord and record.level == level:
        return record.value
    return tensor


def unwrap_if_dead(tensor):
    record = getattr(tensor, "_functorch", None)
    while record.__class__ is GradRecord and not record.interpreter.is_alive:
        tensor = record.value
        record = getattr(tensor, "_functorch", None)
    return tensor


def _is_dead(value) -> bool:
    record = getattr(value, "_functorch", None)
    return record.__class__ is GradRecord and not record.interpreter.is_alive


def unwrap_dead_args(args: tuple) -> tuple:
    """The FrontMode fallback's first step (unwrapIfDead on every argument): ``args`` itself
    when no argument is a wrapper of a level that has exited."""
    for a in args:
        if a.__class__ is list or a.__class__ is tuple:
            if any(_is_dead(x) for x in a):
                break
        elif _is_dead(a):
            break
    else:
        return args
    return map_tensors(args, unwrap_if_dead)


def map_tensors(args, fn):
    """``args`` with every tensor (also inside a list / tuple argument) replaced by fn(t)."""
    out = []
    for a in args:
        if isinstance(a, Tensor):
            out.append(fn(a))
        elif isinstance(a, (list, tuple)) and any(isinstance(x, Tensor) for x in a):
            out.append(type(a)(fn(x) if isinstance(x, Tensor) else x for x in a))
        else:
            out.append(a)
    return tuple(out)


def _unwrap_dead_fallback(op, bits, *args):
    """The FuncTorchGradWrapper fallback: dead wrappers become their values; the call is
    made again (below this key where no argument changed)."""
    new_args = map_tensors(args, unwrap_if_dead)
    if all(a is b for a, b in zip(new_args, args)):
        ts = per_thread.state
        saved = ts.excluded
        ts.excluded = saved | _GRAD_WRAPPER_BIT
        try:
            return op.call(*args)
        finally:
            ts.excluded = saved
    return op.call(*new_args)


def _install() -> None:
    global _GRAD_WRAPPER_BIT
    from .._c10.dispatch_key_set import keys_bits

    _GRAD_WRAPPER_BIT = keys_bits([DispatchKey.FuncTorchGradWrapper])
    builtin_fallbacks.override(
        DispatchKey.FuncTorchGradWrapper,
        _unwrap_dead_fallback,
        caller_debug(0),
        keyset_arg="boxed_raw",
    )


_install()
