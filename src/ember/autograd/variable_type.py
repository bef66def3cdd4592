"""What the generated autograd kernels call: guards' bits, history, in-place checks, CopySlices.

Layer: autograd. In: tensors passing through the autograd kernels of
autograd/_generated/autograd_kernels.py. Out: nodes linked into the graph.
Mirrors torch/csrc/autograd/VariableTypeUtils.h (check_inplace,
rebase_history), variable.cpp (the view's lazily rebuilt grad_fn),
functions/tensor.cpp (CopySlices) and autograd/functions/basic_ops.h
(NotImplemented).

Note [Generated autograd kernels]
---------------------------------
Each kernel reads one flag per input (`_requires_grad`, see Note [Autograd
metadata on tensors]) and grad mode. Only when both say so does it build the
node, set its edges (one per differentiable input, schema order) and save
what the formulas use. It then redispatches with `ks & after_autograd_keyset`
with this thread's exclude set widened inline (no guard object: this runs on every
call): functional ops exclude ADInplaceOrView too, view and in-place ops do
not, so the ADInplaceOrView kernel still bumps versions and records views
(facts §6.1). Afterwards outputs get the node as grad_fn (set_history), or,
for in-place ops, the mutated tensor's history is rebased (rebase_history),
which for a view rewrites its base's history through CopySlices.
"""

from __future__ import annotations

from ember._c10.dispatch_key_set import after_autograd_keyset
from ember._c10.thread_state import per_thread
from ember._c10.tls import BELOW_AD_INPLACE_OR_VIEW, BELOW_AUTOGRAD
from ember._tensor_ctors import contiguous_format
from ember.aten.native import at

from .graph import (
    Node,
    any_requires_grad,
    gradient_edge,
    set_history,
)
from .saved_variable import SavedVariable, node_short_name
from .views import CreationMeta, grad_fn_of

__all__ = [
    "AFTER_AUTOGRAD",
    "BELOW_AUTOGRAD",
    "BELOW_AD_INPLACE_OR_VIEW",
    "NOT_DIFFERENTIABLE",
    "OUT_ERROR",
    "GeneratedNode",
    "NotImplementedNode",
    "CopySlices",
    "SavedVariable",
    "unpack_saved",
    "any_requires_grad",
    "check_inplace",
    "check_out_mutable",
    "gradient_edge",
    "not_implemented_history",
    "rebase_history",
    "per_thread",
    "requiring_edges",
    "set_history",
]

AFTER_AUTOGRAD = after_autograd_keyset.raw_repr()

OUT_ERROR = (
    "{name}(): functions with out=... arguments don't support automatic differentiation, "
    "but one of the arguments requires grad."
)
NOT_DIFFERENTIABLE = (
    "The function '{fn}' is not differentiable with respect to argument '{arg}'. This input "
    "cannot have requires_grad True."
)
_LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
_VIEW_OF_LEAF = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."  # noqa: E501
)
_CLARIFY = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the {block} block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked)."
)
_DIRECT = {
    "modified": "is being modified inplace",
    "no_grad": "is being modified inplace with grad mode enabled",
    "inference": "is being modified inplace in normal mode",
}
_INDIRECT = {
    "modified": "its base or another view of its base has been modified inplace",
    "no_grad": "its base or another view of its base has been modified inplace with grad "
    "mode enabled",
    "inference": "its base or another view of its base has been modified inplace in normal mode",
}
_MULTI_OUTPUT = (
    "{prefix} is a view and {what}. This view is the output of a function that returns "
    "multiple views. Such functions do not allow the output views to be modified inplace. You "
    "should replace the inplace operation by an out-of-place one."
)

_IN_CUSTOM_FUNCTION = (
    "{prefix} is a view and {what}. This view was created inside a custom Function (or because "
    "an input was returned as-is) and the autograd logic to handle view+inplace would override "
    "the custom backward associated with the custom Function, leading to incorrect gradients. "
    "This behavior is forbidden. You can fix this by cloning the output of the custom Function."
)


def unpack_saved(saved, node):
    """A saved variable's tensor; None when it was not saved (its gradient is not needed)."""
    return None if saved is None else saved.unpack(node)


class SavedTensor:
    """A generated node's ``_saved_<name>``: the tensor its SavedVariable (at
    ``_raw_saved_<name>``) unpacks to, a tuple of them for a saved list, None where nothing
    was saved; after backward freed it, PyTorch's error (python_functions.cpp's getters)."""

    __slots__ = ("raw",)

    def __init__(self, raw: str) -> None:
        self.raw = raw

    def __get__(self, node, owner=None):
        if node is None:
            return self
        saved = getattr(node, self.raw)
        if saved is None:
            return None
        if saved.__class__ is list:
            return tuple(None if s is None else s.unpack(node) for s in saved)
        return saved.unpack(node)


class GeneratedNode(Node):
    """Base of the generated nodes: the attributes holding SavedVariables (or lists of them)
    are named in `_saved_variables`."""

    _saved_variables: tuple[str, ...] = ()

    def release_variables(self) -> None:
        found = self.__dict__
        for attribute in self._saved_variables:
            value = found.get(attribute)
            if value.__class__ is SavedVariable:
                value.release()
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, SavedVariable):
                        item.release()
        self._released = True

    def any_output_needed(self, start: int, count: int) -> bool:
        return any(self.should_compute_output(i) for i in range(start, start + count))


class NotImplementedNode(Node):
    """The grad_fn of an operator without a derivative formula (torch::autograd::NotImplemented,
    See Note [Operators without a derivative formula]); backward through it fails."""

    def __init__(self, op_name: str) -> None:
        super().__init__()
        self._op_name = op_name

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def apply(self, grads: list) -> tuple:
        raise RuntimeError(f"derivative for {self._op_name} is not implemented")


