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

Note [Views with a view function]
---------------------------------
as_strided cannot remake a view that changed the dtype or a math bit
(view_as_real, view_as_complex, _conj, _neg_view: gen_inplace_or_view_type.py's
VIEW_FUNCTIONS_WITH_METADATA_CHANGE). Such a view, and every view taken of it,
keeps a view function that replays it from the root base (ViewInfo::chain: the
parent's function, then this op, or an as_strided of the parent's geometry
where the parent had none). The rebuilt grad_fn is then the replay's own, and
CopySlices cuts the gradient's slice with it (variable_type.py).
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
    __slots__ = ("creation_meta", "attr_version", "view_fn")

    def __init__(self, creation_meta: CreationMeta, attr_version: int, view_fn=None) -> None:
        self.creation_meta = creation_meta
        self.attr_version = attr_version
        self.view_fn = view_fn  # See Note [Views with a view function]


_REPLAYED = frozenset({"view_as_real", "view_as_complex", "_conj", "_neg_view"})


def _replay(op_name: str):
    if op_name not in _REPLAYED:  # (most views: no import, no table)
        return None
    from ember.aten.native import at

    return {
        "view_as_real": at.view_as_real,
        "view_as_complex": at.view_as_complex,
        "_conj": at._conj,
        "_neg_view": at._neg_view,
    }.get(op_name)


def _as_strided_of(tensor):
    sizes, strides, offset = tensor._sizes, tensor._strides, tensor._storage_offset
    return lambda t: t.as_strided(sizes, strides, offset)


def _view_fn(op_name: str, base, view):
    """ViewInfo::chain: the function that remakes `view` from the root base, or None."""
    own = _replay(op_name)
    info = base._view_info
    previous = info.view_fn if info is not None and base._base is not None else None
    if own is not None:
        if previous is not None:
            return lambda root: own(previous(root))
        if base._base is not None and info is not None:
            parent = _as_strided_of(base)
            return lambda root: own(parent(root))
        return own
    if previous is not None:
        restride = _as_strided_of(view)
        return lambda root: restride(previous(root))
    return None


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
    info = base._view_info
    if op_name in _REPLAYED or (info is not None and info.view_fn is not None):
        view_fn = _view_fn(op_name, base, view)
    else:
        view_fn = None  # what _view_fn answers with no replay of its own or of the base
    view._view_info = ViewInfo(_creation_meta(op_name, base), version, view_fn)
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

        if info.view_fn is not None:  # See Note [Views with a view function]
            node = _replayed_grad_fn(info.view_fn, base)
        else:
            node = _as_strided_node(base, tensor)
            node.set_next_edges((gradient_edge(base),))
            node._input_metadata = []
            node.add_input_metadata(tensor)
        tensor._grad_fn = node
        tensor._output_nr = 0
        tensor._requires_grad = True
        info.attr_version = version
    return tensor._grad_fn


def _replayed_grad_fn(view_fn, base):
    """The grad_fn of the view remade from its base, with grad mode on (AutoGradMode)."""
    ts = per_thread.state
    previous = ts.grad_mode
    ts.grad_mode = True
    try:
        return view_fn(base)._grad_fn
    finally:
        ts.grad_mode = previous


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
