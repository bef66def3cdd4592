"""ember.autograd.backward and ember.autograd.grad.

Layer: autograd. In: output tensors, their gradients (made implicitly for
scalars), the options. Out: `.grad` of leaves, or the gradients themselves.
Mirrors torch/autograd/__init__.py (_make_grads, backward, grad).
"""

from __future__ import annotations

from ember._tensor import Tensor
from ember._tensor_ctors import preserve_format
from ember.aten._generated.python_functions import zeros_like
from ember.aten.binding import handle, make_factory

from .engine import run_backward

_ONES_LIKE = handle("ones_like")


def _as_tuple(value):
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,)


def _shape(tensor) -> str:
    return "ember.Size([" + ", ".join(str(s) for s in tensor._sizes) + "])"


def _make_grads(outputs, grads, is_grads_batched: bool = False) -> list:
    result = []
    for i, (out, grad) in enumerate(zip(outputs, grads)):
        if isinstance(grad, Tensor):
            if grad._sizes != out._sizes:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {_shape(grad)} and "
                    f"output[{i}] has a shape of {_shape(out)}."
                )
            if out.dtype.is_complex != grad.dtype.is_complex:
                raise RuntimeError(
                    f"For complex Tensors, both grad_output and output are required to have "
                    f"the same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                    f"{grad.dtype} and output[{i}] has a dtype of {out.dtype}."
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


def _gradients_as_list(grad_tensors, length: int) -> list:
    """_tensor_or_tensors_to_tuple: None for each output, one tensor, or any iterable."""
    if grad_tensors is None:
        return [None] * length
    if isinstance(grad_tensors, Tensor):
        return [grad_tensors]
    return list(grad_tensors)


def _tensors_and_grads(tensors, grad_tensors):
    tensors = _as_tuple(tensors)
    grads = _gradients_as_list(grad_tensors, len(tensors))
    if len(grads) < len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    return tensors, _make_grads(tensors, grads[: len(tensors)])


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
        grad_tensors = grad_variables
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors, grads = _tensors_and_grads(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(
        tensors,
        grads,
        keep_graph=retain_graph,
        create_graph=create_graph,
        inputs=inputs,
        allow_unused=True,
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
    outputs, grads = _tensors_and_grads(outputs, grad_outputs)
    inputs = _as_tuple(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    result = run_backward(
        outputs,
        grads,
        keep_graph=retain_graph,
        create_graph=create_graph,
        inputs=inputs,
        allow_unused=allow_unused,
        accumulate=False,
    )
    if materialize_grads:
        result = [
            g if g is not None else zeros_like(t, requires_grad=create_graph)
            for g, t in zip(result, inputs)
        ]
    return tuple(result)
