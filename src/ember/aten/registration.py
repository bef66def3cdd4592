"""How the generated aten files register operators and kernels with the dispatcher.

Layer: aten. In: schema text and kernels from aten/_generated/. Out: dispatcher
registrations whose debug string points at the generated line that made them
(`registered at .../register_cpu.py:123`), as PyTorch's point at RegisterCPU.cpp.
Mirrors the TORCH_LIBRARY(aten, m) / TORCH_LIBRARY_IMPL(aten, CPU, m) blocks.
"""

from __future__ import annotations

import sys

from ember._c10.device import as_device, device_lazy_init, no_dispatch_key
from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import key_bits
from ember._dispatch.dispatcher import dispatcher
from ember._dispatch.kernel import KernelFunction
from ember._dispatch.schema_parser import parse_schema

# name -> tags, for OpOverload.tags (ember._ops reads it).
ATEN_TAGS: dict[str, tuple[str, ...]] = {}


def _debug(depth: int = 2) -> str:
    frame = sys._getframe(depth)
    return f"registered at {frame.f_code.co_filename}:{frame.f_lineno}"


_library: list = []  # the aten namespace's one DEF library, registered by the first define


def define(schema: str, tags: tuple[str, ...] = ()) -> None:
    if not _library:  # TORCH_LIBRARY(aten, m): a second DEF library of aten is refused
        _library.append(dispatcher.register_library("aten", _debug()))
    parsed = parse_schema("aten::" + schema)
    dispatcher.register_def(parsed, _debug(), "FROM_SCHEMA", tags=tags)
    ATEN_TAGS[parsed.qualified_name] = tags


def impl(name: str, key: str, fn, keyset_arg: str | None = None) -> None:
    kernel = KernelFunction(fn, keyset_arg=keyset_arg, debug=_debug(), name=fn.__name__)
    dispatcher.register_impl("aten::" + name, DispatchKey[key], kernel, kernel.debug)


_BACKEND_BITS = {
    "cpu": key_bits(DispatchKey.CPU),
    "meta": key_bits(DispatchKey.Meta),
}


def backend_select_bits(keyset: int, dtype, layout, device) -> int:
    """computeDispatchKey(dtype, layout, device): the backend a factory function runs on.

    Like PyTorch's generated BackendSelect kernels, the redispatch carries only
    the backend key (nothing else of a factory call's key set lies below it). A device
    ember has no backend for dispatches to its key, where no kernel is (Note [Devices
    ember has no backend for]), after its accelerator's lazy initialisation refused.
    """
    if layout is not None and getattr(layout, "_name", "strided") != "strided":
        raise NotImplementedError(f"ember has no {layout!r} tensors: only strided ones")
    device = as_device(device)
    found = _BACKEND_BITS.get(device.type)
    if found is not None:
        return found
    device_lazy_init(device.type)
    if device.dispatch_key is None:
        raise no_dispatch_key(device.type)
    return key_bits(device.dispatch_key)
