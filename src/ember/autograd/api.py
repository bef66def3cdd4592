"""ember.autograd.backward and ember.autograd.grad.

Layer: autograd. In: output tensors, their gradients (made implicitly for
scalars), the options. Out: `.grad` of leaves, or the gradients themselves.
Mirrors torch/autograd/__init__.py (_make_grads, backward, grad) and the
argument checks of THPEngine_run_backward (torch/csrc/autograd/python_engine.cpp).
"""

from __future__ import annotations

import operator

from ember._c10.naming import prefix
from ember._c10.tensor_impl import TensorImpl
from ember._tensor_ctors import preserve_format
from ember.aten._generated.python_functions import zeros_like
from ember.aten.binding import handle, make_factory

from .engine import run_backward

_ONES_LIKE = handle("ones_like")


def _is_tensor(value) -> bool:
    return isinstance(value, TensorImpl)


def _outputs_tuple(value) -> tuple:
    """A tensor alone, or any iterable of them (tuple() raises for anything else)."""
    return (value,) if _is_tensor(value) else tuple(value)


def _inputs_tuple(inputs, api: str) -> tuple:
    """`inputs` of backward() / grad(): a tensor, a dict (its values) or any iterable."""
    if _is_tensor(inputs):
        return (inputs,)
    if type(inputs) is dict:
        return tuple(inputs.values())
    from collections.abc import Mapping

    if isinstance(inputs, Mapping):
        raise TypeError(
            f"`inputs` argument to `{api}()` must be a dict, not {type(inputs).__name__}. "
            "Other Mapping types are not supported."
        )
    return tuple(inputs)


def _engine_flag(value) -> bool:
    """A flag the engine reads as a C `unsigned char` (PyArg format "b"), as PyTorch does."""
    if value is True or value is False:
        return value
    try:
        number = operator.index(value)
    except TypeError:
        if _is_tensor(value):  # Tensor.__index__ raised PyTorch's own message
            raise
        raise TypeError(
            f"'{type(value).__name__}' object cannot be interpreted as an integer"
        ) from None
    if not -(2**63) <= number < 2**63:
        raise OverflowError("Python int too large to convert to C long")
    if number < 0:
        raise OverflowError("unsigned byte integer is less than minimum")
    if number > 255:
        raise OverflowError("unsigned byte integer is greater than maximum")
    return number != 0


def _shape(sizes) -> str:
    return prefix() + ".Size([" + ", ".join(str(s) for s in sizes) + "])"


def _make_grads(outputs: tuple, grads: tuple, is_grads_batched: bool) -> list:
    result = []
    for out, grad in zip(outputs, grads):
        if not _is_tensor(out):
            raise AssertionError("Expected output to be a torch.Tensor")
        if _is_tensor(grad):
            first_grad = grad[0] if is_grads_batched else grad
            if first_grad._sizes != out._sizes:
                # PyTorch finds the positions with tuple.index (== on tensors before
                # identity fails), and shows the batched shape of grad[0][1:]
                grad_position = grads.index(grad)
                out_position = outputs.index(out)
                grad_sizes = first_grad._sizes[1:] if is_grads_batched else first_grad._sizes
                where = (
                    f"grad_output[{grad_position}] has a shape of {_shape(grad_sizes)} and "
                    f"output[{out_position}] has a shape of {_shape(out._sizes)}"
                )
                if is_grads_batched:
                    raise RuntimeError(
                        "If `is_grads_batched=True`, we interpret the first dimension of each "
                        "grad_output as the batch dimension. The sizes of the remaining "
                        "dimensions are expected to match the shape of corresponding output, "
                        f"but a mismatch was detected: {where}. If you only want some tensors "
                        "in `grad_output` to be considered batched, consider using vmap."
                    )
                raise RuntimeError(f"Mismatch in shape: {where}.")
            if out.dtype.is_complex != grad.dtype.is_complex:
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have "
                    f"the same dtype. Mismatch in dtype: grad_output[{grads.index(grad)}] has "
                    f"a dtype of {grad.dtype} and output[{outputs.index(out)}] has a dtype of "
                    f"{out.dtype}."
                )
            result.append(grad)
        elif grad is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError(
                        "grad can be implicitly created only for real scalar outputs but got "
                        f"{out.dtype}"
                    )
                # torch.ones_like(out, memory_format=torch.preserve_format) as its binding
                # runs it (pin_memory False, below ADInplaceOrView), without the parsing
                options = (out, None, None, None, False, preserve_format)
                result.append(make_factory(_ONES_LIKE, options, False))
            else:
                result.append(None)
        else:
            raise TypeError(
                "gradients can be either Tensors or None, but got " + type(grad).__name__
            )
    return result


