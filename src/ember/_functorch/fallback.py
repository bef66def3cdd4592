"""The FuncTorchBatched fallback: a loop over the batch, for operators without a batching rule.

Layer: _functorch. Mirrors aten/src/ATen/functorch/BatchedFallback.cpp (the for-loop
fallback and its in-place variant) and its registration at
LegacyBatchingRegistrations.cpp (fact A1: a fresh op's FuncTorchBatched entry is this
``[backend fallback]``). In: a call with a BatchedTensor of the current level. Out: the op
applied to each sample, results stacked along dim 0 (facts A10, A11).

Note [The fallback's warning]
-----------------------------
PyTorch warns with TORCH_WARN on every fallback call. A call that came through a
Python binding (``torch.histc``) turns it into a Python UserWarning at the user's line
(so the default filters show it once per call site); one that came through
``torch.ops`` (every custom op, ``torch.ops.aten.histc.default``) has no warning
handler, so c10 logs it to stderr in glog's form, every call (fact A11).
"""

from __future__ import annotations

import sys
import time

from .._c10.dispatch_key import DispatchKey
from .._c10.dispatch_key_set import full_after_bits
from .._c10.warning import torch_warn
from .._dispatch import builtin_fallbacks
from .._dispatch.dispatcher import caller_debug
from ..aten.native import at
from . import dynamic_layer
from .batched_tensor import batched_record, make_batched

_AFTER_BATCHED = full_after_bits(DispatchKey.FuncTorchBatched)
_SOURCE = "aten/src/ATen/functorch/BatchedFallback.cpp:82"


class _Switches:
    """The process-wide switches of torch._C._functorch (globalContext in PyTorch)."""

    enabled = True
    warn = True


def set_fallback_enabled(enabled: bool) -> None:
    _Switches.enabled = bool(enabled)


def is_fallback_enabled() -> bool:
    return _Switches.enabled


def set_warning_enabled(enabled: bool) -> None:
    _Switches.warn = bool(enabled)


def is_warning_enabled() -> bool:
    return _Switches.warn


def _called_through_ops() -> bool:
    """Whether no Python binding of ember's stands between this call and the user's code
    (See Note [The fallback's warning]): only the dispatcher, ``torch.ops`` and functorch."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if name is not None and not name.startswith(_NOT_BINDINGS):
            return not name.startswith("ember.")
        frame = frame.f_back
    return True


# Modules between the user and a kernel that are no Python binding (exec'd call paths,
# whose globals have no __name__, are skipped too).
_NOT_BINDINGS = ("ember._dispatch", "ember._ops", "ember._functorch", "ember._library")


def warn_fallback(name: str) -> None:
    if not _Switches.warn:
        return
    message = (
        f"There is a performance drop because we have not yet implemented the batching rule "
        f"for {name}. Please file us an issue on GitHub so that we can prioritize its "
        "implementation."
    )
    if _called_through_ops():
        now = time.time()
        stamp = time.strftime("%m%d %H:%M:%S", time.localtime(now))
        nanos = int((now % 1) * 1e9)
        sys.stderr.write(
            f"[W{stamp}.{nanos:09d} BatchedFallback.cpp:82] Warning: {message} "
            "(function warnFallback)\n"
        )
    else:
        torch_warn(message, _SOURCE)


def op_display_name(op) -> str:
    """``aten::histc``, ``aten::sin.out``: the name PyTorch's fallback messages print."""
    return op.name


def _is_out_or_view(schema) -> bool:
    if any(a.kwarg_only and a.alias_info is not None and a.alias_info.is_write
           for a in schema.arguments):  # fmt: skip
        return True
    return any(r.alias_info is not None and not r.alias_info.is_write for r in schema.returns)


def _is_inplace(schema) -> bool:
    first = schema.arguments[0] if schema.arguments else None
    return first is not None and first.alias_info is not None and first.alias_info.is_write


def _batched_args(args, level):
    """(batch size, per argument: None, (value, bdim), or for a list of tensors a list of
    those) for this level's BatchedTensors."""
    size = None
    found = []
    for arg in args:
        if isinstance(arg, (list, tuple)) and any(batched_record(a) for a in arg):
            parts = []
            for item in arg:
                record = batched_record(item)
                if record is not None and record.level == level:
                    parts.append((record.value, record.bdim))
                    size = record.value._sizes[record.bdim]
                else:
                    parts.append(None)
            found.append(parts if any(p is not None for p in parts) else None)
            continue
        record = batched_record(arg)
        if record is not None and record.level == level:
            found.append((record.value, record.bdim))
            size = record.value._sizes[record.bdim]
        else:
            found.append(None)
    return size, found


def _sample(arg, part, i):
    if part is None:
        return arg
    if isinstance(part, list):
        return type(arg)(_sample(a, p, i) for a, p in zip(arg, part))
    return at.select_int(part[0], part[1], i)


_INPLACE_MESSAGE = (
    "vmap: {name}(self, *extra_args) is not possible because there exists a Tensor `other` "
    "in extra_args that has more elements than `self`. This happened due to `other` being "
    "vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place "
    "operators instead of {name}. If said operator is being called inside the PyTorch "
    "framework, please file a bug report instead."
)


def inplace_unbatched_self_error(name: str = "inplace arithmetic") -> RuntimeError:
    return RuntimeError(_INPLACE_MESSAGE.format(name=name))


def batched_fallback(op, bits, *args):
    """batchedTensorForLoopFallback."""
    level = dynamic_layer.top().lvl
    size, found = _batched_args(args, level)
    if size is None:
        return op.redispatch(bits & _AFTER_BATCHED, *args)
    name = op_display_name(op)
    if not _Switches.enabled:
        raise RuntimeError(f"{name} hit the vmap fallback which is currently disabled")
    schema = op.schema
    if _is_out_or_view(schema):
        raise RuntimeError(
            f"Batching rule not implemented for {name}; the fallback path doesn't work on out= "
            "or view ops."
        )
    warn_fallback(name)
    inplace = _is_inplace(schema)
    if inplace and not isinstance(found[0], tuple):
        raise inplace_unbatched_self_error()
    results = []
    for i in range(size):
        sample = [_sample(arg, part, i) for arg, part in zip(args, found)]
        results.append(op.call(*sample))
    if inplace:
        return args[0]
    if not schema.returns:
        return None
    if len(schema.returns) == 1:
        return make_batched(at.stack(results, 0), 0, level)
    return tuple(
        make_batched(at.stack([r[k] for r in results], 0), 0, level)
        for k in range(len(schema.returns))
    )


builtin_fallbacks.override(
    DispatchKey.FuncTorchBatched, batched_fallback, caller_debug(0), keyset_arg="boxed_raw"
)
