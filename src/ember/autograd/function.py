"""ember.autograd.Function: user-defined forward and backward.

Layer: autograd. In: a Function subclass (forward(ctx, ...) or forward(...) +
setup_context, backward(ctx, ...)). Out: outputs whose grad_fn is the ctx
itself, a node of class `<Name>Backward`. Mirrors torch/autograd/function.py
and torch/csrc/autograd/python_function.cpp (THPFunction_apply,
process_outputs, mark_dirty / mark_non_differentiable handling).
"""

from __future__ import annotations

import functools
import inspect
import warnings

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import key_bits
from ember._c10.tensor_impl import TensorImpl
from ember._c10.thread_state import per_thread
from ember._tensor import Tensor as _Tensor
from ember.aten._generated.python_functions import zeros
from ember.aten.python_arg_convert import tp_name

from . import grad_mode
from .custom_function import process_outputs, resolve_kwargs_to_positional
from .forward_grad import forward_state
from .function_forward import input_tangents, jvp_outputs
from .graph import Node, _sequence, collect_next_edges

# While a functorch transform is live (its DynamicLayer keys are included), apply asks the
# hook ember._functorch installs here first (torch/_functorch/autograd_function.py's
# custom_function_call); NotImplemented lets the plain apply run.
TRANSFORM_APPLY: list = []
_DYNAMIC_LAYER_BITS = key_bits(DispatchKey.FuncTorchDynamicLayerFrontMode)


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


_new_object = object.__new__
_next = next

_MATERIALIZE_TYPE = (
    "{name} received an invalid combination of arguments - got (), but expected (bool)"
)


class BackwardCFunction(Node, FunctionCtx):
    """The node (and ctx) of one Function.apply call."""

    _forward_cls = None
    # Until set on the node (immutable, so read from the class meanwhile).
    _materialize_grads = True
    _materialize_non_diff_grads = True
    needs_input_grad: tuple = ()
    _saved = None

    def __init__(self) -> None:
        super().__init__()
        self._is_variable_input: list[bool] = []
        self._output_info: list = []

    @classmethod
    def _for_apply(cls, is_variable: list, needs_input_grad: tuple):
        """``cls()`` with the inputs' flags set (what ``__init__`` and Node's leave empty
        are filled at once, one allocation and no frames of their own: apply runs it on
        every call). Node.__init__'s fields must stay in step with it."""
        self = _new_object(cls)
        self._seq = _next(_sequence)
        self._next_edges = ()
        self._input_metadata = []
        self._is_variable_input = is_variable
        self._output_info = []
        self.needs_input_grad = needs_input_grad
        return self

    @property
    def materialize_grads(self) -> bool:
        return self._materialize_grads

    @materialize_grads.setter
    def materialize_grads(self, value) -> None:
        if value is not True and value is not False:
            raise TypeError(_MATERIALIZE_TYPE.format(name="set_materialize_grads"))
        self._materialize_grads = value

    @property
    def materialize_non_diff_grads(self) -> bool:
        return self._materialize_non_diff_grads

    @materialize_non_diff_grads.setter
    def materialize_non_diff_grads(self, value) -> None:
        if value is not True and value is not False:
            raise TypeError(_MATERIALIZE_TYPE.format(name="set_materialize_non_diff_grads"))
        self._materialize_non_diff_grads = value

    @property
    def saved_tensors(self) -> tuple:
        found = self.__dict__
        if "_saved_for_jvp" in found:  # inside jvp: what forward saved for it
            return found["_saved_for_jvp"]
        if self._saved is None:
            return tuple(self.__dict__.get("to_save", ()))
        return tuple(s.unpack(self) if s is not None else None for s in self._saved)

    saved_variables = saved_tensors

    def apply(self, grads: list):
        """PyNode::apply: the user's backward, its results checked against the inputs."""
        if self._materialize_grads:
            grads = [self._materialized(i, g) for i, g in enumerate(grads)]
        result = self._forward_cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        is_variable = self._is_variable_input
        expected = len(is_variable)
        if len(result) > expected and all(g is None for g in result[expected:]):
            result = result[:expected]
        if len(result) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {expected}, got {len(result)})"
            )
        grads = []
        for position, (grad, was_variable) in enumerate(zip(result, is_variable)):
            if not was_variable:
                if grad is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {position + 1}, but the corresponding forward input was not "
                        "a Variable"
                    )
                continue
            if grad is not None and not isinstance(grad, TensorImpl):
                raise RuntimeError(f"expected Variable or None (got {tp_name(grad)})")
            grads.append(grad)
        return grads

    def _materialized(self, index: int, grad):
        """An undefined gradient as zeros shaped like the output (PyNode::to_py_args)."""
        if grad is not None:
            return grad
        metadata = self._input_metadata[index]
        if metadata.was_default_constructed and not self._materialize_non_diff_grads:
            return None
        info = self._output_info[index] if index < len(self._output_info) else None
        if info is None:
            return None
        shape, dtype, device = info
        return zeros(shape, dtype=dtype, device=device)

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
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are "
            "all static, so you should invoke them on the class itself. Instantiating an "
            "autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
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

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        """Function.apply, then THPFunction_apply: forward under no_grad, outputs wrapped."""
        if per_thread.state.included & _DYNAMIC_LAYER_BITS and TRANSFORM_APPLY:
            result = TRANSFORM_APPLY[0](cls, args, kwargs)  # custom_function_call
            if result is not NotImplemented:
                return result
        overridden_setup = cls.setup_context is not _BASE_SETUP_CONTEXT
        if not kwargs and not overridden_setup:
            return _apply_positional(cls, args)
        if overridden_setup:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        inputs = resolve_kwargs_to_positional(cls, args, kwargs, not overridden_setup)
        is_variable = [isinstance(a, TensorImpl) for a in inputs]
        tensors = [a for a, tensor in zip(inputs, is_variable) if tensor]
        ctx = cls._backward_cls()
        ctx._is_variable_input = is_variable
        ctx.needs_input_grad = tuple(
            tensor and a.requires_grad for a, tensor in zip(inputs, is_variable)
        )
        executable = per_thread.state.grad_mode and any(t.requires_grad for t in tensors)
        if executable:
            ctx.set_next_edges(collect_next_edges(*tensors))
        tangents = input_tangents(inputs) if forward_state.active else None
        with grad_mode.no_grad(), _fw_grad_off():
            if overridden_setup:
                output = cls.forward(*inputs)
                cls.setup_context(ctx, inputs, output)
            else:
                output = cls.forward(ctx, *inputs)
        if tangents is None:
            return process_outputs(ctx, tensors, output, executable, overridden_setup)
        marks = dict(ctx.__dict__)
        result = process_outputs(ctx, tensors, output, executable, overridden_setup)
        jvp_outputs(cls, ctx, inputs, tangents, output, result, marks)
        return result