def _gradients_tuple(grad_tensors, length: int) -> tuple:
    """_tensor_or_tensors_to_tuple: None for each output, one tensor, or any iterable."""
    if grad_tensors is None:
        return (None,) * length
    if _is_tensor(grad_tensors):
        return (grad_tensors,)
    return tuple(grad_tensors)


def _engine_call(tensors, grads, keep_graph, create_graph, inputs, allow_unreachable, **how):
    """THPEngine_run_backward's own checks, in its order, then the engine."""
    keep_graph = _engine_flag(keep_graph)
    create_graph = _engine_flag(create_graph)
    allow_unreachable = _engine_flag(allow_unreachable)
    if len(tensors) != len(grads):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    return run_backward(
        tensors,
        grads,
        keep_graph=keep_graph,
        create_graph=create_graph,
        inputs=inputs,
        allow_unused=allow_unreachable,
        **how,
    )


def backward(
    tensors,
    grad_tensors=None,
    retain_graph=None,
    create_graph: bool = False,
    grad_variables=None,
    inputs=None,
) -> None:
    """Accumulate the gradients of `tensors` into the `.grad` of the leaves (or `inputs`)."""
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError(
                "`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                "`backward()`. Please only use `grad_tensors`."
            )
        grad_tensors = grad_variables
    inputs_tuple = () if inputs is None else _inputs_tuple(inputs, "backward")
    if inputs is not None and len(inputs_tuple) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = _outputs_tuple(tensors)
    grads = _make_grads(tensors, _gradients_tuple(grad_tensors, len(tensors)), False)
    if retain_graph is None:
        retain_graph = create_graph
    _engine_call(
        tensors,
        grads,
        retain_graph,
        create_graph,
        inputs_tuple if inputs is not None else None,
        True,
        accumulate=True,
    )


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused=None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
):
    """The gradients of `outputs` with respect to `inputs` (nothing is accumulated)."""
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _outputs_tuple(outputs)
    inputs_tuple = _inputs_tuple(inputs, "grad")
    if len(inputs_tuple) == 0:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _make_grads(
        outputs, _gradients_tuple(grad_outputs, len(outputs)), bool(is_grads_batched)
    )
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        _refuse_batched(grads)
    result = _engine_call(
        outputs, grads, retain_graph, create_graph, inputs_tuple, allow_unused, accumulate=False
    )
    if materialize_grads:
        result = [
            g if g is not None else zeros_like(t, requires_grad=create_graph)
            for g, t in zip(result, inputs_tuple)
        ]
    result = tuple(result)
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return result


def _refuse_batched(grads: list) -> None:
    """is_grads_batched: PyTorch vmaps the engine over dim 0 of every gradient
    (torch/_vmap_internals.py). ember makes vmap's argument checks, then refuses: without
    batching rules it could compute the values (one backward pass per batch entry), but
    not the strides and grad_fns that the batched kernels give the results."""
    for grad in grads:
        if not _is_tensor(grad):
            raise ValueError(
                "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for an input but the input "
                f"is of type {type(grad)}. We cannot vmap over non-Tensor arguments, please "
                "use None as the respective in_dim"
            )
        if grad.dim() == 0:
            raise ValueError(
                "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that "
                "input is a Tensor of dimensionality 0 so expected in_dim to satisfy "
                "0 <= in_dim < 0."
            )
    sizes = [grad._sizes[0] for grad in grads]
    if any(size != sizes[0] for size in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    raise NotImplementedError(
        "autograd.grad(..., is_grads_batched=True) runs the backward pass under torch's vmap, "
        "which ember does not implement; call autograd.grad once per batch entry instead"
    )
