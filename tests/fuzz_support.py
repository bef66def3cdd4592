"""Support for tests/test_fuzz_vs_torch.py: argument descriptors built the same way under
PyTorch and ember, a call run under one library with the state it touched snapshotted
before and after, and the comparison of the two outcomes.

What counts as an internal error, how messages are normalised and how results are
compared is defined once, in benchmarks/agreement/harness.py (the agreement runner
uses the same definitions).
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from agreement.harness import (  # noqa: E402 (after the path insert)
    Outcome,
    describe,
    describe_error,
    same_summary,
    summarise,
)

_NUMPY_DTYPES = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
    "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_,
    "complex64": np.complex64,
}  # fmt: skip
_DIFFERENTIABLE = ("float32", "float64", "float16", "bfloat16", "complex64")


# -- argument descriptors: plain data, materialised once per library ----------


@dataclass(frozen=True)
class T:
    """A tensor argument: shape, dtype, requires_grad, memory layout, device."""

    shape: tuple = (3,)
    dtype: str = "float32"
    requires_grad: bool = False
    layout: str = "contiguous"  # contiguous | transposed | expanded | strided
    device: str = "cpu"

    def build(self, lib):
        shape = tuple(self.shape)
        if self.layout == "transposed" and len(shape) >= 2:
            stored = shape[:-2] + (shape[-1], shape[-2])
        elif self.layout == "expanded" and shape and shape[0] != 0:
            stored = (1,) + shape[1:]
        elif self.layout == "strided" and shape:
            stored = shape[:-1] + (2 * shape[-1],)
        else:
            stored = shape
        base = _values(lib, stored, self.dtype, self.device)
        if self.requires_grad and self.dtype in _DIFFERENTIABLE:
            base.requires_grad_()
        if self.layout == "transposed" and len(shape) >= 2:
            return base.transpose(-1, -2)
        if self.layout == "expanded" and shape and shape[0] != 0:
            return base.expand(*shape)
        if self.layout == "strided" and shape:
            return base[..., ::2]
        return base


def _values(lib, shape, dtype: str, device: str):
    if device == "meta":
        return lib.empty(shape, dtype=getattr(lib, dtype), device="meta")
    count = math.prod(shape)
    raw = (np.arange(count, dtype=np.float64) % 7 - 3) * 0.5
    if dtype == "bool":
        array = raw > 0
    elif dtype == "complex64":
        array = (
            (raw + 0.5j * raw[::-1]).astype(np.complex64) if count else np.zeros(0, np.complex64)
        )
    elif dtype in ("float32", "float64", "float16", "bfloat16"):
        array = raw
    else:
        array = np.abs(raw * 2) if dtype == "uint8" else raw * 2
    # From Python values, as a user builds a tensor (from_numpy's storage would not be resizable).
    if count == 0:
        return lib.zeros(shape, dtype=getattr(lib, dtype))
    values = array.astype(_NUMPY_DTYPES.get(dtype, np.float32)).reshape(shape).tolist()
    return lib.tensor(values, dtype=getattr(lib, dtype))


@dataclass(frozen=True)
class D:
    """A dtype argument, by name (torch.float32, ...)."""

    name: str

    def build(self, lib):
        return getattr(lib, self.name)


@dataclass(frozen=True)
class Obj:
    """An arbitrary object no API accepts."""

    def build(self, lib):
        return object()


def materialise(value, lib):
    """A descriptor (or a structure of them) as a concrete argument for ``lib``."""
    if isinstance(value, T | D | Obj):
        return value.build(lib)
    if isinstance(value, list):
        return [materialise(v, lib) for v in value]
    if isinstance(value, tuple):
        return tuple(materialise(v, lib) for v in value)
    if isinstance(value, dict):
        return {k: materialise(v, lib) for k, v in value.items()}
    return value


# -- state that a failed call must leave as it found it -----------------------


def _tensors_in(value, lib, found):
    if isinstance(value, lib.Tensor):
        found.append(value)
    elif isinstance(value, list | tuple):
        for item in value:
            _tensors_in(item, lib, found)
    elif isinstance(value, dict):
        for item in value.values():
            _tensors_in(item, lib, found)
    return found


def tensor_state(tensor, lib):
    """Everything about a tensor a failed call may not change."""
    grad = tensor.grad if tensor.is_leaf else None
    values = None if str(tensor.device) == "meta" else tensor.detach().tolist()
    return (
        str(tensor.dtype).replace("ember", "torch"),
        tuple(tensor.shape),
        tuple(tensor.stride()),
        tensor.storage_offset(),
        tensor._version,
        tensor.requires_grad,
        repr(values),
        None if grad is None else repr(grad.tolist()),
    )


def global_state(lib, qualnames=()):
    """Grad / inference mode, the thread-local key sets, default dtype, mode stack, registrations."""
    C = lib._C
    return {
        "grad enabled": lib.is_grad_enabled(),
        "inference mode": lib.is_inference_mode_enabled(),
        "TLS included": str(C._dispatch_tls_local_include_set()),
        "TLS excluded": str(C._dispatch_tls_local_exclude_set()),
        "default dtype": str(lib.get_default_dtype()).replace("ember", "torch"),
        "dispatch modes": C._len_torch_dispatch_stack(),
        **{f"_dispatch_dump({q})": C._dispatch_dump(q) for q in qualnames},
    }


# -- one call under one library -----------------------------------------------


@dataclass
class Call:
    """``fn(lib, ctx, *args, **kwargs)`` with descriptor arguments; ``setup(lib, ctx)`` runs
    first and is not under test; ``qualnames`` are the operators whose registrations count
    (templates: ``{ns}`` is the example's namespace)."""

    fn: object
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    setup: object = None
    qualnames: tuple = ()
    label: str = ""

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.label}({', '.join(parts)})"


