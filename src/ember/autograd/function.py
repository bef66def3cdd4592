"""ember.autograd.Function: user-defined forward and backward.

Layer: autograd. In: a Function subclass (forward(ctx, ...) or forward(...) +
setup_context, backward(ctx, ...)). Out: outputs whose grad_fn is the ctx
itself, a node of class `<Name>Backward`. Mirrors torch/autograd/function.py
and torch/csrc/autograd/python_function.cpp (THPFunction_apply,
process_outputs, mark_dirty / mark_non_differentiable handling).
"""

from __future__ import annotations

import functools

from ember._c10.thread_state import per_thread
from ember.aten._generated.python_functions import zeros

from .graph import Node, collect_next_edges
from .saved_variable import SavedVariable
from .variable_type import rebase_history


class FunctionCtx:
    """What forward / setup_context may call on ctx."""

    def save_for_backward(self, *tensors) -> None:
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args) -> None:
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node (and ctx) of one Function.apply call."""

    _forward_cls = None

    def __init__(self) -> None:
        super().__init__()
        self.to_save = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._saved = None
        self._input_positions: list[int] = []
        self._n_args = 0

    @property
    def saved_tensors(self) -> tuple:
        if self._saved is None:
            return tuple(self.to_save)
        return tuple(s.unpack(self) if s is not None else None for s in self._saved)

    saved_variables = saved_tensors

    def apply(self, grads: list):
        if self.materialize_grads:
            grads = [
                g if g is not None else zeros(m.shape, dtype=m.dtype, device=m.device)
                for g, m in zip(grads, self._input_metadata)
            ]
        result = self._forward_cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        expected = self._n_args
        if len(result) != expected:
            extra = result[expected:]
            if len(result) < expected or any(g is not None for g in extra):
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {expected}, got {len(result)})"
                )
        return [result[i] for i in self._input_positions]

    def release_variables(self) -> None:
        if self._saved is not None:
            for saved in self._saved:
                if saved is not None:
                    saved.release()
        self._released = True


class FunctionMeta(type):
    """Gives every Function subclass its node class, `<Name>Backward`."""

    def __init__(cls, name, bases, attrs) -> None:
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Subclass with static forward / backward (and optionally setup_context); call apply."""

    def __init__(self, *args, **kwargs) -> None:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        from ember._tensor import Tensor

        from .grad_mode import no_grad

        ctx = cls._backward_cls()
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx._input_positions = positions
        ctx._n_args = len(args)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        tensors = [args[i] for i in positions]
        requires = per_thread.state.grad_mode and any(t.requires_grad for t in tensors)
        uses_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if uses_setup:
                outputs = cls.forward(*args, **kwargs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        if uses_setup:
            cls.setup_context(ctx, args, outputs)
        if not requires:
            return outputs
        ctx.set_next_edges(collect_next_edges(*tensors))
        return _process_outputs(ctx, tensors, outputs)


def _process_outputs(ctx, inputs, outputs):
    from ember._tensor import Tensor

    single = not isinstance(outputs, tuple)
    items = [outputs] if single else list(outputs)
    dirty = {id(t) for t in ctx.dirty_tensors}
    non_diff = {id(t) for t in ctx.non_differentiable}
    input_ids = {id(t) for t in inputs}
    for index, out in enumerate(items):
        if not isinstance(out, Tensor):
            continue
        if id(out) in dirty:
            if out._requires_grad and out._grad_fn is None:
                raise RuntimeError(
                    "a leaf Variable that requires grad has been used in an in-place operation."
                )
            out.version_counter().bump()  # as _wrap_outputs does for dirty tensors
            rebase_history(out, ctx)
            ctx._input_metadata[-1:] = []
            out._output_nr = ctx.add_input_metadata(out)
            continue
        if id(out) in input_ids:
            from .grad_mode import no_grad

            with no_grad():
                out = out.view_as(out)
            items[index] = out
        nr = ctx.add_input_metadata(out)
        differentiable = out.dtype.is_floating_point or out.dtype.is_complex
        if id(outputs if single else out) in non_diff or not differentiable:
            out._requires_grad = False
            continue
        out._grad_fn = ctx
        out._output_nr = nr
        out._requires_grad = True
    output_ids = {id(t) for t in items if isinstance(t, Tensor)}
    ctx._saved = [
        SavedVariable(t, is_output=id(t) in output_ids) if t is not None else None
        for t in ctx.to_save
    ]
    ctx.to_save = ()
    return items[0] if single else tuple(items)


def once_differentiable(fn):
    """Run backward with grad mode off: its outputs are not differentiable further."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from .grad_mode import no_grad

        with no_grad():
            return fn(ctx, *args)

    return wrapper
