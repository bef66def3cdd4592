"""autograd.Function under forward AD: the user's jvp gives the outputs' tangents.

Layer: autograd. In: a Function's inputs, ctx and outputs, when a dual level exists and
an input has a tangent. Out: the outputs' tangents. Mirrors _process_forward_mode_AD of
torch/csrc/autograd/custom_function.cpp (the view checks aside: a view output simply
gets the tangent jvp returns).
"""

from __future__ import annotations

from ember._c10.tensor_impl import TensorImpl
from ember._c10.thread_state import per_thread

from .forward_grad import fw_grad, set_fw_grad

__all__ = ["input_tangents", "jvp_outputs"]

_COUNT = "Function's jvp returned an invalid number of forward gradients (expected {} but got {})"
_NOT_DIFFERENTIABLE = (
    "Function's jvp returned a gradient at position {}, but  the corresponding forward output "
    "is not a differentiable Tensor.You should return None at that position instead."
)
_NOT_IN_PLACE = (
    "An inplace custom Function is not modifying the forward mode gradients inplace. If the "
    "forward is modifying an input inplace, then the jvp function must modify the "
    "corresponding gradient inplace."
)
_NOT_AS_IS = (
    "An inplace custom Function is not returning the forward mode gradients as-is. If the "
    "forward is modifying an input inplace, then the jvp function must modify the gradient "
    "inplace and return it as-is."
)


def input_tangents(inputs) -> list | None:
    """Each input's tangent (None for a non-tensor or an input without one); None if none."""
    tangents = [fw_grad(a) if isinstance(a, TensorImpl) else None for a in inputs]
    if all(t is None for t in tangents):
        return None
    return tangents


def _is_differentiable(tensor) -> bool:
    return tensor.dtype.is_floating_point or tensor.dtype.is_complex


def jvp_outputs(cls, ctx, inputs, tangents, raw_output, output, marks) -> None:
    """Call cls.jvp (forward grad mode off; ctx.saved_tensors are the tensors saved for
    forward) and give each differentiable output its tangent."""
    versions = [t._version if t is not None else None for t in tangents]
    state = per_thread.state
    prev = state.fw_grad_mode
    state.fw_grad_mode = False
    ctx.__dict__["_saved_for_jvp"] = tuple(marks.get("saved_for_forward", ()))
    try:
        grads = cls.jvp(ctx, *tangents)
    finally:
        state.fw_grad_mode = prev
        ctx.__dict__.pop("_saved_for_jvp", None)
    if not isinstance(grads, tuple):
        grads = (grads,)
    outputs = output if isinstance(output, tuple) else (output,)
    raws = raw_output if isinstance(raw_output, tuple) else (raw_output,)
    if len(grads) != len(outputs):
        raise RuntimeError(_COUNT.format(len(outputs), len(grads)))
    positions = {id(a): i for i, a in enumerate(inputs) if isinstance(a, TensorImpl)}
    non_differentiable = {id(t) for t in marks.get("non_differentiable", ())}
    dirty = {id(t) for t in marks.get("dirty_tensors", ())}
    for i, (raw, out, grad) in enumerate(zip(raws, outputs, grads)):
        if not isinstance(out, TensorImpl):
            continue
        if id(raw) in non_differentiable or not _is_differentiable(out):
            if grad is not None:
                raise RuntimeError(_NOT_DIFFERENTIABLE.format(i))
            continue
        if grad is None:
            continue
        if id(raw) in dirty and id(raw) in positions:
            j = positions[id(raw)]
            if tangents[j] is not None:
                if grad._version == versions[j]:
                    raise RuntimeError(_NOT_IN_PLACE)
                if grad is not tangents[j]:
                    raise RuntimeError(_NOT_AS_IS)
                continue
            set_fw_grad(out, grad, None, True)
            continue
        set_fw_grad(out, grad)
