"""Accumulating a gradient into a leaf's `.grad`.

Layer: autograd. Mirrors torch/csrc/autograd/functions/accumulate_grad.h:
the first gradient is stored (detached, and copied when it might be aliased
by someone else), later ones are added; under create_graph the sum is taken
out of place so that it stays differentiable.
"""

from __future__ import annotations

import sys

from ember._c10.layout import strided
from ember._c10.tensor_impl import contiguous_strides
from ember._c10.thread_state import per_thread
from ember._tensor_ctors import contiguous_format
from ember.aten.native import at
from ember.aten.native.layout import is_non_overlapping_and_dense

from .hooks import call_tensor_hooks, check_single_result

# References to a gradient that only the engine handed over: the caller's local,
# accumulate_grad's parameter and getrefcount's own argument. More means some
# other tensor slot, hook or user variable still sees it, so it must be copied.
_STEALABLE_REFS = 3


def accumulate_grad(variable, grad, *, stealable: bool = False) -> None:
    """Add ``grad`` into ``variable.grad``; ``stealable`` when the engine gave up its buffer.
    The leaf's hooks run also when no gradient arrived (they see None), as PyTorch's do."""
    hooks = variable._backward_hooks
    if hooks:
        grad = call_tensor_hooks(hooks.values(), grad)
    if grad is not None:
        current = variable._grad
        if current is None:
            if (
                stealable
                and not per_thread.state.grad_mode
                and sys.getrefcount(grad) <= _STEALABLE_REFS
                and obeys_layout_contract(grad, variable)
            ):
                variable._grad = grad.detach()  # nobody else holds it: keep it, detached
            else:
                variable._grad = clone_obey_contract(grad, variable)
        elif per_thread.state.grad_mode:
            variable._grad = current + grad
        else:
            current.add_(grad)
    post = variable.__dict__.get("_post_accumulate_grad_hooks")
    if post:  # what they return is checked as a tensor hook's result, then dropped
        for hook in list(post.values()):
            result = hook(variable)
            if result is not None and result is not variable:
                check_single_result(variable, result, hook)


def obeys_layout_contract(grad, variable) -> bool:
    """The gradient layout contract: a dense variable's grad has its strides (size-1 dims
    aside, where a 0 stride betrays an expanded view); otherwise the grad is contiguous."""
    strides = variable._strides
    if grad._strides == strides == contiguous_strides(variable._sizes) and 0 not in strides:
        return True  # both row-major: the contract holds (the common case)
    if is_non_overlapping_and_dense(variable):
        for size, stride, wanted in zip(grad._sizes, grad._strides, variable._strides):
            if (stride != wanted) if size != 1 else (stride == 0):
                return False
        return True
    return grad.is_contiguous()


def clone_obey_contract(grad, variable):
    """A copy of ``grad`` laid out as the contract asks (differentiable under create_graph)."""
    if is_non_overlapping_and_dense(variable):
        # new_empty_strided(sizes, strides, variable.options()): a dispatch mode sees the
        # variable's dtype, layout and device
        fresh = at.new_empty_strided(
            grad, list(variable._sizes), list(variable._strides), variable.dtype, strided,
            variable.device, None,
        )  # fmt: skip
        return fresh.copy_(grad)
    return grad.clone(memory_format=contiguous_format)
