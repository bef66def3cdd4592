"""Accumulating a gradient into a leaf's `.grad`.

Layer: autograd. Mirrors torch/csrc/autograd/functions/accumulate_grad.h:
the first gradient is stored (detached, and copied when it might be aliased
by someone else), later ones are added; under create_graph the sum is taken
out of place so that it stays differentiable.
"""

from __future__ import annotations

import ember
from ember._c10.grad_mode import autograd_state


def accumulate_grad(variable, grad) -> None:
    if grad is None:
        return
    for hook in _tensor_hooks(variable):
        result = hook(grad)
        if result is not None:
            grad = result
    current = variable._grad
    if current is None:
        if autograd_state.grad_mode:  # create_graph: a copy that keeps the history
            variable._grad = ember.empty_like(grad).copy_(grad)
        else:
            variable._grad = grad.detach() if grad._requires_grad else grad.clone()
    elif autograd_state.grad_mode:
        variable._grad = current + grad
    else:
        current.add_(grad)
    for hook in variable.__dict__.get("_post_accumulate_grad_hooks", ()):
        hook(variable)


def _tensor_hooks(variable) -> list:
    hooks = variable._backward_hooks
    return list(hooks.values()) if hooks else []
