"""The Grad interpreter: the layer grad / grad_and_value / vjp / jacrev push.

Layer: _functorch. Mirrors aten/src/ATen/functorch/ADInterpreters.h / .cpp
(autogradBasedTransformProcess / SendToNext). Processing a call at a grad level
(FrontMode): an in-place op whose mutated tensor is not a mutable wrapper of this
level is refused; every tensor not wrapped at this level is wrapped as an
immutable capture; then the call runs with the layer's TLS, in which the autograd
keys and ADInplaceOrView stay reachable (fact A4), so the autograd kernel
records on the wrappers. Below autograd (BackMode) the wrappers of this level are
replaced by their values, the call goes to the layer below, and its tensor
results are wrapped at this level.
"""

from __future__ import annotations

from contextlib import contextmanager

from .._c10.grad_mode import is_grad_enabled, set_grad_enabled
from .._c10.thread_state import per_thread
from .._tensor import Tensor
from .dynamic_layer import next_level, pushed
from .interpreter import AUTOGRAD_LAYER_BITS, Interpreter, TransformType
from .tensor_wrapper import (
    grad_record,
    make_tensor_wrapper,
    map_tensors,
    unwrap_for_grad,
    unwrap_if_dead,
    wrapped_at,
)

_MUTATION = (
    "During a grad (vjp, jvp, grad, etc) transform, the function provided attempted to call "
    "in-place operation ({op}) that would mutate a captured Tensor. This is not supported; "
    "please rewrite the function being transformed to explicitly accept the mutated "
    "Tensor(s) as inputs."
)


_INPLACE: dict = {}  # operator name -> isInplaceOp (schemas do not change once registered)


def _is_inplace(op) -> bool:
    """isInplaceOp: the first argument is written and returned, no other argument is written."""
    found = _INPLACE.get(op.name)
    if found is None:
        schema = op.schema
        args = schema.arguments if schema is not None else ()
        found = bool(args) and args[0].is_write and not args[0].kwarg_only
        found = found and not any(a.is_write for a in args[1:])
        _INPLACE[op.name] = found
    return found


class AutogradInterpreter(Interpreter):
    """What Grad and Jvp share: wrappers at the level, autograd keys kept reachable."""

    layer_keys = AUTOGRAD_LAYER_BITS

    def check_mutation(self, op, args) -> None:
        if not args or not _is_inplace(op):
            return
        target = unwrap_if_dead(args[0])
        record = grad_record(target)
        if record is not None and record.level == self.lvl and not record.immutable:
            return
        raise RuntimeError(_MUTATION.format(op=op.name))

    def materialize(self, tensor):
        """materializeGradWrappers: a tensor not wrapped at this level becomes an immutable
        wrapper of it."""
        if wrapped_at(tensor, self.lvl):
            return tensor
        return make_tensor_wrapper(tensor, self.lvl, self, immutable=True)

    def process(self, op, args):
        self.check_mutation(op, args)
        return op.call(*map_tensors(args, self.materialize))

    def send_to_next(self, op, args):
        level = self.lvl
        result = op.call(*map_tensors(args, lambda t: unwrap_for_grad(t, level)))
        return self.wrap_result(result, args)

    def wrap_result(self, result, args):
        """Step 4 of autogradBasedTransformSendToNext: every tensor result wrapped here."""
        level = self.lvl

        def wrap(t):
            return make_tensor_wrapper(t, level, self) if isinstance(t, Tensor) else t

        if isinstance(result, Tensor):
            return wrap(result)
        if isinstance(result, tuple):
            items = [wrap(t) for t in result]
            return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
        if isinstance(result, list):
            return [wrap(t) for t in result]
        return result


class GradInterpreter(AutogradInterpreter):
    transform = TransformType.Grad

    def __init__(self, level: int, prev_grad_mode: bool) -> None:
        super().__init__(level)
        self.prev_grad_mode = prev_grad_mode

    def __repr__(self) -> str:
        return f"GradInterpreter(level={self.lvl}, prev_grad_mode={self.prev_grad_mode})"

    def send_to_next(self, op, args):
        """GradInterpreterPtr::sendToNextInterpreterImpl: the level below runs in the grad
        mode found when the transform started (under no_grad, nothing below records)."""
        saved = is_grad_enabled()
        set_grad_enabled(self.prev_grad_mode)
        try:
            return super().send_to_next(op, args)
        finally:
            set_grad_enabled(saved)


@contextmanager
def grad_increment_nesting():
    """_grad_increment_nesting / _grad_decrement_nesting: a Grad layer for the body."""
    interpreter = GradInterpreter(next_level(), is_grad_enabled())
    with pushed(interpreter):
        yield interpreter.lvl


class JvpInterpreter(AutogradInterpreter):
    """A jvp level: the forward grad mode found at push is the one the level below runs in."""

    transform = TransformType.Jvp

    def __init__(self, level: int, prev_fwd_grad_mode: bool) -> None:
        super().__init__(level)
        self.prev_fwd_grad_mode = prev_fwd_grad_mode

    def __repr__(self) -> str:
        return f"JvpInterpreter(level={self.lvl}, prev_fwd_grad_mode={self.prev_fwd_grad_mode})"

    def send_to_next(self, op, args):
        state = per_thread.state
        saved = state.fw_grad_mode
        state.fw_grad_mode = self.prev_fwd_grad_mode
        try:
            return super().send_to_next(op, args)
        finally:
            state.fw_grad_mode = saved


@contextmanager
def jvp_increment_nesting():
    """_jvp_increment_nesting / _jvp_decrement_nesting: a Jvp layer for the body."""
    interpreter = JvpInterpreter(next_level(), per_thread.state.fw_grad_mode)
    with pushed(interpreter):
        yield interpreter.lvl
