"""ember.dispatch: record the route of every call (``trace``) and say why a kernel is chosen (``explain``).

Layer: dispatch, a face below only ember.tools (imports _c10, _dispatch, _explain and
the renderers of _trace_views). There is no PyTorch counterpart: PyTorch's
``TORCH_SHOW_DISPATCH_TRACE`` prints only in debug builds and never says why
(facts §11); this module records, per dispatch, the facts behind the choice.
In: the dispatcher's recorders (see _dispatch/trace.py). Out: ``Trace`` (a tree
of ``DispatchEvent``), renderable as PyTorch's debug-build text, a rich tree,
JSON (``TRACE_SCHEMA_VERSION``, schema file ember/tools/trace.schema.json) and
HTML; ``explain()`` returns an ``Explanation`` (see ember/_explain.py).

Recording follows Note [Dispatch tracing costs nothing when off] in
_dispatch/trace.py: nothing here runs unless a trace is active.
"""

from __future__ import annotations

import linecache
import os
import sys
import threading
from dataclasses import dataclass, field

from ._c10.dispatch_key import key_name
from ._c10.dispatch_key_set import (
    FUNCTIONALITY_MASK,
    raw_highest_priority_key,
    raw_keys,
    raw_table_index,
)
from ._c10.grad_mode import autograd_state
from ._c10.tls import local_state
from ._dispatch import trace as _trace
from ._explain import Explanation, explain, kernel_name, names
from ._trace_views.render import trace_tree
from ._trace_views.route import trace_page

__all__ = ["trace", "explain", "Trace", "DispatchEvent", "Explanation", "TRACE_SCHEMA_VERSION"]

TRACE_SCHEMA_VERSION = "ember.dispatch.trace/1"
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_TOOLS_DIR = os.path.join(_PACKAGE_DIR, "tools") + os.sep  # ember's tools call ember as users do
_VALUE_PREVIEW_LIMIT = 16  # results with at most this many elements keep their values


@dataclass
class DispatchEvent:
    """One dispatch: a ``[call]`` (key set computed from the arguments) or a ``[redispatch]``."""

    kind: str  # "call" or "redispatch"
    op: str
    depth: int
    arguments: list[tuple[str, int]]  # (argument name, its key bits) per tensor argument
    tls_included: int
    tls_excluded: int
    keys_before_mask: int  # ((args | included) - excluded); the used set itself for redispatch
    dispatch_keys: int  # the key set the dispatcher looked up
    kernel_name: str | None
    kernel_label: str | None
    kernel_debug: str | None
    fallthrough: bool
    grad_mode: bool
    inference_mode: bool
    caller: str | None = None  # FILE:LINE of the Python code, for calls made outside ember
    source: str | None = None  # that line's text
    binding: str | None = None  # the ember function that made the call (module.function)
    schema: str | None = None  # the operator's schema, for top-level calls
    elapsed_ns: int = 0
    result: list[dict] | None = None
    error: str | None = None
    children: list[DispatchEvent] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"[{self.kind}]"

    @property
    def key(self) -> str:
        return key_name(raw_highest_priority_key(self.dispatch_keys))

    @property
    def mask_dropped(self) -> list[str]:
        kept = set(raw_keys(self.dispatch_keys))
        return [key_name(k) for k in raw_keys(self.keys_before_mask) if k not in kept]

    def text_line(self) -> str:
        """The line PyTorch's debug build (and EMBER_SHOW_DISPATCH_TRACE=1) prints."""
        return _trace.format_line(self.label, self.op, self.dispatch_keys, self.depth)

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def to_dict(self) -> dict:
        """The JSON form (one event of TRACE_SCHEMA_VERSION)."""
        return {
            "kind": self.kind,
            "op": self.op,
            "depth": self.depth,
            "arguments": [{"name": n, "keys": names(bits)} for n, bits in self.arguments],
            "tls_included": names(self.tls_included),
            "tls_excluded": names(self.tls_excluded),
            "keys_before_mask": names(self.keys_before_mask),
            "mask_dropped": self.mask_dropped,
            "dispatch_keys": names(self.dispatch_keys),
            "key": self.key,
            "kernel": None
            if self.kernel_name is None
            else {
                "name": self.kernel_name,
                "label": self.kernel_label,
                "registered_at": self.kernel_debug,
                "fallthrough": self.fallthrough,
            },
            "grad_mode": self.grad_mode,
            "inference_mode": self.inference_mode,
            "caller": self.caller,
            "source": self.source,
            "binding": self.binding,
            "schema": self.schema,
            "elapsed_ns": self.elapsed_ns,
            "result": self.result,
            "error": self.error,
            "children": [child.to_dict() for child in self.children],
        }


