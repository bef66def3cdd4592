"""torch.nn.Parameter and torch.nn.Buffer: the tensors a Module registers by assignment.

Layer: nn (imports _tensor, _torch_function, autograd's grad mode, aten's factories).
In: a tensor. Out: a Parameter aliasing it (same storage and version counter,
``requires_grad=True`` by default, also under no_grad) or, for Buffer, the tensor
itself flagged as a buffer. Mirrors torch/nn/parameter.py: Parameter disables
``__torch_function__``, so an operation on a Parameter returns a plain Tensor, and it
prints as ``Parameter containing:`` above the tensor's own repr.
"""

from __future__ import annotations

from collections import OrderedDict

from ember import _tensor_str
from ember._tensor import Tensor
from ember._tensor_deepcopy import user_state
from ember._torch_function import _disabled_torch_function_impl
from ember.aten._generated import python_functions as _functions
from ember.serialization.torch_names import register_tensor_subclass

__all__ = ["Parameter", "Buffer", "is_lazy"]

# What ember's autograd keeps in a tensor's __dict__ (hooks are not serialised either)
_AUTOGRAD_FIELDS = frozenset({"_post_accumulate_grad_hooks", "_grad_accumulator"})


class _ParameterMeta(type(Tensor)):
    """isinstance(t, Parameter) also holds for a custom tensor flagged ``_is_param``."""

    def __instancecheck__(cls, instance) -> bool:
        if (
            cls is Parameter
            and isinstance(instance, Tensor)
            and getattr(instance, "_is_param", False)
        ):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A tensor that a Module registers as a parameter when assigned as its attribute."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _functions.empty(0)
        if type(data) is Tensor or type(data) is Parameter:
            return Tensor._make_subclass(cls, data, requires_grad)
        # a custom tensor stays its own type, flagged as a parameter
        t = data.detach().requires_grad_(requires_grad)
        if type(t) is not type(data):
            raise RuntimeError(
                f"Creating a Parameter from an instance of type {type(data).__name__} "
                "requires that detach() returns an instance of the same type, but return "
                f"type {type(t).__name__} was found instead. To use the type as a "
                "Parameter, please correct the detach() semantics defined by "
                "its __torch_dispatch__() implementation."
            )
        t._is_param = True
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        # hooks are not serialised (as in PyTorch): they travel as an empty OrderedDict
        state = {k: v for k, v in user_state(self).items() if k not in _AUTOGRAD_FIELDS}
        if not state:
            return (_rebuild_parameter, (self.data, self.requires_grad, OrderedDict()))
        return (
            _rebuild_parameter_with_state,
            (self.data, self.requires_grad, OrderedDict(), state),
        )

    __torch_function__ = _disabled_torch_function_impl


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """torch._utils._rebuild_parameter."""
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """torch._utils._rebuild_parameter_with_state."""
    param = Parameter(data, requires_grad)
    param.__dict__.update(state)
    return param


class _BufferMeta(type(Tensor)):
    """isinstance(t, Buffer) holds for any tensor flagged ``_is_buffer``."""

    def __instancecheck__(cls, instance) -> bool:
        if (
            cls is Buffer
            and isinstance(instance, Tensor)
            and getattr(instance, "_is_buffer", False)
        ):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that a Module registers as a buffer when assigned as its attribute: the
    result is the tensor itself (detached), flagged with ``_is_buffer`` and ``persistent``."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _functions.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    __torch_function__ = _disabled_torch_function_impl


def is_lazy(param) -> bool:
    """Whether ``param`` is an uninitialized (lazy) parameter or buffer: ember has none."""
    return False


# torch/_tensor_str.py prints a Parameter's tensor as ``tensor(...)``, like a plain one
_tensor_str.PLAIN_CLASSES.add(Parameter)


def _parameter_arguments(param) -> tuple:
    return (param.data, param.requires_grad, OrderedDict())


# torch.save writes a Parameter as torch._utils._rebuild_parameter(data, requires_grad, hooks),
# and torch.load (weights_only too) rebuilds it.
register_tensor_subclass(
    Parameter, "torch._utils._rebuild_parameter", _parameter_arguments, _rebuild_parameter
)
