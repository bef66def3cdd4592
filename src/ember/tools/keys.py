"""`ember keys`: the dispatch key order, with what ember has registered at each key.

Layer: tools. In: the DispatchKey enum (_c10/dispatch_key.py) and the dispatcher's
current registrations. Out: rows (value, name, kind, what ember has there), read
from the live tables, so the list is never kept by hand.
"""

from __future__ import annotations

from ember._c10.dispatch_key import (
    ALIAS_KEYS,
    BACKEND_NAMES,
    FUNCTIONALITY_NAMES,
    PER_BACKEND_FUNCTIONALITIES,
    BackendComponent,
    DispatchKey,
    key_name,
    to_runtime_per_backend_key,
)
from ember._c10.dispatch_key_set import TABLE_KEYS
from ember._dispatch.dispatcher import dispatcher

_USUAL_BACKENDS = ("CPU", "Meta")  # the backends ember computes on
_PER_BACKEND = {name for name, _, _ in PER_BACKEND_FUNCTIONALITIES}


def _usage() -> dict[DispatchKey, tuple[int, int, str]]:
    """Per runtime key: (ops with a kernel registered there, ops filled there from an alias
    kernel, the backend fallback's kind or "")."""
    direct = dict.fromkeys(TABLE_KEYS, 0)
    aliased = dict.fromkeys(TABLE_KEYS, 0)
    for name in dispatcher.all_op_names(sort=False):
        handle = dispatcher.find_op(name)
        if handle is None:
            continue
        for key, entry in zip(TABLE_KEYS, handle.entry.table()):
            if entry is None or entry[1] == "backend fallback":
                continue
            if entry[1] == "kernel":
                direct[key] += 1
            else:
                aliased[key] += 1
    usage = {}
    for key in TABLE_KEYS:
        fallback = dispatcher.backend_fallback(key) if key != DispatchKey.Undefined else None
        kind = ""
        if fallback is not None:
            kind = "fallthrough fallback" if fallback.is_fallthrough else "backend fallback"
        usage[key] = (direct[key], aliased[key], kind)
    return usage


def _describe(usage: tuple[int, int, str]) -> str:
    direct, aliased, fallback = usage
    parts = []
    if direct:
        parts.append(f"{direct} kernels")
    if aliased:
        parts.append(f"{aliased} from alias kernels")
    if fallback:
        parts.append(fallback)
    return ", ".join(parts)


def key_rows(all_backends: bool = False) -> list[tuple[int, str, str, str]]:
    """(value, name, kind, what ember has) in priority order, lowest first (as PyTorch numbers them)."""
    usage = _usage()
    rows = []
    for value, name in enumerate(FUNCTIONALITY_NAMES):
        if name == "EndOfFunctionalityKeys":
            continue
        key = DispatchKey[name]
        if name in _PER_BACKEND:
            rows.append((value, name, "per-backend functionality", ""))
            backends = None if all_backends else _USUAL_BACKENDS
            for backend in _backend_names(backends):
                runtime = to_runtime_per_backend_key(value, _backend_value(backend))
                rows.append((int(runtime), "  " + key_name(runtime), "runtime key",
                             _describe(usage.get(runtime, (0, 0, "")))))  # fmt: skip
        else:
            rows.append((value, name, "functionality", _describe(usage.get(key, (0, 0, "")))))
    for alias in ALIAS_KEYS:
        count = sum(1 for n in dispatcher.all_op_names(sort=False) if _has_alias(n, alias))
        rows.append(
            (int(alias), key_name(alias), "alias", f"{count} ops register here" if count else "")
        )
    return rows


def _has_alias(name: str, alias: DispatchKey) -> bool:
    handle = dispatcher.find_op(name)
    return handle is not None and handle.entry.has_kernel_for_key(alias)


def _backend_names(only):
    return [b for b in BACKEND_NAMES if only is None or b in only]


def _backend_value(backend: str) -> int:
    return int(BackendComponent[backend + "Bit"])
