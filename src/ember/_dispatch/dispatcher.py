"""The Dispatcher: the registry of operators and backend fallbacks, and call / redispatch.

Layer: _dispatch. Mirrors ATen/core/dispatch/Dispatcher.h / Dispatcher.cpp and
DispatchKeyExtractor.h. In: schemas, kernels and fallbacks (each registration
returns a handle whose ``remove()`` undoes exactly it); calls with the full
positional argument list (Note [Dispatcher calling convention],
docs/architecture.md). Out: the chosen kernel's result.

Register from ember code (e.g. generated aten bindings)::

    from ember._dispatch.dispatcher import dispatcher
    dispatcher.register_def(parse_schema("aten::add.Tensor(...) -> Tensor"))
    dispatcher.register_impl("aten::add.Tensor", DispatchKey.CPU, add_cpu)
    op = dispatcher.find_op("aten::add.Tensor")
    op.call(a, b, 1)                   # full schema-ordered argument list
    op.redispatch(bits & AFTER, a, b, 1)  # raw key bits, used as-is

Note [Dispatch caches]
----------------------
Each OperatorHandle keeps two dicts. ``call`` computes
``pre = (ks | tls.included) - tls.excluded`` and looks ``pre`` up in the call
cache, which holds (invoker, mode, final bits) where final = pre & the op's
fallthrough mask (facts §3.2-3.3). ``redispatch`` uses its key set as-is
(PyTorch's ``redispatch`` applies no mask) and looks it up in its own cache.
Misses fill the caches under the dispatcher lock; every registration (and
every backend-fallback change, for all ops) clears them under the same lock,
so a stale entry can never be stored.

Note [Kernels specialised per operator]
---------------------------------------
A kernel function may carry an attribute named ``SPECIALIZE``: a callable
``(handle, arity) -> (fn, mode) | None``. When a cache entry is filled for an
operator with a fixed arity, the dispatcher asks it for a version of the
kernel made for this operator and its current schema -- ``fn`` takes exactly
``arity`` arguments (after the raw key bits when ``mode`` is ``"raw"``; mode
None: none) -- and caches that instead of the generic invoker. It must behave
exactly like the generic kernel; it may rely on the schema it saw, because every
schema change rebuilds the handle and so empties both caches. The autograd
fallback and the Python-kernel adapter of ember.library use this to avoid
``*args`` packing on every call.
"""

from __future__ import annotations

import functools
import sys
import threading
import warnings
from collections.abc import Callable

from .._c10.dispatch_key import DispatchKey, key_name
from .._c10.dispatch_key_set import (
    FUNCTIONALITY_MASK,
    NUM_RUNTIME_ENTRIES,
    DispatchKeySet,
    raw_highest_priority_key,
    raw_table_index,
    runtime_keys_of,
)
from .._c10.thread_state import per_thread
from .._c10.tls import local_state
from . import trace
from .fast_path import fast_path_factory, generic_key_bits
from .inferred_schema import check_kernel_schema
from .kernel import KernelFunction, make_fallthrough
from .operator_entry import OperatorEntry

_CACHE_LIMIT = 4096
# The kernel-function attribute of Note [Kernels specialised per operator].
SPECIALIZE = "_ember_specialize"


def caller_debug(depth: int = 1) -> str:
    """``registered at FILE:LINE`` for the frame ``depth`` levels above the caller."""
    frame = sys._getframe(depth + 1)
    return f"registered at {frame.f_code.co_filename}:{frame.f_lineno}"


