"""Forward gradients (tangents) on tensors, per level, and how operators set them.

Layer: autograd. In: dual tensors made by forward_ad.make_dual and the outputs of the
generated autograd kernels. Out: each tensor's tangent at a level. Mirrors
torch/csrc/autograd/forward_grad.{h,cpp} (ForwardGrad, ForwardADLevel) and the forward
parts of autograd_meta.cpp (fw_grad, set_fw_grad) and VariableTypeUtils.h.

Note [Forward grads]
--------------------
A tensor's tangents live in one ForwardGrad object (level -> tangent) behind the class
default ``_fw_grad = None`` of TensorImpl, so a plain tensor pays nothing. The levels are
process-wide, as PyTorch's; ``forward_state.active`` is True while one exists, and is the
only thing the generated autograd kernels read on a call when it is False (See Note
[Generated forward formulas]). A view without a tangent of its own whose base has one
(the base was given one in place after the view was made) takes the view of the base's
tangent on first read. Setting a tangent checks its size, refuses one that is itself
dual at the level, and gives it the primal's layout (a copy) when sizes, strides or
offset differ, as PyTorch's set_fw_grad does; an in-place change of a view without a
tangent first gives its base a zero tangent, so the base's tangent sees the change.
Leaving a level drops every tangent of that level.
"""

from __future__ import annotations

import weakref

from ember._c10.thread_state import per_thread

__all__ = [
    "ForwardGrad",
    "forward_state",
    "enter_level",
    "exit_level",
    "fw_grad",
    "set_fw_grad",
    "has_fw_grad",
    "any_fw_grad",
    "tangent_or_zeros",
    "set_differentiable",
    "set_fw_grads",
    "clone_primal",
    "forbid_forward",
    "forbid_forward_fallback",
    "forbid_forward_out",
    "fw_formulas_off",
]

_NOT_IMPLEMENTED = (
    "Trying to use forward AD with {name} that does not support it because it has not been "
    "implemented yet.\nPlease file an issue to PyTorch at "
    "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can "
    "prioritize its implementation or submit a PR adding the implementation to derivatives.yaml"
)
_NOT_IMPLEMENTED_OUT = (
    "Trying to use forward AD with {name} that does not support it because it is an out= function"
)
_NOT_IMPLEMENTED_FALLBACK = "Trying to use forward AD with aten::{name} that does not support it."


class _ForwardState:
    """The process-wide levels (ForwardADLevel's list): each a list of weak references to
    the ForwardGrads holding a tangent at it."""

    __slots__ = ("active", "levels")

    def __init__(self) -> None:
        self.active = False
        self.levels: list[list] = []


forward_state = _ForwardState()


class ForwardGrad:
    """A tensor's tangents, one per level. ``primal_view``: made by unpack_dual, whose
    result never takes its base's tangent (PyTorch's _fw_primal view)."""

    __slots__ = ("values", "primal_view", "__weakref__")

    def __init__(self, primal_view: bool = False) -> None:
        self.values: dict = {}
        self.primal_view = primal_view


def enter_level() -> int:
    forward_state.levels.append([])
    forward_state.active = True
    return len(forward_state.levels) - 1


def exit_level(level: int) -> None:
    holders = forward_state.levels.pop()
    forward_state.active = bool(forward_state.levels)
    for ref in holders:
        holder = ref()
        if holder is not None:
            holder.values.pop(level, None)


def _current() -> int:
    return len(forward_state.levels) - 1


def fw_grad(tensor, level: int | None = None):
    """The tangent of `tensor` at `level` (the current one by default), or None."""
    if not per_thread.state.fw_grad_mode or not forward_state.active:
        return None
    if level is None:
        level = _current()
    holder = tensor._fw_grad
    if holder is not None:
        found = holder.values.get(level)
        if found is not None or holder.primal_view:
            return found
    base = tensor._base
    if base is None or tensor._view_info is None:
        return None
    base_grad = fw_grad(base, level)
    if base_grad is None:
        return None
    view = _view_of(base_grad, tensor)
    _store(tensor, view, level)
    return view


def has_fw_grad(tensor) -> bool:
    return tensor is not None and fw_grad(tensor) is not None


def any_fw_grad(*values) -> bool:
    """Does any tensor (or tensor of a list) among `values` have a tangent at the current level."""
    if not per_thread.state.fw_grad_mode:
        return False
    for value in values:
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            if any(t is not None and fw_grad(t) is not None for t in value):
                return True
        elif fw_grad(value) is not None:
            return True
    return False


def _view_of(base_grad, view):
    info = view._view_info
    if info is not None and info.view_fn is not None:  # See Note [Views with a view function]
        return info.view_fn(base_grad)
    return base_grad.as_strided(view._sizes, view._strides, view._storage_offset)


