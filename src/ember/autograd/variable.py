"""The autograd face of Tensor: requires_grad, grad_fn, grad, data, hooks, backward.

Layer: autograd. In: the Tensor class (installed once by ember/__init__).
Out: PyTorch's autograd properties and methods on it, with PyTorch's errors.
Mirrors torch/csrc/autograd/python_variable.cpp and torch/_tensor.py
(backward, register_hook, retain_grad). See Note [Autograd metadata on tensors].
"""

from __future__ import annotations

import threading

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import keys_bits
from ember._c10.dtypes import scalar_type_name
from ember._c10.grad_mode import autograd_state
from ember._c10.layout import strided
from ember._c10.tensor_impl import PYTHON_KEY_BITS, TensorImpl
from ember._c10.thread_state import per_thread
from ember._c10.warning import torch_warn
from ember.aten.native import at
from ember.aten.native.common import type_meta_name
from ember.aten.python_arg_parser import PythonArgParser, no_arguments_method

from .api import backward as api_backward
from .graph import grad_accumulator
from .views import grad_fn_of

_NOT_LEAF = "you can only change requires_grad flags of leaf variables."
_NOT_LEAF_HINT = (
    " If you want to use a computed variable in a subgraph that doesn't require "
    "differentiation use var_no_grad = var.detach()."
)
_INFERENCE_REQUIRES = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
)


def _requires_grad(self) -> bool:
    if self._requires_grad:
        return True
    return self._view_info is not None and grad_fn_of(self) is not None


def _set_requires_grad(self, value) -> None:
    """The `requires_grad` setter (THPVariable_set_requires_grad): a bool, on a leaf."""
    if value is not True and value is not False:
        raise RuntimeError("requires_grad must be a bool")
    if grad_fn_of(self) is not None:
        raise RuntimeError(_NOT_LEAF + ("" if value else _NOT_LEAF_HINT))
    if value and not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    _change_requires_grad(self, value)


def _change_requires_grad(self, value: bool) -> None:
    if value:
        dtype = self.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if self._is_inference and not autograd_state.inference_mode:
            raise RuntimeError(_INFERENCE_REQUIRES)
    self._requires_grad = value


_requires_grad_parser = PythonArgParser(["requires_grad_(bool requires_grad=True)"])

_TRANSFORM_BIT = keys_bits([DispatchKey.FuncTorchDynamicLayerFrontMode])  # a layer is live
_IN_TRANSFORM = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using "
    "torch.autograd.functional.* APIs) inside of a function being transformed by a functorch "
    "transform. This is unsupported, please attempt to use the functorch transforms (e.g. grad, "
    "vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function being "
    "transformed instead."
)


class _FunctorchTLS(threading.local):
    """functorch's inplace_requires_grad_allowed: the transforms set it while they make their
    own inputs require grad; user code inside a transform may not call requires_grad_()."""

    inplace_requires_grad_allowed = False


functorch_tls = _FunctorchTLS()


def requires_grad_(self, *args, **kwargs):
    if args or kwargs:
        requires_grad = _requires_grad_parser.parse(args, kwargs, self=self)[1][0]
    else:
        requires_grad = True
    if (
        per_thread.state.included & _TRANSFORM_BIT
        and not functorch_tls.inplace_requires_grad_allowed
    ):
        raise RuntimeError(_IN_TRANSFORM)
    if grad_fn_of(self) is not None:
        if not requires_grad:
            raise RuntimeError(_NOT_LEAF + _NOT_LEAF_HINT)
        return self
    _change_requires_grad(self, requires_grad)
    return self


def _grad_fn(self):
    return grad_fn_of(self)


def _is_leaf(self) -> bool:
    return grad_fn_of(self) is None


_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


def _get_grad(self):
    """TensorBody.h's grad(): reading an unset `.grad` of a non-leaf that does not retain
    its gradient warns (each time), since backward() will never fill it."""
    grad = self._grad
    if grad is None and not self._retains_grad and grad_fn_of(self) is not None:
        torch_warn(_NON_LEAF_GRAD, "build/aten/src/ATen/core/TensorBody.h:493")
    return grad


def _set_grad(self, value) -> None:
    """The `grad` setter, with THPVariable_set_grad's checks in its order. (ember has no
    grad_dtype attribute: a gradient's dtype must be the tensor's, PyTorch's default.)"""
    if value is None:
        self._grad = None
        return
    if not isinstance(value, TensorImpl):
        raise TypeError(
            "assigned grad expected to be a Tensor or None but got grad of type "
            + type(value).__name__
        )
    if value is self:
        raise RuntimeError("can't assign Variable as its own grad")
    if value.dtype is not self.dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{type_meta_name(value.dtype)}' to a "
            f"tensor with grad_dtype '{scalar_type_name(self.dtype)}'. The gradient must match "
            "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
            "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. "
            "Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
            "may break downstream systems that assume they match."
        )
    if value.device.type != self.device.type:
        raise RuntimeError(
            f"attempting to assign a gradient with device type '{value.device.type}' to a "
            f"tensor with device type '{self.device.type}'. Please ensure that the gradient "
            "and the tensor are on the same device"
        )
    if value._sizes != self._sizes:
        raise RuntimeError(
            f"attempting to assign a gradient of size '{list(value._sizes)}' to a tensor of "
            f"size '{list(self._sizes)}'. Please ensure that the gradient and the tensor are "
            "the same size"
        )
    self._grad = value


