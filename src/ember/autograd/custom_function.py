"""What Function.apply does around the user's forward: its arguments and its outputs.

Layer: autograd. In: a Function subclass's call (arguments, what forward returned,
the ctx). Out: the forward's arguments as positional inputs, and its outputs as the
caller sees them, linked to the ctx (which is the node). Mirrors
torch/csrc/autograd/python_function.cpp (resolve_kwargs_to_positional,
process_outputs, _mark_dirty, _parse_non_differentiable, _get_tensors_to_save,
_save_variables) and torch/csrc/autograd/custom_function.cpp
(_process_backward_mode_ad). PyTorch raises some of these errors through
THPUtils_setError, which reads only its first argument as the format: their text
stops where PyTorch's does.
"""

from __future__ import annotations

import warnings

from ember._c10.tensor_impl import TensorImpl
from ember.aten.python_arg_convert import tp_name

from .graph import InputMetadata
from .saved_variable import SavedVariable
from .variable_type import rebase_history
from .views import CreationMeta, grad_fn_of

_RETURNED_AS_IS = (
    "An input that has been returned as-is as output is being saved for backward. This is "
    "not supported if you override setup_context. You should return and save a view of the "
    "input instead, e.g. with x.view_as(x) or setup ctx inside the forward function itself."
)
_DIRTY_VIEW_MULTIPLE = (
    "If your Function modifies inplace an input that is a view of another Tensor, your "
    "Function cannot return more than one Tensor. This is not supported by the current "
    "autograd engine. You should either make sure the input is not a view (using .clone() "
    "for example) or make your Function only return one Tensor (potentially splitting it into "
    "two Functions: one doing the inplace that returns a single Tensor and a second one that "
    "does the other operations). You can ask on the forum https://discuss.pytorch.org/ if you "
    "need help to do this change."
)
_DIRTY_NOT_RETURNED = (
    "Some elements marked as dirty during the forward method were not returned as output. The "
    "inputs that are modified inplace must all be outputs of the Function."
)


class UndefinedInput:
    """Node::undefined_input(): the metadata slot of an output that is not a differentiable
    tensor (no gradient flows into it)."""

    __slots__ = ()
    was_default_constructed = True
    shape = dtype = device = None


UNDEFINED_INPUT = UndefinedInput()


def resolve_kwargs_to_positional(cls, args: tuple, kwargs: dict, has_ctx: bool) -> tuple:
    """Keyword arguments of apply() moved into forward's positional slots, read from its
    code object (positional parameters only; no defaults), with PyTorch's errors."""
    if not kwargs:
        return args
    code = cls.forward.__code__
    offset = 1 if has_ctx else 0
    names = code.co_varnames[offset : code.co_argcount]
    last = len(args) - 1
    for key in kwargs:
        if key not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{key}'")
        index = names.index(key)
        if index < len(args):
            raise TypeError(f"forward() got multiple values for argument '{key}'")
        last = max(last, index)
    if last + 1 > len(names):
        raise TypeError(
            f"forward() takes {len(names)} positional arguments but {last + 1} were given"
        )
    result = list(args) + [_MISSING] * (last + 1 - len(args))
    for key, value in kwargs.items():
        result[names.index(key)] = value
    for position, value in enumerate(result):
        if value is _MISSING:
            raise TypeError(
                f"forward() missing required argument: '{names[position]}' (position {position})"
            )
    return tuple(result)


_MISSING = object()
_NONE: frozenset = frozenset()  # no tensor marked


def _tensors_to_save(ctx, overridden_setup: bool, executable: bool, to_save_ids: set) -> list:
    saved_for_forward = ctx.__dict__.get("saved_for_forward")
    if saved_for_forward and overridden_setup:
        to_save_ids.update(id(t) for t in saved_for_forward if isinstance(t, TensorImpl))
    result = []
    to_save = ctx.__dict__.pop("to_save", None)
    for index, obj in enumerate(to_save or ()):
        if obj is None:
            result.append(None)
        elif isinstance(obj, TensorImpl):
            if overridden_setup:
                to_save_ids.add(id(obj))
            if executable:
                result.append(obj)
        elif executable:
            raise TypeError(
                f"save_for_backward can only save variables, but argument {index} is of type "
                + tp_name(obj)
            )
    return result


def _non_differentiable(ctx) -> set:
    found = set()
    for obj in ctx.__dict__.pop("non_differentiable", None) or ():
        if not isinstance(obj, TensorImpl):
            raise RuntimeError("mark_non_differentiable only accepts variable arguments, but got ")
        found.add(id(obj))
    return found


def _mark_dirty(ctx) -> set:
    """The dirty tensors' ids; each one's version is bumped (as PyTorch, one by one)."""
    dirty = set()
    for obj in ctx.__dict__.pop("dirty_tensors", None) or ():
        if not isinstance(obj, TensorImpl):
            raise RuntimeError("mark_dirty can only accept variables, but argument ")
        dirty.add(id(obj))
        obj.version_counter().bump()
    return dirty


def _is_view(tensor) -> bool:
    return tensor._view_info is not None and tensor._base is not None


def _view_as_self(tensor):
    from .grad_mode import no_grad

    with no_grad():
        return tensor.view_as(tensor)