class OperatorHandle:
    """One operator (name + overload): its entry, schema, and the fast call paths."""

    __slots__ = ("name", "entry", "call", "redispatch", "_call_cache", "_redispatch_cache",
                 "_positions", "_arity", "_dispatcher", "__weakref__")  # fmt: skip

    def __init__(self, name: str, entry: OperatorEntry, dispatcher: Dispatcher) -> None:
        self.name = name
        self.entry = entry
        self._dispatcher = dispatcher
        self._call_cache: dict[int, tuple] = {}
        self._redispatch_cache: dict[int, tuple] = {}
        self._positions = ()
        self._arity: int | None = None
        self.rebuild()

    @property
    def schema(self):
        return self.entry.schema

    def has_schema(self) -> bool:
        return self.entry.schema is not None

    def debug(self) -> str:
        return self.entry.debug

    # -- the fast paths (See Note [Dispatch caches]) --------------------------
    def rebuild(self) -> None:
        """(Re)build ``call`` and ``redispatch`` for the current schema and trace mode."""
        schema = self.entry.schema
        positions = tuple(schema.dispatch_arguments()) if schema is not None else ()
        self._positions = positions
        self._arity = None
        if schema is not None and not getattr(schema, "is_vararg", False):
            self._arity = len(schema.arguments)
        self.invalidate()
        if trace.is_active():
            self.call, self.redispatch = self._make_traced()
        else:
            self.call, self.redispatch = self._make_fast()

    def _make_fast(self):
        make = fast_path_factory(self._positions, self._arity)
        return make(
            self._call_cache,
            self._redispatch_cache,
            self._slow_call,
            self._slow_redispatch,
            per_thread,
            FUNCTIONALITY_MASK,
        )

    def _make_traced(self):
        fast_call, fast_redispatch = self._make_fast()
        positions, name = self._positions, self.name

        def call(*args):
            ks = generic_key_bits(args, positions)
            pre = (ks | local_state.included) & ~(local_state.excluded & FUNCTIONALITY_MASK)
            final = pre & self.entry.fallthrough_mask(pre)
            return trace.traced("[call]", name, final, lambda: fast_call(*args), self, args)

        def redispatch(bits, *args):
            thunk = lambda: fast_redispatch(bits, *args)  # noqa: E731
            return trace.traced("[redispatch]", name, bits, thunk, self, args)

        return call, redispatch

    def invalidate(self) -> None:
        self._call_cache.clear()
        self._redispatch_cache.clear()

    def _invoker(self, kernel: KernelFunction) -> tuple[Callable, str | None]:
        fn, kind = kernel.fn, kernel.keyset_arg
        specialize = getattr(fn, SPECIALIZE, None)
        if specialize is not None and self._arity is not None:
            special = specialize(self, self._arity)  # See Note [Kernels specialised per operator]
            if special is not None:
                return special
        if kind is None or kind == "raw":
            return fn, kind
        from_raw = DispatchKeySet.from_raw
        if kind == "set":
            return (lambda bits, *args: fn(from_raw(bits), *args)), "raw"

        if kind == "boxed_raw":  # fn(self, bits, *args), with no Python frame of its own
            return functools.partial(fn, self), "raw"

        def boxed(bits, *args):
            return fn(self, from_raw(bits), *args)

        return boxed, "raw"

    def _lookup(self, final: int) -> KernelFunction:
        entry = self.entry.lookup_index(raw_table_index(final))
        if entry is None:
            raise self.entry.missing_kernel_error(raw_highest_priority_key(final))
        return entry[0]

    def _slow_call(self, pre: int) -> tuple:
        with self._dispatcher.lock:
            final = pre & self.entry.fallthrough_mask(pre)
            fn, mode = self._invoker(self._lookup(final))
            if len(self._call_cache) >= _CACHE_LIMIT:
                self._call_cache.clear()
            value = self._call_cache[pre] = (fn, mode, final)
            return value

    def _slow_redispatch(self, bits: int) -> tuple:
        with self._dispatcher.lock:
            fn, mode = self._invoker(self._lookup(bits))
            if len(self._redispatch_cache) >= _CACHE_LIMIT:
                self._redispatch_cache.clear()
            value = self._redispatch_cache[bits] = (fn, mode, bits)
            return value

    def __repr__(self) -> str:
        return f"<OperatorHandle {self.name}>"


class RegistrationHandle:
    """Undoes one registration; ``remove()`` is idempotent (RegistrationHandleRAII)."""

    __slots__ = ("_undo",)

    def __init__(self, undo: Callable[[], None]) -> None:
        self._undo = undo

    def remove(self) -> None:
        undo, self._undo = self._undo, None
        if undo is not None:
            undo()


_OVERRIDE_WARNING = (
    "Warning only once for all operators,  other operators may also be overridden.\n"
    "  Overriding a previously registered kernel for the same operator and the same dispatch key\n"
    "  operator: {operator}\n"
    "    {def_debug}\n"
    "  dispatch key: {key}\n"
    "  previous kernel: no debug info\n"
    "       new kernel: {debug} (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/core/dispatch/OperatorEntry.cpp:208.)"
)