def _get_data(self):
    """A new tensor sharing storage, detached, with its own version counter (facts §6.2):
    variable_data's shallow_copy_and_detach, made by Python (an aten.detach a mode sees)
    where a dispatch mode is active."""
    from ember._tensor import Tensor, _alias_as

    from .saved_variable import _detach_in_python

    if _detach_in_python(self):
        result = at.detach(self)
        if result is self:
            return result
    else:  # a new TensorImpl: a plain tensor (a subclass sees its class through _convert)
        result = _alias_as(self, Tensor)
    if not self._is_inference:  # (a lazily made counter of self's must not be shared)
        from ember._c10.tensor_impl import VersionCounter

        result._version_counter = VersionCounter()
    return result


# TensorImpl::has_compatible_shallow_copy_type's dense backends (not meta, not PrivateUse1)
_DENSE_DEVICE_TYPES = frozenset({"cpu", "cuda", "mps", "hip", "xpu", "hpu"})


def has_compatible_shallow_copy_type(tensor, other) -> bool:
    """torch._has_compatible_shallow_copy_type: the same key set, or both strided on
    dense backends; only then may ``tensor.data = other`` keep tensor's identity."""
    if tensor._key_bits == other._key_bits:
        return True
    return (
        tensor.layout is other.layout is strided
        and tensor.device.type in _DENSE_DEVICE_TYPES
        and other.device.type in _DENSE_DEVICE_TYPES
    )


def _set_data(self, value) -> None:
    """``t.data = value`` (VariableHooks::set_data): after PyTorch's two checks,
    shallow_copy_from: value's storage, geometry, dtype, device and dispatch keys, except
    that t keeps its own Python keys."""
    if not has_compatible_shallow_copy_type(self, value):
        raise RuntimeError(
            "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` "
            "have incompatible tensor type."
        )
    if _requires_grad(self) and not (value.dtype.is_floating_point or value.dtype.is_complex):
        raise RuntimeError(
            "data set to a tensor that requires gradients must be floating point or complex dtype"
        )
    self._storage = value.storage()
    self._array = value._array
    self._set_sizes_strides(value._sizes, value._strides, value._storage_offset)
    self.dtype = value.dtype
    self.device = value.device
    self._key_bits = (value._key_bits & ~PYTHON_KEY_BITS) | (self._key_bits & PYTHON_KEY_BITS)


def detach_(self):
    if self._view_info is not None and self._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence detach_() cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."  # noqa: E501
        )
    self._grad_fn = None
    self._output_nr = 0
    self._requires_grad = False
    return self


def retain_grad(self) -> None:
    if not _requires_grad(self):
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    node = grad_fn_of(self)
    if node is None or self._retains_grad:
        return
    self._retains_grad = True
    tensor = self

    def hook(grad):
        if tensor._grad is None:
            tensor._grad = grad.detach().clone() if grad._requires_grad else grad.clone()
        else:
            tensor._grad = tensor._grad + grad
        return None

    hooks = node.__dict__.setdefault("_retains_grad_hooks", {})
    hooks[self._output_nr] = hook


def _retains_grad_prop(self) -> bool:
    return bool(self._retains_grad)


class RemovableHandle:
    __slots__ = ("_hooks", "_key")
    _next_id = 0

    def __init__(self, hooks: dict, key) -> None:
        self._hooks = hooks
        self._key = key

    def remove(self) -> None:
        self._hooks.pop(self._key, None)


def register_hook(self, hook):
    if not _requires_grad(self):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    RemovableHandle._next_id += 1
    key = RemovableHandle._next_id
    node = grad_fn_of(self)
    if node is None:  # a leaf: AccumulateGrad runs these before accumulating
        if self._backward_hooks is None:
            self._backward_hooks = {}
        grad_accumulator(self)
        self._backward_hooks[key] = hook
        return RemovableHandle(self._backward_hooks, key)
    table = node.__dict__.setdefault("_tensor_pre_hooks", {})
    hooks = table.setdefault(self._output_nr, {})
    hooks[key] = hook
    return RemovableHandle(hooks, key)


def register_post_accumulate_grad_hook(self, hook):
    if grad_fn_of(self) is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = self.__dict__.setdefault("_post_accumulate_grad_hooks", {})
    RemovableHandle._next_id += 1
    hooks[RemovableHandle._next_id] = hook
    return RemovableHandle(hooks, RemovableHandle._next_id)


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    api_backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _output_nr(self) -> int:
    return self._output_nr


def install(tensor_class) -> None:
    tensor_class.requires_grad = property(_requires_grad, _set_requires_grad)
    tensor_class.requires_grad_ = requires_grad_
    tensor_class.grad_fn = property(_grad_fn)
    tensor_class.is_leaf = property(_is_leaf)
    tensor_class.grad = property(_get_grad, _set_grad)
    tensor_class.data = property(_get_data, _set_data)
    tensor_class.detach_ = no_arguments_method(detach_, "detach_")  # METH_NOARGS in torch
    tensor_class.retain_grad = no_arguments_method(retain_grad, "retain_grad")
    tensor_class.retains_grad = property(_retains_grad_prop)
    tensor_class.register_hook = register_hook
    tensor_class.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook
    tensor_class.backward = backward
    tensor_class.output_nr = property(_output_nr)
