"""torch._C._functorch: the functorch-level C surface the Python transforms and tests use.

Layer: _functorch. Mirrors torch/csrc/functorch/init.cpp (the functions bound there and
the TransformType / RandomnessType enums). In: tensors and levels. Out: wrappers,
their parts, the layer stack's state; ``dump_tensor`` / ``dump_dls`` print as PyTorch's do.
"""

from __future__ import annotations

from .._c10.dispatch_key import DispatchKey
from .._c10.dispatch_key_set import keys_bits
from .._functionalization import api as _functional_api
from . import dynamic_layer, fallback
from .batched_tensor import BatchedRecord
from .interpreter import RandomnessType, TransformType
from .unwrap import add_batch_dim, remove_batch_dim
from .vmap_interpreter import VmapInterpreter
from .wrappers import dump_tensor as _dump_tensor_text

__all__ = [
    "TransformType", "RandomnessType", "_add_batch_dim", "_remove_batch_dim",
    "_vmap_increment_nesting", "_vmap_decrement_nesting", "maybe_get_level",
    "maybe_get_bdim", "get_unwrapped", "is_batchedtensor", "is_gradtrackingtensor",
    "is_functionaltensor", "current_level", "maybe_current_level", "get_interpreter_stack",
    "peek_interpreter_stack", "dump_tensor", "dump_dls", "_set_vmap_fallback_enabled",
    "_is_vmap_fallback_enabled", "_set_vmap_fallback_warning_enabled",
    "_is_vmap_fallback_warning_enabled",
]  # fmt: skip

_FUNCTIONALIZE_BITS = keys_bits([DispatchKey.Functionalize])

_add_batch_dim = add_batch_dim
_remove_batch_dim = remove_batch_dim


def _vmap_increment_nesting(batch_size: int, randomness: str) -> int:
    """Push a vmap layer; returns its level."""
    level = dynamic_layer.next_level()
    dynamic_layer.push(VmapInterpreter(level, batch_size, randomness))
    return level


def _vmap_decrement_nesting() -> int:
    """Pop the innermost layer; returns its level."""
    return dynamic_layer.pop().lvl


def _record(tensor):
    return getattr(tensor, "_functorch", None)


def maybe_get_level(tensor) -> int:
    record = _record(tensor)
    if record is None:  # a functional tensor's level, set by functionalize()'s layer
        level = _functional_api.functional_level(tensor)
        return -1 if level is None else level
    return record.level


def maybe_get_bdim(tensor) -> int:
    record = _record(tensor)
    return record.bdim if isinstance(record, BatchedRecord) else -1


def get_unwrapped(tensor):
    record = _record(tensor)
    if record is None:
        if _functional_api.functional_level(tensor) is not None:
            return _functional_api.from_functional(tensor)
        raise RuntimeError("No wrappers present!")
    return record.value


def is_batchedtensor(tensor) -> bool:
    return isinstance(_record(tensor), BatchedRecord)


def is_gradtrackingtensor(tensor) -> bool:
    record = _record(tensor)
    return record is not None and record.kind == "grad"


def is_functionaltensor(tensor) -> bool:
    record = _record(tensor)
    if record is not None:
        return record.kind == "functional"
    return bool(getattr(tensor, "_key_bits", 0) & _FUNCTIONALIZE_BITS)


def current_level() -> int:
    level = dynamic_layer.current_level()
    if level is None:
        raise RuntimeError("functorch: no transform is active (the dynamic layer stack is empty)")
    return level


def maybe_current_level() -> int | None:
    return dynamic_layer.current_level()


def get_interpreter_stack():
    """The live interpreters, outermost first, or None when no transform is active."""
    layers = dynamic_layer.layers()
    return list(layers) if layers else None


def peek_interpreter_stack():
    return dynamic_layer.top()


def dump_tensor(tensor) -> None:
    print(_dump_tensor_text(tensor))


def dump_dls() -> None:
    print(dynamic_layer.dump_dls())


_set_vmap_fallback_enabled = fallback.set_fallback_enabled
_is_vmap_fallback_enabled = fallback.is_fallback_enabled
_set_vmap_fallback_warning_enabled = fallback.set_warning_enabled
_is_vmap_fallback_warning_enabled = fallback.is_warning_enabled

from .functionalize import (  # noqa: E402,F401 (functionalize()'s bindings)
    _func_decrement_nesting,
    _func_increment_nesting,
    _propagate_functional_input_mutation,
    _unwrap_functional_tensor,
    _wrap_functional_tensor,
)

__all__ += [
    "_func_increment_nesting", "_func_decrement_nesting", "_wrap_functional_tensor",
    "_unwrap_functional_tensor", "_propagate_functional_input_mutation",
]  # fmt: skip


# -- the grad / jvp levels (wfunc) -------------------------------------------------------

from .._c10.grad_mode import is_grad_enabled as _is_grad_enabled  # noqa: E402
from .._c10.thread_state import per_thread as _per_thread  # noqa: E402
from ..autograd.variable import functorch_tls  # noqa: E402
from .grad_interpreter import GradInterpreter, JvpInterpreter  # noqa: E402
from .tensor_wrapper import grad_record, make_tensor_wrapper, unwrap_for_grad  # noqa: E402


def _grad_increment_nesting() -> int:
    """Push a grad layer (remembering the grad mode); returns its level."""
    level = dynamic_layer.next_level()
    dynamic_layer.push(GradInterpreter(level, _is_grad_enabled()))
    return level


def _jvp_increment_nesting() -> int:
    """Push a jvp layer (remembering the forward grad mode); returns its level."""
    level = dynamic_layer.next_level()
    dynamic_layer.push(JvpInterpreter(level, _per_thread.state.fw_grad_mode))
    return level


def _grad_decrement_nesting() -> int:
    """Pop the innermost layer; its wrappers are dead from now on. Returns its level."""
    interpreter = dynamic_layer.pop()
    interpreter.is_alive = False
    return interpreter.lvl


_jvp_decrement_nesting = _grad_decrement_nesting


def _wrap_for_grad(tensor, level: int):
    """``tensor`` wrapped as a GradTrackingTensor of ``level`` (the live layer at it)."""
    interpreter = next(i for i in dynamic_layer.layers() if i.lvl == level)
    return make_tensor_wrapper(tensor, level, interpreter)


def _unwrap_for_grad(tensor, level: int):
    return unwrap_for_grad(tensor, level)


def get_inplace_requires_grad_allowed() -> bool:
    return functorch_tls.inplace_requires_grad_allowed


def set_inplace_requires_grad_allowed(allowed: bool) -> None:
    functorch_tls.inplace_requires_grad_allowed = bool(allowed)


def is_dead_tensor_wrapper(tensor) -> bool:
    record = grad_record(tensor)
    return record is not None and not record.is_alive()


__all__ += ["_grad_increment_nesting", "_grad_decrement_nesting", "_jvp_increment_nesting",
            "_jvp_decrement_nesting", "_wrap_for_grad", "_unwrap_for_grad",
            "is_dead_tensor_wrapper", "get_inplace_requires_grad_allowed",
            "set_inplace_requires_grad_allowed"]  # fmt: skip
