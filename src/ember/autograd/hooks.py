"""Running the user's backward hooks, and the checks on what they return.

Layer: autograd. In: a hook table (tensor hooks, a node's pre- or post-hooks) and the
gradients handed to it. Out: the gradients after the hooks, or PyTorch's error when a
hook returns something that cannot replace what it was given. Mirrors
torch/csrc/autograd/python_hook.cpp (_call_hooks, check_result, check_single_result,
hook_name) and check_variable_result (autograd/function_hook.cpp).
"""

from __future__ import annotations

from ember._c10.dtypes import scalar_type_name
from ember._c10.naming import prefix
from ember._tensor import Tensor
from ember.aten.python_arg_convert import tp_name

_NONE_REPLACED = "can't replace a None gradient with a non-None value"

# The dtypes with a legacy Python tensor type (torch.FloatTensor): a CPU tensor of
# another dtype prints as its dispatch key and scalar type (CPUBoolType), as on any
# other device (MetaFloatType).
_LEGACY = {"float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8"}


def type_string(tensor) -> str:
    """What the hook checks print for a tensor's type: `ember.FloatTensor`, `MetaFloatType`."""
    scalar = scalar_type_name(tensor.dtype)
    device = tensor.device.type
    if device == "cpu" and tensor.dtype.name in _LEGACY:
        return f"{prefix()}.{scalar}Tensor"
    key = {"cpu": "CPU", "meta": "Meta", "cuda": "CUDA"}.get(device, device)
    return f"{key}{scalar}Type"


def hook_name(hook) -> str:
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def check_variable_result(original, result, hook) -> None:
    """A hook's tensor may differ from the gradient it replaces only in its values."""
    if result.dtype is not original.dtype or result.device != original.device:
        raise RuntimeError(
            f"hook '{hook_name(hook)}' has changed the type of value (was "
            f"{type_string(original)} got {type_string(result)})"
        )
    if result._sizes != original._sizes:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")


def check_single_result(original, result, hook) -> None:
    if result is None:
        return
    if original is None:
        raise RuntimeError(_NONE_REPLACED)
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{tp_name(result)}'")
    check_variable_result(original, result, hook)


def check_result(previous: tuple, result, hook) -> None:
    """A node hook returns a tuple with one gradient (or None) per gradient it was given."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{tp_name(result)}'")
    if len(result) != len(previous):
        raise RuntimeError(
            f"hook '{hook_name(hook)}' has returned an incorrect number of values (got "
            f"{len(result)}, but expected {len(previous)})"
        )
    for original, value in zip(previous, result):
        check_single_result(original, value, hook)


def call_tensor_hooks(hooks, grad):
    """Tensor hooks in registration order, each given the previous one's result (None
    too: a hook sees an undefined gradient as None)."""
    for hook in list(hooks):
        result = hook(grad)
        if result is None or result is grad:
            continue
        check_single_result(grad, result, hook)
        grad = result
    return grad


def call_node_hooks(hooks, grads: tuple, *extra) -> tuple:
    """A node's pre-hooks (`hook(grad_outputs)`) or post-hooks (`hook(grad_inputs,
    grad_outputs)`): each may return a tuple replacing `grads`."""
    for hook in list(hooks):
        result = hook(grads, *extra)
        if result is None or result is grads:
            continue
        check_result(grads, result, hook)
        grads = result
    return grads