class Context:
    """A namespace of the example's own (the same under both libraries, fresh per example)
    and what a call leaves for cleaning up (libraries to destroy), kept apart from its state."""

    def __init__(self, ns: str) -> None:
        self.ns = ns
        self.libraries = []

    def library(self, lib, *args, **kwargs):
        made = lib.library.Library(*args, **kwargs)
        self.libraries.append(made)
        return made

    def close(self) -> None:
        for made in self.libraries:
            try:
                made._destroy()
            except Exception:  # noqa: S110 (destroyed already)
                pass
        self.libraries.clear()


@dataclass
class Run:
    outcome: object
    changed: dict  # what differs after the call: name -> (before, after)


def run(call: Call, lib, ns: str, package_dir: str, user_code: tuple) -> Run:
    ctx = Context(ns)
    qualnames = [q.format(ns=ns) for q in call.qualnames]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if call.setup is not None:
                call.setup(lib, ctx)
            args = materialise(call.args, lib)
            kwargs = materialise(call.kwargs, lib)
            tensors = _tensors_in((args, kwargs), lib, [])
            before = _state(tensors, lib, qualnames)
            try:
                value = call.fn(lib, ctx, *args, **kwargs)
                outcome = describe_result(value, lib)
            except Exception as error:  # the outcome under test
                outcome = describe_error(error, package_dir, user_code)
            after = _state(tensors, lib, qualnames)
    finally:
        ctx.close()
        lib.set_grad_enabled(True)
    changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    return Run(outcome, changed)


def _state(tensors, lib, qualnames):
    state = global_state(lib, qualnames)
    for index, tensor in enumerate(tensors):
        state[f"argument tensor {index}"] = tensor_state(tensor, lib)
    return state


def describe_result(value, lib):
    return Outcome(False, summary=summarise(value, lib))


def same_result(theirs, ours) -> bool:
    return same_summary(theirs.summary, ours.summary)


__all__ = ["Call", "D", "Obj", "T", "describe", "run", "same_result"]