class Dispatcher:
    """The process-wide operator registry (use the module-level ``dispatcher``)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._ops: dict[str, OperatorHandle] = {}
        self._fallbacks: list[KernelFunction | None] = [None] * NUM_RUNTIME_ENTRIES
        self._libraries: dict[str, str] = {}
        self._warned_override = False
        trace._on_change.append(self._trace_changed)

    # -- lookup ---------------------------------------------------------------
    def find_op(self, name: str) -> OperatorHandle | None:
        """The handle for ``ns::op`` / ``ns::op.overload``, schema or not."""
        return self._ops.get(name)

    def find_schema(self, name: str, overload_name: str = "") -> OperatorHandle | None:
        handle = self._ops.get(f"{name}.{overload_name}" if overload_name else name)
        if handle is None or handle.entry.schema is None:
            return None
        return handle

    def find_schema_or_throw(self, name: str, overload_name: str = "") -> OperatorHandle:
        handle = self.find_schema(name, overload_name)
        if handle is not None:
            return handle
        message = f"Could not find schema for {name}.{overload_name}"
        if self.find_op(f"{name}.{overload_name}" if overload_name else name) is not None:
            message += " but we found an implementation; did you forget to def() the operator?"
        raise RuntimeError(message)

    def all_op_names(self, sort: bool = True) -> list[str]:
        """Every registered name; ``sort=False`` keeps registration order."""
        return sorted(self._ops) if sort else list(self._ops)

    def has_backend_fallback(self, key: DispatchKey) -> bool:
        return self._fallbacks[raw_table_index(DispatchKeySet(key).raw_repr())] is not None

    def backend_fallback(self, key: DispatchKey) -> KernelFunction | None:
        return self._fallbacks[raw_table_index(DispatchKeySet(key).raw_repr())]

    def _find_or_create(self, name: str) -> OperatorHandle:
        handle = self._ops.get(name)
        if handle is None:
            handle = OperatorHandle(name, OperatorEntry(name, self._fallbacks, self.lock), self)
            self._ops[name] = handle
        return handle

    def _drop_if_empty(self, handle: OperatorHandle) -> None:
        if handle.entry.is_empty() and self._ops.get(handle.name) is handle:
            del self._ops[handle.name]

    # -- registration ---------------------------------------------------------
    def register_library(self, ns: str, debug: str) -> RegistrationHandle:
        """The one DEF library of a namespace (facts §5.6)."""
        with self.lock:
            if ns in self._libraries:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block.  If you "
                    "were trying to specify implementations, consider using TORCH_LIBRARY_IMPL "
                    "(which can be duplicated).  If you really intended to define operators for a "
                    "single namespace in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to "
                    "explicitly indicate this.  Previous registration of TORCH_LIBRARY was "
                    f"{self._libraries[ns]}; latest registration was {debug}"
                )
            self._libraries[ns] = debug

        def undo() -> None:
            with self.lock:
                self._libraries.pop(ns, None)

        return RegistrationHandle(undo)

    def register_def(
        self, schema, debug: str | None = None, alias_analysis: str = "", tags: tuple = ()
    ) -> RegistrationHandle:
        """Define an operator from a parsed FunctionSchema (facts §5.5 on redefinition)."""
        debug = debug if debug is not None else caller_debug()
        name = schema.qualified_name
        with self.lock:
            handle = self._find_or_create(name)
            entry = handle.entry
            if entry.schema is None:  # OperatorEntry::registerSchema checks the typed kernels
                for kernels in entry.kernels.values():
                    for kernel in kernels:
                        try:
                            check_kernel_schema(name, schema, debug, kernel)
                        except RuntimeError:
                            self._drop_if_empty(handle)
                            raise
            if entry.schema is not None:
                raise RuntimeError(
                    f"Tried to register an operator ({schema}) with the same name and overload "
                    "name multiple times. Each overload's schema should only be registered with a "
                    f"single call to def(). Duplicate registration: {debug}. Original "
                    f"registration: {entry.debug}"
                )
            entry.register_schema(schema, debug, alias_analysis, tags)
            handle.rebuild()

        def undo() -> None:
            with self.lock:
                entry.deregister_schema()
                handle.rebuild()
                self._drop_if_empty(handle)

        return RegistrationHandle(undo)

    def register_impl(
        self,
        name: str,
        key: DispatchKey,
        kernel: KernelFunction | Callable,
        debug: str | None = None,
        *,
        keyset_arg: str | None = None,
    ) -> RegistrationHandle:
        """Register ``kernel`` for operator ``name`` at ``key`` (runtime or alias key)."""
        key = DispatchKey(key)
        if not isinstance(kernel, KernelFunction):
            debug = debug if debug is not None else caller_debug()
            kernel = KernelFunction(kernel, keyset_arg=keyset_arg, debug=debug)
        with self.lock:
            handle = self._find_or_create(name)
            entry = handle.entry
            try:
                check_kernel_schema(name, entry.schema, entry.debug, kernel)
            except RuntimeError:
                self._drop_if_empty(handle)
                raise
            overrides = entry.register_kernel(key, kernel)
            handle.invalidate()
            if overrides:
                self._warn_override(entry, key, kernel)

        def undo() -> None:
            with self.lock:
                entry.deregister_kernel(key, kernel)
                handle.invalidate()
                self._drop_if_empty(handle)

        return RegistrationHandle(undo)

    def _warn_override(self, entry: OperatorEntry, key: DispatchKey, kernel) -> None:
        if self._warned_override or key in (DispatchKey.Meta, DispatchKey.MTIA):
            return
        self._warned_override = True
        message = _OVERRIDE_WARNING.format(
            operator=entry.schema if entry.schema is not None else entry.name,
            def_debug=entry.debug if entry.schema is not None else "no debug info",
            key=key_name(key),
            debug=kernel.debug,
        )
        warnings.warn(message, UserWarning, stacklevel=4)

    def register_fallback(
        self,
        key: DispatchKey,
        kernel: KernelFunction | Callable,
        debug: str | None = None,
        *,
        keyset_arg: str | None = "boxed",
    ) -> RegistrationHandle:
        """A backend fallback for every op at ``key`` (an alias key fills all its runtime keys).

        A callable is taken as boxed: ``fn(op_handle, keyset, *args)``.
        """
        key = DispatchKey(key)
        if not isinstance(kernel, KernelFunction):
            debug = debug if debug is not None else caller_debug()
            kernel = KernelFunction(kernel, keyset_arg=keyset_arg, debug=debug)
        slots = [raw_table_index(DispatchKeySet(k).raw_repr()) for k in runtime_keys_of(key)]
        with self.lock:
            for slot, runtime_key in zip(slots, runtime_keys_of(key)):
                previous = self._fallbacks[slot]
                if previous is not None:
                    raise RuntimeError(
                        "Tried to register multiple backend fallbacks for the same dispatch key "
                        f"{key_name(runtime_key)}; previous registration {previous.debug}, new "
                        f"registration {kernel.debug}"
                    )
            for slot in slots:
                self._fallbacks[slot] = kernel
            self._fallbacks_changed()

        def undo() -> None:
            with self.lock:
                for slot in slots:
                    if self._fallbacks[slot] is kernel:
                        self._fallbacks[slot] = None
                self._fallbacks_changed()

        return RegistrationHandle(undo)

    def register_fallthrough_fallback(self, key: DispatchKey, debug: str | None = None):
        debug = debug if debug is not None else caller_debug()
        return self.register_fallback(key, make_fallthrough(debug))

    def _fallbacks_changed(self) -> None:
        for handle in self._ops.values():
            handle.entry.mark_dirty()
            handle.invalidate()

    def _trace_changed(self, active: bool) -> None:
        with self.lock:
            # A copy: a Library collected during a rebuild deregisters (and may drop an op).
            for handle in list(self._ops.values()):
                handle.rebuild()

    # -- calling (convenience; the hot path is handle.call) ---------------------
    def call(self, handle: OperatorHandle, *args):
        return handle.call(*args)

    def redispatch(self, handle: OperatorHandle, keyset, *args):
        bits = keyset if isinstance(keyset, int) else keyset.raw_repr()
        return handle.redispatch(bits, *args)

    def check_invariants(self, name: str) -> None:
        handle = self._ops.get(name)
        if handle is not None:
            handle.entry.check_invariants()


dispatcher = Dispatcher()