def _apply_positional(cls, inputs: tuple):
    """``apply`` of a forward(ctx, ...) called with positional arguments only: the same
    steps as the general path, in one pass over the inputs (it runs on every call)."""
    is_variable = []
    needs_input_grad = []
    tensors = []
    any_requires = False
    for value in inputs:
        if isinstance(value, TensorImpl):
            is_variable.append(True)
            tensors.append(value)
            if value.__class__ is _Tensor and value._view_info is None:
                requires = value._requires_grad  # the requires_grad property, inline
            else:
                requires = value.requires_grad
            needs_input_grad.append(requires)
            any_requires = any_requires or requires
        else:
            is_variable.append(False)
            needs_input_grad.append(False)
    ctx = cls._backward_cls._for_apply(is_variable, tuple(needs_input_grad))
    ts = per_thread.state
    executable = ts.grad_mode and any_requires
    if executable:
        ctx.set_next_edges(collect_next_edges(*tensors))
    if forward_state.active:  # See Note [Forward grads]
        return _apply_with_tangents(cls, ctx, inputs, tensors, executable)
    previous = ts.grad_mode, ts.fw_grad_mode
    ts.grad_mode = ts.fw_grad_mode = False  # no_grad() and AutoFwGradMode(false), inline
    try:
        output = cls.forward(ctx, *inputs)
    finally:
        ts.grad_mode, ts.fw_grad_mode = previous
    return process_outputs(ctx, tensors, output, executable, False)


class _fw_grad_off:
    """Forward grad mode off while forward runs (THPFunction_apply's AutoFwGradMode)."""

    def __enter__(self) -> None:
        self.prev = per_thread.state.fw_grad_mode
        per_thread.state.fw_grad_mode = False

    def __exit__(self, *exc) -> None:
        per_thread.state.fw_grad_mode = self.prev


def _apply_with_tangents(cls, ctx, inputs, tensors, executable):
    tangents = input_tangents(inputs)
    with grad_mode.no_grad(), _fw_grad_off():
        output = cls.forward(ctx, *inputs)
    if tangents is None:
        return process_outputs(ctx, tensors, output, executable, False)
    marks = dict(ctx.__dict__)
    result = process_outputs(ctx, tensors, output, executable, False)
    jvp_outputs(cls, ctx, inputs, tangents, output, result, marks)
    return result


def once_differentiable(fn):
    """Run backward with grad mode off: its outputs are not differentiable further."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from .grad_mode import no_grad

        with no_grad():
            return fn(ctx, *args)

    return wrapper


_BASE_SETUP_CONTEXT = Function.setup_context
