"""Runtime of the generated ADInplaceOrView kernels: version bumps and view bookkeeping.

Layer: aten. In: results of in-place, out= and view operators, redispatched
below ADInplaceOrView. Out: bumped version counters; views that know their
base. Mirrors torch/csrc/autograd/VariableTypeUtils.h (increment_version,
as_view) and the kernels gen_inplace_or_view_type.py writes.
The autograd layer adds its part of a view's bookkeeping through
`view_hooks` (creation meta, backward view functions).
"""

from __future__ import annotations

from ember._c10.dispatch_key_set import after_ADInplaceOrView_keyset
from ember._c10.grad_mode import autograd_state
from ember._c10.thread_state import per_thread  # noqa: F401 (the generated kernels take it from here)
from ember._c10.tls import BELOW_AD_INPLACE_OR_VIEW

AFTER_AD_INPLACE_OR_VIEW = after_ADInplaceOrView_keyset.raw_repr()
# What the generated kernels add to the exclude set while they redispatch
# (AutoDispatchBelowADInplaceOrView, spelled out inline there).
BELOW = BELOW_AD_INPLACE_OR_VIEW
_INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)

# Called as hook(op_name, base, view) for every view made; autograd registers one. A hook
# returns None, or the tensor that stands for the view from then on.
view_hooks: list = []


def _bump(tensor) -> None:
    if tensor is None:
        return
    if isinstance(tensor, (list, tuple)):
        for item in tensor:
            _bump(item)
        return
    if not tensor._is_inference:
        tensor.version_counter().version += 1
    elif not autograd_state.inference_mode:  # VariableVersion::bump (facts §7.3)
        raise RuntimeError(_INFERENCE_INPLACE)


def finish_inplace(result, *mutated):
    """increment_version for every argument the op wrote."""
    for tensor in mutated:
        counter = getattr(tensor, "_version_counter", None)
        if counter is not None and not tensor._is_inference:
            counter.version += 1  # the common case: a normal tensor whose counter exists
        else:
            _bump(tensor)
    return result


def _as_view(op_name: str, base, view):
    """The view, or what a hook returned in its place (a non-differentiable view that a
    dispatch mode made through detach)."""
    root = base if base._base is None else base._base
    view._base = root
    counter = base._version_counter  # as_view: the view counts its base's versions
    view._version_counter = counter if counter is not None else base.version_counter()
    for hook in view_hooks:
        replacement = hook(op_name, base, view)
        if replacement is not None:
            view = replacement
    return view


def finish_view(op_name: str, base, result):
    """as_view: each output remembers the tensor it is a view of -- unless ``base`` is an
    inference tensor, whose views autograd does not record (as_view in PyTorch's
    VariableTypeUtils.h returns such a view unchanged)."""
    if base._is_inference or result is base:  # (a composite kernel handing back its input)
        return result
    if isinstance(result, (list, tuple)):
        for view in result:
            _as_view(op_name, base, view)
        return result
    return _as_view(op_name, base, result)
