"""Differentiable views: creation meta, and the view's grad_fn rebuilt after in-place changes.

Layer: autograd. In: every view the ADInplaceOrView kernels make (through
ember.aten.inplace_or_view.view_hooks). Out: `_view_info` on the view, and
`grad_fn_of(tensor)`, the grad_fn PyTorch's `Tensor.grad_fn` returns.
Mirrors torch/csrc/autograd/variable.{h,cpp} (DifferentiableViewMeta,
CreationMeta, VariableHooks::grad_fn).

Note [View grad_fn after in-place]
----------------------------------
A view records the version of its (shared) version counter when it was
made. When an in-place operation changes the base or any view of it, the
counter moves on; the next time the view's grad_fn is asked for, it is
rebuilt as AsStridedBackward0 over the base's current history, so gradients
flow through whatever the base became (after CopySlices, facts §6.2).
"""

from __future__ import annotations

import enum

from ember._c10.thread_state import per_thread
from ember.aten import inplace_or_view


class CreationMeta(enum.IntEnum):
    DEFAULT = 0
    IN_CUSTOM_FUNCTION = 1
    MULTI_OUTPUT_NODE = 2
    NO_GRAD_MODE = 3
    INFERENCE_MODE = 4


_MULTI_OUTPUT_VIEWS = frozenset({"split.Tensor", "split_with_sizes", "unbind.int", "chunk"})
# Views that share storage and version counter but are no views for autograd (PyTorch's
# make_variable_non_differentiable_view): detach, and the views whose derivatives.yaml
# entry makes every output non-differentiable (view.dtype; a test checks the two agree).
_NOT_DIFFERENTIABLE_VIEWS = frozenset({"detach", "view.dtype"})


class ViewInfo:
    __slots__ = ("creation_meta", "attr_version")

    def __init__(self, creation_meta: CreationMeta, attr_version: int) -> None:
        self.creation_meta = creation_meta
        self.attr_version = attr_version


def _creation_meta(op_name: str, base) -> CreationMeta:
    ts = per_thread.state
    if ts.inference_mode:
        meta = CreationMeta.INFERENCE_MODE
    elif not ts.grad_mode:
        meta = CreationMeta.NO_GRAD_MODE
    elif op_name in _MULTI_OUTPUT_VIEWS:
        meta = CreationMeta.MULTI_OUTPUT_NODE
    else:
        meta = CreationMeta.DEFAULT
    previous = base._view_info
    if previous is not None and meta == CreationMeta.DEFAULT:
        meta = previous.creation_meta  # propagate_creation_meta
    return meta


def on_view(op_name: str, base, view):
    """The autograd part of as_view (registered in inplace_or_view.view_hooks)."""
    if op_name in _NOT_DIFFERENTIABLE_VIEWS:
        view._base = None  # shares storage and version, but is no view for autograd
        if op_name != "detach":
            # make_variable_non_differentiable_view: shallow_copy_and_detach, which asks
            # Python (a mode sees aten.detach) where a mode is active; detach's own copy
            # does not show
            from .saved_variable import tensor_data

            return tensor_data(view)
        return None
    if view._is_inference:  # inference tensors carry no autograd metadata
        return
    counter = view._version_counter
    version = counter.version if counter is not None else 0
    view._view_info = ViewInfo(_creation_meta(op_name, base), version)
    if base._requires_grad:  # a differentiable view requires grad with its base
        view._requires_grad = True


def grad_fn_of(tensor):
    """Tensor.grad_fn: for a view, rebuilt when its version moved on (see the Note)."""
    info = tensor._view_info
    if info is None or tensor._base is None:
        return tensor._grad_fn
    base = tensor._base
    if tensor._grad_fn is None and not base._requires_grad:
        return None
    counter = tensor._version_counter
    version = counter.version if counter is not None else 0
    if info.attr_version != version:
        from .graph import gradient_edge
        from .variable_type import handle_view_on_rebase

        if info.creation_meta != CreationMeta.DEFAULT:
            handle_view_on_rebase(tensor, info, indirect=True)

        node = _as_strided_node(base, tensor)
        node.set_next_edges((gradient_edge(base),))
        node._input_metadata = []
        node.add_input_metadata(tensor)
        tensor._grad_fn = node
        tensor._output_nr = 0
        tensor._requires_grad = True
        info.attr_version = version
    return tensor._grad_fn


def _as_strided_node(base, view):
    from ._generated.nodes import AsStridedBackward0

    node = AsStridedBackward0()
    node._saved_self_sizes = base._sizes
    node._saved_self_strides = base._strides
    node._saved_self_storage_offset = base._storage_offset
    node._saved_size = view._sizes
    node._saved_stride = view._strides
    node._saved_storage_offset = view._storage_offset
    return node


def install() -> None:
    if on_view not in inplace_or_view.view_hooks:
        inplace_or_view.view_hooks.append(on_view)