def _set_history(ctx, var, nr, count, is_input, is_modified, differentiable, saved_as_is):
    """set_history of _process_backward_mode_ad: the output as the caller gets it."""
    if not differentiable:
        if not var._requires_grad:
            if is_input and not is_modified:
                if saved_as_is:
                    raise RuntimeError(_RETURNED_AS_IS)
                var = _view_as_self(var)
            return var
        if is_input:  # a detached alias, instead of changing the input's requires_grad
            return var.detach()
        if not _is_view(var):
            var.detach_()
        return var
    if is_modified:
        if var._requires_grad and grad_fn_of(var) is None:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation."
            )
        if not is_input:
            warnings.warn(
                "Only input Tensors should be given to ctx.mark_dirty(). If a Tensor is not an "
                "input, there is no need to pass it to mark_dirty().",
                UserWarning,
                stacklevel=4,
            )
        view = _is_view(var)
        if view and count > 1:
            raise RuntimeError(_DIRTY_VIEW_MULTIPLE)
        var._grad = None
        if view:  # the only output: CopySlices records it as input 0 again
            del ctx._input_metadata[nr]
            rebase_history(var, ctx)
        else:
            var._grad_fn = ctx
            var._output_nr = nr
            var._requires_grad = True
        return var
    if is_input:
        if saved_as_is:
            raise RuntimeError(_RETURNED_AS_IS)
        var = _view_as_self(var)
    var._grad_fn = ctx
    var._output_nr = nr
    var._requires_grad = True
    return var


def _one_fresh_output(ctx, input_tensors, var):
    """process_outputs for its usual case: a recording apply whose forward returned one new
    (not an input, not a view) floating tensor and marked nothing but saved tensors. The
    same steps as the general path, without its sets; None when the case does not hold."""
    marks = ctx.__dict__
    if (
        "non_differentiable" in marks
        or "dirty_tensors" in marks
        or "saved_for_forward" in marks
        or var._view_info is not None
        or not (var.dtype.is_floating_point or var.dtype.is_complex)
    ):
        return None
    for tensor in input_tensors:
        if tensor is var:
            return None
    saved = _tensors_to_save(ctx, False, True, set()) if "to_save" in marks else ()
    ctx._input_metadata = [InputMetadata(var)]
    var._grad_fn = ctx
    var._output_nr = 0
    var._requires_grad = True
    ctx._output_info = [(var._sizes, var.dtype, var.device)]
    ctx._saved = (
        [SavedVariable(t, is_output=t is var) if t is not None else None for t in saved]
        if saved
        else []
    )
    return var


def process_outputs(ctx, input_tensors, raw_output, executable: bool, overridden_setup: bool):
    """The outputs of one apply: wrapped, linked to ctx (when it records), saved for it."""
    if executable and not overridden_setup and isinstance(raw_output, TensorImpl):
        result = _one_fresh_output(ctx, input_tensors, raw_output)
        if result is not None:
            return result
    single = not isinstance(raw_output, tuple)
    raw = (raw_output,) if single else raw_output
    count = len(raw)
    metadata = ctx._input_metadata = []
    to_save_ids: set = set()
    marks = ctx.__dict__  # what forward marked; most forwards mark nothing
    tensors_to_save = (
        _tensors_to_save(ctx, overridden_setup, executable, to_save_ids)
        if "to_save" in marks or "saved_for_forward" in marks
        else []
    )
    non_differentiable = _non_differentiable(ctx) if "non_differentiable" in marks else _NONE
    dirty = _mark_dirty(ctx) if "dirty_tensors" in marks else _NONE
    input_ids = set(map(id, input_tensors))
    outputs = []
    output_ids = set()
    differentiable_count = 0
    for nr, var in enumerate(raw):
        if not isinstance(var, TensorImpl):
            if executable:
                metadata.append(UNDEFINED_INPUT)
            outputs.append(var)
            continue
        key = id(var)
        is_input = key in input_ids
        is_modified = key in dirty
        differentiable = (
            executable
            and key not in non_differentiable
            and (var.dtype.is_floating_point or var.dtype.is_complex)
        )
        if executable:
            metadata.append(InputMetadata(var) if differentiable else UNDEFINED_INPUT)
        if differentiable and not is_input and not is_modified:  # _set_history's usual case
            var._grad_fn = ctx
            var._output_nr = nr
            var._requires_grad = True
        else:
            var = _set_history(
                ctx, var, nr, count, is_input, is_modified, differentiable, key in to_save_ids
            )
        if var._view_info is not None and not (is_input and is_modified) and _is_view(var):
            var._view_info.creation_meta = CreationMeta.IN_CUSTOM_FUNCTION
        differentiable_count += differentiable
        if dirty:
            output_ids.add(key)
        outputs.append(var)
    if differentiable_count > 1:
        for var in outputs:
            if isinstance(var, TensorImpl) and _is_view(var):
                var._view_info.creation_meta = CreationMeta.MULTI_OUTPUT_NODE
    if dirty and not dirty <= output_ids:
        raise RuntimeError(_DIRTY_NOT_RETURNED)
    if executable:
        ctx._output_info = [
            (v._sizes, v.dtype, v.device) if isinstance(v, TensorImpl) else None for v in outputs
        ]
        if tensors_to_save:
            wrapped = {id(v) for v in outputs if isinstance(v, TensorImpl)}
            ctx._saved = [
                SavedVariable(t, is_output=id(t) in wrapped) if t is not None else None
                for t in tensors_to_save
            ]
        else:
            ctx._saved = []
    if "saved_for_forward" in marks:
        del marks["saved_for_forward"]
    return outputs[0] if single else tuple(outputs)