NotImplementedNode.__name__ = NotImplementedNode.__qualname__ = "NotImplemented"  # as torch's


def requiring_edges(*tensors) -> tuple:
    """An edge to each tensor (or tensor of a list) that requires grad, in order."""
    edges = []
    for value in tensors:
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            edges.extend(gradient_edge(t) for t in value if t is not None and t._requires_grad)
        elif value._requires_grad:
            edges.append(gradient_edge(value))
    return tuple(edges)


def check_out_mutable(tensor, op_name: str) -> None:
    """can_mutate_inplace for an out= tensor of an operator without a formula: a leaf that
    requires grad, or a view of one (or of a no-grad / multi-output view), is refused."""
    if tensor is None:
        return
    info = tensor._view_info
    if info is not None and tensor._base is not None:
        if info.creation_meta != CreationMeta.DEFAULT or (
            tensor._requires_grad and tensor._base._grad_fn is None
        ):
            raise RuntimeError(OUT_ERROR.format(name=op_name))
    if tensor._requires_grad and grad_fn_of(tensor) is None:
        raise RuntimeError(OUT_ERROR.format(name=op_name))


def not_implemented_history(node: Node, outputs, written: tuple) -> None:
    """The outputs of a NotImplemented call join `node` (those of a floating or complex
    dtype); an output the operator wrote into (in-place, out=) is rebased onto it."""
    for output, was_written in zip(outputs, written):
        tensors = output if isinstance(output, (list, tuple)) else (output,)
        for tensor in tensors:
            if tensor is None or not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
                continue
            if was_written:
                rebase_history(tensor, node)
            else:
                set_history(tensor, node)


def handle_view_on_rebase(view, info, indirect: bool = False) -> None:
    """The errors for in-place changes to views made in no_grad / inference mode or by
    multi-output functions (facts §7.3); `indirect`: the base or a sibling changed."""
    meta = info.creation_meta
    if meta == CreationMeta.DEFAULT:
        return
    what = _INDIRECT if indirect else _DIRECT
    if meta == CreationMeta.NO_GRAD_MODE:
        raise RuntimeError(
            f"A view was created in no_grad mode and {what['no_grad']}."
            + _CLARIFY.format(block="no_grad")
        )
    if meta == CreationMeta.INFERENCE_MODE:
        raise RuntimeError(
            f"A view was created in inference mode and {what['inference']}."
            + _CLARIFY.format(block="inference_mode")
        )
    producer = view._grad_fn
    if producer is not None:
        prefix = f"Output {view._output_nr} of {node_short_name(producer)}"
    else:
        prefix = "A view"
    if meta == CreationMeta.IN_CUSTOM_FUNCTION:
        raise RuntimeError(_IN_CUSTOM_FUNCTION.format(prefix=prefix, what=what["modified"]))
    raise RuntimeError(_MULTI_OUTPUT.format(prefix=prefix, what=what["modified"]))


def check_inplace(tensor) -> None:
    """Called when an in-place op will record: the view and leaf checks of PyTorch."""
    info = tensor._view_info
    if info is not None and tensor._base is not None:
        handle_view_on_rebase(tensor, info)
        if tensor._requires_grad and tensor._base._grad_fn is None:
            raise RuntimeError(_VIEW_OF_LEAF)
    if tensor._requires_grad and grad_fn_of(tensor) is None:
        raise RuntimeError(_LEAF)


def rebase_history(tensor, node: Node) -> None:
    """The in-place output `tensor` is now output 0 of `node` (its base's, if a view)."""
    info = tensor._view_info
    if info is not None and tensor._base is not None:
        base = tensor._base
        copy = CopySlices(base, tensor, node)
        base._grad_fn = copy
        base._output_nr = 0
        base._requires_grad = True
        info.attr_version = -1  # the view's grad_fn is rebuilt from the base's
        grad_fn_of(tensor)
        return
    tensor._output_nr = node.add_input_metadata(tensor)
    tensor._grad_fn = node
    tensor._requires_grad = True


class CopySlices(Node):
    """An in-place op on a view, seen from its base: run `fn` on the view's slice of grad."""

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def __init__(self, base, view, fn: Node) -> None:
        super().__init__()
        self._base_geometry = (base._sizes, base._strides, base._storage_offset)
        self._view_geometry = (view._sizes, view._strides, view._storage_offset)
        info = view._view_info
        self._view_fn = info.view_fn if info is not None else None
        self.fn = fn
        self.add_input_metadata(base)
        base_edge = gradient_edge(base)
        fn.add_input_metadata(view)
        fn.set_next_edges((base_edge, *fn._next_edges[1:]))
        self.set_next_edges(fn._next_edges)

    def apply(self, grads: list) -> list:
        grad = grads[0]
        if grad is None:
            return [None] * len(self._next_edges)
        sizes, strides, offset = self._base_geometry
        # the calls of PyTorch's CopySlices::apply, as a dispatch mode sees them
        result = at.new_empty_strided(grad, list(sizes), list(strides), None, None, None, None)
        result.copy_(grad)
        if self._view_fn is not None:  # See Note [Views with a view function]
            grad_slice = self._view_fn(result)
        else:
            view_sizes, view_strides, view_offset = self._view_geometry
            grad_slice = result.as_strided(view_sizes, view_strides, view_offset - offset)
        res = self.fn.apply([grad_slice.clone(memory_format=contiguous_format)])
        out = [None] * len(self._next_edges)
        for i, value in enumerate(res):
            if not self.should_compute_output(i):
                continue
            if i == 0:
                if value is None:
                    grad_slice.zero_()
                else:
                    grad_slice.copy_(value)
                out[0] = result
            else:
                out[i] = value
        return out

    def release_variables(self) -> None:
        self.fn.release_variables()
        self._released = True
