"""torch.func.functionalize: the Functionalize interpreter on the functorch layer stack.

Layer: _functorch. In: a function and its arguments. Out: the function run with its
tensor arguments wrapped as functional tensors of a new level, its outputs unwrapped, and
the mutations it made to its inputs copied back into them. Mirrors
torch/_functorch/eager_transforms.py (functionalize and its helpers),
aten/src/ATen/functorch/FunctionalizeInterpreter.cpp and the functionalize bindings of
torch/csrc/functorch/init.cpp. The wrapper and the kernels are ember._functionalization's.

While the layer is live its FrontMode TLS keeps only Functionalize between the
DynamicLayer keys and includes it (so a factory's result is wrapped too), views are
reapplied or replaced by their *_copy as ``remove`` asked, and every functional tensor an
op returns gets the layer's level (Note [The functorch layer stack]).
"""

from __future__ import annotations

import functools

from .._functionalization import api as _api
from .._functionalization.wrapper import (
    FUNCTIONALIZE_BITS,
    functional_state,
    set_reapply_views,
)
from .._tensor import Tensor
from ..utils import _pytree as pytree
from . import dynamic_layer
from .interpreter import Interpreter, TransformType

__all__ = [
    "FunctionalizeInterpreter",
    "_func_decrement_nesting",
    "_func_increment_nesting",
    "_propagate_functional_input_mutation",
    "_unwrap_functional_tensor",
    "_wrap_functional_tensor",
    "functionalize",
]

_BAD_REMOVE = (
    "functionalize(f, remove='mutations'): received invalid argument for remove={remove}."
    " Valid options are:\n"
    "     remove='mutations': all inplace and out= operators will be removed from the program, "
    "and replaced with their out-of-place equivalents.\n"
    "     remove='mutations_and_views': In addition to the above, all aliasing operators {{view}} "
    "will be replaced with their non-aliasing counterparts, {{view}}_copy.\n"
)


class FunctionalizeInterpreter(Interpreter):
    """FunctionalizeInterpreterPtr: the functionalization kernels run at this level."""

    transform = TransformType.Functionalize
    layer_keys = FUNCTIONALIZE_BITS
    include_keys = FUNCTIONALIZE_BITS

    def __init__(self, level: int, reapply_views: bool) -> None:
        super().__init__(level)
        self.reapply_views = reapply_views

    def process(self, op, args):
        prev = set_reapply_views(self.reapply_views)
        try:
            result = op.call(*args)
        finally:
            set_reapply_views(prev)
        _set_levels(result, self.lvl)
        return result


def _set_levels(result, level: int) -> None:
    """Functorch sets the level of the wrappers an op returns (core does not know it)."""
    if isinstance(result, Tensor):
        _api.set_functional_level(result, level)
    elif isinstance(result, (list, tuple)):
        for r in result:
            _set_levels(r, level)


def _func_increment_nesting(reapply_views: bool) -> int:
    level = dynamic_layer.next_level()
    dynamic_layer.push(FunctionalizeInterpreter(level, reapply_views))
    return level


def _func_decrement_nesting() -> int:
    return dynamic_layer.pop().lvl


def _wrap_functional_tensor(t, level: int):
    return _api.wrap_functional_tensor(t, level)


def _unwrap_functional_tensor(t, reapply_views: bool):
    if functional_state(t) is None:
        raise RuntimeError(
            "at::functionalization::impl::isFunctionalTensor(self) INTERNAL ASSERT FAILED "
            'at "/__w/pytorch/pytorch/torch/csrc/functorch/init.cpp":61, please report a bug '
            "to PyTorch. "
        )
    return _api.unwrap_functional_tensor(t, reapply_views)


def _propagate_functional_input_mutation(unwrapped, wrapped) -> None:
    _api.propagate_functional_input_mutation(unwrapped, wrapped)


def _maybe_unwrap(t, reapply_views: bool):
    if not isinstance(t, Tensor) or functional_state(t) is None:
        return t  # a global the function returned, never wrapped
    _api._sync(t)
    return _unwrap_functional_tensor(t, reapply_views)


def functionalize(func, *, remove: str = "mutations"):
    """torch.func.functionalize: ``func`` with its intermediate mutations (and, with
    ``remove='mutations_and_views'``, its views) removed; mutations of its inputs are
    copied back into them when it returns."""
    if remove == "mutations":
        reapply_views = True
    elif remove == "mutations_and_views":
        reapply_views = False
    else:
        raise RuntimeError(_BAD_REMOVE.format(remove=remove))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        try:
            level = _func_increment_nesting(reapply_views)
            wrap = lambda t: _wrap_functional_tensor(t, level) if isinstance(t, Tensor) else t  # noqa: E731
            func_args = pytree.tree_map(wrap, args)
            func_kwargs = pytree.tree_map(wrap, kwargs)
            unwrapped_args = pytree.arg_tree_leaves(*args)
            wrapped_args = pytree.arg_tree_leaves(*func_args)
            unwrapped_kwargs = pytree.arg_tree_leaves(**kwargs)
            wrapped_kwargs = pytree.arg_tree_leaves(**func_kwargs)
            outputs = func(*func_args, **func_kwargs)
            outputs = pytree.tree_map(lambda t: _maybe_unwrap(t, reapply_views), outputs)
            for a in wrapped_args + wrapped_kwargs:
                if isinstance(a, Tensor):
                    _api._sync(a)
            for unwrapped, wrapped_arg in zip(
                unwrapped_args + unwrapped_kwargs, wrapped_args + wrapped_kwargs
            ):
                if isinstance(unwrapped, Tensor) and isinstance(wrapped_arg, Tensor):
                    _propagate_functional_input_mutation(unwrapped, wrapped_arg)
            return outputs
        finally:
            _func_decrement_nesting()

    return wrapped