class Trace:
    """The recorded dispatches of one ``with ember.dispatch.trace():`` block, as a forest."""

    def __init__(self) -> None:
        self.events: list[DispatchEvent] = []  # top-level dispatches, in order
        self._stack: list[DispatchEvent] = []
        self._thread = threading.get_ident()
        self._base_depth = 0
        self._busy = False
        self._remove = None

    # -- the context manager ------------------------------------------------------
    def __enter__(self) -> Trace:
        self._thread = threading.get_ident()
        self._base_depth = _trace._depth.value
        self._remove = _trace.add_recorder(self)
        return self

    def __exit__(self, *exc: object) -> None:
        remove, self._remove = self._remove, None
        if remove is not None:
            remove()

    # -- the recorder protocol (see _dispatch/trace.py) ------------------------------
    def begin(self, label, handle, bits, args, depth):
        if self._busy or handle is None or threading.get_ident() != self._thread:
            return None
        self._busy = True
        try:
            event = self._event(label, handle, bits, args, depth - self._base_depth)
        finally:
            self._busy = False
        (self._stack[-1].children if self._stack else self.events).append(event)
        self._stack.append(event)
        return event

    def end(self, event, result, error, elapsed_ns) -> None:
        if event is None:
            return
        self._stack.pop()
        event.elapsed_ns = elapsed_ns
        if error is not None:
            event.error = (
                f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
            )
            return
        self._busy = True
        try:
            event.result = _describe_result(result, with_values=not self._stack)
        finally:
            self._busy = False

    def _event(self, label, handle, bits, args, depth) -> DispatchEvent:
        schema = handle.entry.schema
        arguments = []
        for index, is_list in handle._positions:
            if index >= len(args) or args[index] is None:
                continue
            value = args[index]
            if is_list:
                arg_bits = 0
                for item in value:
                    arg_bits |= getattr(item, "_key_bits", 0) if item is not None else 0
            else:
                arg_bits = getattr(value, "_key_bits", 0)
            name = schema.arguments[index].name if schema is not None else f"arg{index}"
            arguments.append((name, arg_bits))
        included, excluded = local_state.included, local_state.excluded
        if label == "[call]":
            union = 0
            for _, arg_bits in arguments:
                union |= arg_bits
            before_mask = (union | included) & ~(excluded & FUNCTIONALITY_MASK)
        else:
            before_mask = bits
        entry = handle.entry.lookup_index(raw_table_index(bits))
        kernel = entry[0] if entry is not None else None
        event = DispatchEvent(
            kind=label.strip("[]"),
            op=handle.name,
            depth=depth,
            arguments=arguments,
            tls_included=included,
            tls_excluded=excluded,
            keys_before_mask=before_mask,
            dispatch_keys=bits,
            kernel_name=kernel_name(kernel) if kernel is not None else None,
            kernel_label=entry[1] if entry is not None else None,
            kernel_debug=kernel.debug if kernel is not None else None,
            fallthrough=bool(kernel is not None and kernel.is_fallthrough),
            grad_mode=autograd_state.grad_mode,
            inference_mode=autograd_state.inference_mode,
        )
        if not self._stack:
            event.caller, event.source, event.binding = _caller()
            event.schema = str(schema) if schema is not None else None
        return event

    # -- reading and rendering -------------------------------------------------------
    def walk(self):
        for event in self.events:
            yield from event.walk()

    def text(self) -> str:
        """PyTorch's debug-build trace: the lines EMBER_SHOW_DISPATCH_TRACE=1 prints."""
        return "".join(event.text_line() + "\n" for event in self.walk())

    def to_dict(self) -> dict:
        return {
            "schema_version": TRACE_SCHEMA_VERSION,
            "events": [event.to_dict() for event in self.events],
        }

    def to_json(self, indent: int | None = 1) -> str:
        import json

        return json.dumps(self.to_dict(), indent=indent)

    def tree(self):
        """A rich Tree of the dispatches (needs the ``rich`` package)."""
        return trace_tree(self.to_dict())

    def to_html(self, title: str = "ember dispatch trace") -> str:
        """The route view (one self-contained page) of every top-level call."""
        return trace_page(self.to_dict(), title)

    def __str__(self) -> str:
        return self.text()


def trace() -> Trace:
    """Record every dispatch made by this thread inside ``with ember.dispatch.trace() as t:``."""
    return Trace()


def _caller() -> tuple[str | None, str | None, str | None]:
    """(FILE:LINE, source line, binding) of the first frame outside ember, for a top-level call."""
    frame = sys._getframe(2)
    binding = None
    while frame is not None and _is_internal(frame.f_code.co_filename):
        module = frame.f_globals.get("__name__", "")
        if not module.startswith(("ember._dispatch", "ember.dispatch")):
            binding = f"{module}.{frame.f_code.co_name}"
        frame = frame.f_back
    if frame is None:
        return None, None, binding
    filename, line = frame.f_code.co_filename, frame.f_lineno
    source = linecache.getline(filename, line).strip() or None
    return f"{filename}:{line}", source, binding


def _is_internal(filename: str) -> bool:
    return filename.startswith(_PACKAGE_DIR) and not filename.startswith(_TOOLS_DIR)


def _describe_result(result, with_values: bool) -> list[dict] | None:
    """Shape, dtype, device, grad_fn (and small values at top level) of each tensor returned."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    described = []
    for item in items:
        if not hasattr(item, "_key_bits") or not hasattr(item, "dtype"):
            continue
        grad_fn = getattr(item, "grad_fn", None)
        info = {
            "shape": list(item.shape),
            "dtype": str(item.dtype),
            "device": str(item.device),
            "requires_grad": bool(getattr(item, "requires_grad", False)),
            "grad_fn": type(grad_fn).__name__ if grad_fn is not None else None,
        }
        if with_values and str(item.device) != "meta" and item.numel() <= _VALUE_PREVIEW_LIMIT:
            values = _values(item)
            if values is not None:
                info["values"] = values
        described.append(info)
    return described if described or result is not None else None


def _values(tensor) -> list | float | int | bool | None:
    """The values as nested lists, read from storage without dispatching (JSON-safe: a
    non-finite float becomes its string); None when the dtype has no plain number form."""
    import math

    import numpy as np

    try:
        array = tensor.ndarray()
    except Exception:  # no readable storage: the values are simply not shown
        return None
    if array.dtype.kind in "biu":
        return array.tolist()
    if array.dtype.kind in "c":
        return None
    try:
        floats = np.asarray(array, dtype=np.float64).tolist()
    except (TypeError, ValueError):
        return None

    def safe(value):
        if isinstance(value, list):
            return [safe(v) for v in value]
        return value if math.isfinite(value) else str(value)

    return safe(floats)