def _store(tensor, value, level: int) -> None:
    holder = tensor._fw_grad
    if holder is None:
        holder = ForwardGrad()
        tensor._fw_grad = holder
    holder.values[level] = value
    forward_state.levels[level].append(weakref.ref(holder))


def _same_meta(a, b) -> bool:
    """utils::has_same_meta: sizes, strides, offset and storage size agree."""
    if a._sizes != b._sizes or a._strides != b._strides:
        return False
    if a._storage_offset != b._storage_offset:
        return False
    if a._functorch is not None or b._functorch is not None:
        return True  # a functorch wrapper has no storage of its own: its geometry is its value's
    return _storage_numel(a) == _storage_numel(b)


def _storage_numel(tensor) -> int:
    return tensor.untyped_storage().nbytes // tensor.element_size()


def _zeros_with_meta(new_grad, like):
    """_new_zeros_with_same_feature_meta: zeros of new_grad's dtype laid out as `like`."""
    from ember.aten.native import at

    numel = _storage_numel(like)
    flat = at.new_zeros(new_grad, [numel], None, None, None, None)
    return flat.as_strided(like._sizes, like._strides, like._storage_offset)


def _format_size(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def set_fw_grad(tensor, new_grad, level: int | None = None, is_inplace_op: bool = False) -> None:
    """AutogradMeta::set_fw_grad. See Note [Forward grads]."""
    if level is None:
        level = _current()
    if new_grad._fw_grad is not None and fw_grad(new_grad, level) is not None:
        raise RuntimeError(
            "Setting a forward grad that itself has a forward gradient at the same level"
            f"{level} is not supported."
        )
    if tensor._sizes != new_grad._sizes:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {_format_size(tensor._sizes)} "
            f"while the given forward gradient is of size {_format_size(new_grad._sizes)}."
        )
    holder = tensor._fw_grad
    if holder is not None and holder.values.get(level) is not None:
        return  # already set: only a no-op re-set reaches here
    base = tensor._base
    if is_inplace_op and base is not None and tensor._view_info is not None:
        if fw_grad(base, level) is None:
            if _same_meta(new_grad, base) and _same_meta(new_grad, tensor):
                base_grad = new_grad
            else:
                base_grad = _zeros_with_meta(new_grad, base)
                view = _view_of(base_grad, tensor)
                view.copy_(new_grad)
                new_grad = view
            _store(base, base_grad, level)
    if not _same_meta(new_grad, tensor):
        laid_out = _zeros_with_meta(new_grad, tensor)
        laid_out.copy_(new_grad)
        new_grad = laid_out
    _store(tensor, new_grad, level)


def set_differentiable(tensor, value) -> None:
    """set_fw_grad for an output of a floating or complex dtype (the others get none)."""
    if value is None or tensor is None:
        return
    if tensor.dtype.is_floating_point or tensor.dtype.is_complex:
        set_fw_grad(tensor, value)


def set_fw_grads(tensors, values) -> None:
    """Each tensor of a Tensor[] output gets its tangent."""
    for tensor, value in zip(tensors, values):
        set_differentiable(tensor, value)


def clone_primal(tensor):
    """The value an in-place operator's formula reads as `self` (its original_self)."""
    state = per_thread.state
    prev = state.fw_grad_mode
    state.fw_grad_mode = False
    try:
        return tensor.clone()
    finally:
        state.fw_grad_mode = prev


def tangent_or_zeros(tensor, tangent):
    """A missing tangent as zeros like the primal (PyTorch's _efficientzerotensor)."""
    if tangent is not None or tensor is None:
        return tangent
    from ember.aten.native import at

    zeros = at.zeros(list(tensor._sizes), tensor.dtype, None, tensor.device, None)
    if tensor._is_wrapped_number:
        zeros._is_wrapped_number = True
    return zeros


def forbid_forward(name: str, *values) -> None:
    """An operator with a derivatives.yaml entry but no forward formula."""
    if any_fw_grad(*values):
        raise NotImplementedError(_NOT_IMPLEMENTED.format(name=name))


def forbid_forward_out(name: str, *values) -> None:
    """An out= overload: PyTorch's codegen gives none of them a forward formula."""
    if any_fw_grad(*values):
        raise NotImplementedError(_NOT_IMPLEMENTED_OUT.format(name=name))


def forbid_forward_fallback(name: str, *values) -> None:
    """An operator without a derivatives.yaml entry (autogradNotImplementedFallback)."""
    if any_fw_grad(*values):
        raise NotImplementedError(_NOT_IMPLEMENTED_FALLBACK.format(name=name))


class fw_formulas_off:
    """Forward formulas run with forward grad mode off: their operators see the primals
    only (PyTorch passes them _fw_primal views; one level makes the two the same)."""

    __slots__ = ("prev",)

    def __enter__(self) -> None:
        state = per_thread.state
        self.prev = state.fw_grad_mode
        state.fw_grad_mode = False

    def __exit__(self, *exc) -> None:
        per_thread.state.fw_grad_mode = self.prev
