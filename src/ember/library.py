"""The torch.library face: Library (DEF / IMPL / FRAGMENT), define, impl, fallback.

Layer: top (imports _dispatch, _c10, _ops, _C). Mirrors torch/library.py and
the C++ behind it (aten/src/ATen/core/library.cpp, torch/csrc/utils/python_dispatch.cpp).
In: schema strings, Python kernels, key names. Out: registrations in the
dispatcher, each kept as a handle so that ``_destroy()`` (or garbage
collection) undoes exactly what the library did (facts §10.1, errors §5.5-5.10).

User kernels get PyTorch's Python-kernel arguments (facts §8.6) through the
adapter of _library/python_kernel.py; see Note [Dispatcher calling convention]
in docs/architecture.md.
Only the parts of §10.2 that registration needs live here; register_fake,
register_autograd, custom_op and opcheck belong to the custom-op layer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import sys
import weakref

from . import _C, _ops
from ._C import _dispatch_key_for_device, _parse_dispatch_key, parse_dispatch_key, parse_schema
from ._c10.dispatch_key import DispatchKey
from ._dispatch.dispatcher import RegistrationHandle, dispatcher
from ._dispatch.kernel import KernelFunction, make_fallthrough
from ._dispatch.schema_parser import parse_name
from ._library.python_kernel import python_fallback, python_kernel
from ._library.schema_tags import validate_inplace_schema, validate_out_schema

__all__ = ["Library", "define", "impl", "fallthrough_kernel"]

# "ns/op_name/dispatch_key" of every live Python impl; "ns::op" of every live def.
_impls: set[str] = set()
_defs: set[str] = set()
_reserved_namespaces = ["prim"]
_keep_alive: list[Library] = []

_EMBER_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_KIND_NAMES = {
    "DEF": "TORCH_LIBRARY",
    "FRAGMENT": "TORCH_LIBRARY_FRAGMENT",
    "IMPL": "TORCH_LIBRARY_IMPL",
}


# pybind11's refusal of torch._C._dispatch_library's arguments; the arguments follow.
_DISPATCH_LIBRARY_SIGNATURE = (
    "_dispatch_library(): incompatible function arguments. The following argument types are "
    "supported:\n    1. (kind: str, name: str, dispatch: str, file: str = '/dev/null', linenum: "
    "typing.SupportsInt | typing.SupportsIndex = 0) -> torch._C._DispatchModule\n\nInvoked with: "
)


# pybind11's refusal of _DispatchModule.impl's arguments; the arguments follow.
_IMPL_SIGNATURE = (
    "impl(): incompatible function arguments. The following argument types are supported:\n"
    "    1. (self: object, name: str, dispatch: c10::DispatchKey, func: object, with_keyset: "
    "bool = False) -> None\n\nInvoked with: "
)


def _loads_as_pybind_bool(value) -> bool:
    """pybind11's bool caster (with conversion): None, or anything whose type has __bool__."""
    if value is None or value is True or value is False:
        return True
    if not hasattr(type(value), "__bool__"):
        return False
    try:
        return bool(value) in (True, False)
    except Exception:  # noqa: BLE001 - a __bool__ that raises does not load
        return False


def fallthrough_kernel():
    """A dummy function to pass to ``Library.impl`` in order to register a fallthrough."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def _user_frame_debug() -> str:
    """``registered at FILE:LINE`` of the first caller outside ember's own files."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_EMBER_DIR):
        frame = frame.f_back
    if frame is None:
        frame = sys._getframe(1)
    return f"registered at {frame.f_code.co_filename}:{frame.f_lineno}"


def _del_library(captured_impls, op_impls, captured_defs, op_defs, registration_handles):
    """Undo what a Library registered: its finalizer (torch/library.py's _del_library).

    The finalizer holds the Library's own sets and handle list, and the module's
    ``_impls`` and ``_defs``, and nothing else: once it has run (``_destroy()``, or the
    Library collected) no reference to them is left behind (PyTorch's test_finalizer).
    """
    for handle in reversed(registration_handles):
        handle.remove()
    registration_handles.clear()
    captured_impls -= op_impls
    captured_defs -= op_defs
    _ops.clear_cache(op_defs)


class Library:
    """A set of registrations for one namespace; destroyed with ``_destroy()`` or by GC."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in _reserved_namespaces and kind in ("DEF", "FRAGMENT"):
            raise ValueError(
                f"{ns} is a reserved namespace. Please try creating a library with another name."
            )
        if not (isinstance(ns, str) and isinstance(dispatch_key, str)):
            caller = sys._getframe(1)
            invoked = (kind, ns, dispatch_key, caller.f_code.co_filename, caller.f_lineno)
            raise TypeError(_DISPATCH_LIBRARY_SIGNATURE + ", ".join(map(repr, invoked)))
        self.kind = kind
        self._set_debug(_user_frame_debug())
        # The block's own key; Undefined (CatchAll) is no key, as in c10's Library.
        self._key = parse_dispatch_key(dispatch_key) if dispatch_key else None
        if self._key == DispatchKey.Undefined:
            self._key = None
        self._op_defs: set[str] = set()
        self._op_impls: set[str] = set()
        self._registration_handles: list[RegistrationHandle] = []
        if kind == "DEF":
            self._registration_handles.append(dispatcher.register_library(ns, self._debug))
        if kind in ("DEF", "FRAGMENT"):
            if ns == "_":
                self._undo_registrations()
                name = _KIND_NAMES[kind]
                raise RuntimeError(
                    f"{name}: cannot define {name} with the wildcard namespace _ (every {name} "
                    "defines operators for a distinct namespace!) Did you mean to use "
                    f"TORCH_LIBRARY_IMPL instead?  {self._context}"
                )
            if self._key is not None:
                self._undo_registrations()
                raise RuntimeError(
                    '!dispatch_key_.has_value() INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/'
                    'aten/src/ATen/core/library.cpp":108, please report a bug to PyTorch. '
                    + self._context
                )
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._destroyed = False
        self._finalizer = weakref.finalize(
            self, _del_library, _impls, self._op_impls, _defs, self._op_defs,
            self._registration_handles,
        )  # fmt: skip

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _set_debug(self, debug: str) -> None:
        """Where this block is ``registered at``, and the error context that names it."""
        self._debug = debug
        where = debug[len("registered at ") :]
        self._context = (
            f"(Error occurred while processing {_KIND_NAMES[self.kind]} block at {where})"
        )

    def _undo_registrations(self) -> None:
        """A failed construction leaves nothing registered."""
        _del_library(_impls, self._op_impls, _defs, self._op_defs, self._registration_handles)

    def _check_alive(self) -> None:
        if self._destroyed:
            raise AssertionError("Library object has been destroyed")

    # -- define ---------------------------------------------------------------
    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        """Define an operator in this library's namespace; returns its name (facts §10.1).

        Tags are strings (ember's torch.Tag); one tag alone needs no tuple. A schema
        tagged ``out`` or ``inplace`` must have that shape (_library/schema_tags.py).
        """
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        self._check_alive()
        if isinstance(tags, str):
            tags = (tags,)
        parsed = None
        if "out" in tags:  # a tags value that is no collection fails here, as in torch
            parsed = parse_schema(schema)
            validate_out_schema(parsed)
        if "inplace" in tags:
            parsed = parsed or parse_schema(schema)
            validate_inplace_schema(parsed)
        parsed = parsed or parse_schema(schema)
        if self.kind == "IMPL":
            raise RuntimeError(
                f'def("{parsed.qualified_name}"): Cannot define an operator inside of a '
                "TORCH_LIBRARY_IMPL block.  All def()s should be placed in the (unique) "
                f"TORCH_LIBRARY block for their namespace.  {self._context}"
            )
        written = parsed.name  # as the schema spells it, with or without a namespace
        if "::" in written:
            ns = written.split("::")[0]
            if ns != self.ns:
                raise RuntimeError(
                    f"Explicitly provided namespace ({ns}) in schema string does not match "
                    f"namespace of enclosing {_KIND_NAMES[self.kind]} block ({self.ns}).  Move "
                    "this definition to the (unique) TORCH_LIBRARY block corresponding to this "
                    "namespace (and consider deleting the namespace from your schema string.)  "
                    + self._context
                )
        else:  # FunctionSchema::setNamespaceIfNotSet: any namespace string is taken as it is
            parsed = dataclasses.replace(parsed, name=f"{self.ns}::{written}")
        self._registration_handles.append(
            dispatcher.register_def(parsed, self._debug, alias_analysis, tuple(tags))
        )
        qualname = parsed.qualified_name
        self._op_defs.add(qualname)
        _defs.add(qualname)
        _ops.refresh_packet(self.ns, parsed.name.split("::", 1)[1])
        return written

    # -- impl -----------------------------------------------------------------
    def _resolve_op_name(self, op_name, api_name: str) -> str:
        if isinstance(op_name, str):
            return op_name
        if isinstance(op_name, _ops.OpOverload):
            name = op_name._schema.name
            if op_name._schema.overload_name:
                name += "." + op_name._schema.overload_name
            return name
        raise RuntimeError(
            f"{api_name} should be passed either a name or an OpOverload object "
            f"as the first argument, got {type(op_name)}"
        )

    def impl(self, op_name, fn, dispatch_key: str = "", *, with_keyset=False, allow_override=True):
        """Register ``fn`` for ``op_name`` at ``dispatch_key`` (facts §10.1)."""
        if not callable(fn):
            raise TypeError(
                f"Input function is required to be a callable but found type {type(fn)}"
            )
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        name = self._resolve_op_name(op_name, "impl")
        key = self.ns + "/" + name.split("::")[-1] + "/" + dispatch_key
        if not allow_override and key in _impls:
            raise RuntimeError(
                "This is not allowed since there's already a kernel registered from python "
                f"overriding {name.split('::')[-1]}'s behavior for {dispatch_key} dispatch key "
                f"and {self.ns} namespace."
            )
        qualname = name if "::" in name else f"{self.ns}::{name}"
        if dispatch_key == "Meta" and _C._dispatch_has_kernel_for_dispatch_key(
            qualname, "CompositeImplicitAutograd"
        ):  # an operator that does not exist fails here (as register_fake on one does)
            raise RuntimeError(
                f"We should not register a meta kernel directly to the operator '{name}', "
                "because it has a CompositeImplicitAutograd kernel in core. Instead we should "
                "let the operator decompose, and ensure that we have meta kernels for the base "
                "ops that it decomposes into."
            )
        self._check_alive()
        dispatch = parse_dispatch_key(dispatch_key or "CompositeImplicitAutograd")
        if not _loads_as_pybind_bool(with_keyset):
            invoked = (f"<torch._C._DispatchModule object at {hex(id(self._registration_handles))}>", repr(name),
                       repr(dispatch_key or "CompositeImplicitAutograd"), repr(fn),
                       repr(with_keyset))  # fmt: skip
            raise TypeError(_IMPL_SIGNATURE + ", ".join(invoked))
        if dispatch == DispatchKey.Undefined:  # CatchAll: the block's key, else CIA
            dispatch = self._key if self._key is not None else DispatchKey.CompositeImplicitAutograd
        parse_name(name)  # _parseNameForLib: a malformed name is a parse error
        if "::" in name and name.split("::")[0] != self.ns:
            raise RuntimeError(
                f'impl("{name}", ...): Explicitly provided namespace ({name.split("::")[0]}) in '
                f"operator name does not match namespace of enclosing {_KIND_NAMES[self.kind]} "
                f"block ({self.ns}).  Move this definition to the {_KIND_NAMES[self.kind]} block "
                "corresponding to this namespace (and consider deleting the namespace from your "
                f"schema string.)  {self._context}"
            )
        if self._key is not None and dispatch != self._key:
            block = _KIND_NAMES[self.kind]
            raise RuntimeError(
                f'impl("{name}", ...): Explicitly provided dispatch key ({dispatch.name}) is '
                f"inconsistent with the dispatch key of the enclosing {block} block "
                f"({self._key.name}).  Please declare a separate {block} block for this dispatch "
                f"key and move your impl() there.  {self._context}"
            )
        if fn is fallthrough_kernel:
            kernel = make_fallthrough(self._debug)
        else:
            kernel = python_kernel(qualname, fn, with_keyset)
            kernel.debug = self._debug
        self._registration_handles.append(dispatcher.register_impl(qualname, dispatch, kernel))
        _impls.add(key)
        self._op_impls.add(key)

    # -- fallback -------------------------------------------------------------
    def fallback(self, fn, dispatch_key: str = "", *, with_keyset=False) -> None:
        """A backend fallback for every operator at ``dispatch_key`` (namespace ``_`` only)."""
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        if self.ns != "_":
            raise RuntimeError(
                "Fallback can only be registered using library fragment on the global namespace "
                f'"_" but it is {self.ns}'
            )
        if dispatch_key == "":
            raise AssertionError("dispatch_key must not be empty for fallback")
        self._check_alive()
        key = parse_dispatch_key(dispatch_key)
        if key == DispatchKey.Undefined:  # CatchAll: no key to fall back at
            raise RuntimeError(
                'dispatch_key.has_value() INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/'
                'src/ATen/core/library.cpp":293, please report a bug to PyTorch. ' + self._context
            )
        if fn is fallthrough_kernel:
            kernel = make_fallthrough(self._debug)
        else:
            kernel = KernelFunction(
                python_fallback(fn, with_keyset), keyset_arg="boxed", debug=self._debug
            )
        self._registration_handles.append(dispatcher.register_fallback(key, kernel))

    # -- lifetime -------------------------------------------------------------
    def _destroy(self) -> None:
        self._destroyed = True
        self._finalizer()


@contextlib.contextmanager
def _scoped_library(*args, **kwargs):
    lib = Library(*args, **kwargs)
    try:
        yield lib
    finally:
        lib._destroy()


def _parse_namespace(qualname: str) -> tuple[str, str]:
    splits = qualname.split("::")
    if len(splits) != 2:
        raise ValueError(
            f'Expected `qualname` to be of the form "namespace::name", but got {qualname}. '
            "The qualname passed to the torch.library APIs must consist of a namespace and a "
            "name, e.g. aten::sin"
        )
    return splits[0], splits[1]


def _fragment_library(namespace: str, line: int, source: str = __file__) -> Library:
    """A FRAGMENT library of torch.library's own, kept alive forever; it is ``registered
    at`` the line of ``source`` that asked for it, as PyTorch's are at torch/library.py."""
    lib = Library(namespace, "FRAGMENT")
    lib._set_debug(f"registered at {source}:{line}")
    _keep_alive.append(lib)
    return lib


@functools.singledispatch
def define(qualname, schema, *, lib=None, tags=()):
    """Define ``qualname`` with a nameless schema ``(Tensor x) -> Tensor``."""
    if not isinstance(qualname, str):
        raise ValueError(
            f"define(qualname, schema): expected qualname to be instance of str, got {type(qualname)}"
        )
    namespace, name = _parse_namespace(qualname)
    if lib is None:
        lib = _fragment_library(namespace, sys._getframe(0).f_lineno)
    if not (schema.startswith("(") and ") -> " in schema):
        raise ValueError(
            "define(qualname, schema, ...): expected schema to look like e.g. "
            f'"(Tensor x) -> Tensor" but got "{schema}"'
        )
    lib.define(name + schema, alias_analysis="", tags=tags)


@define.register
def _(lib: Library, schema, alias_analysis=""):
    """The legacy ``define(lib, schema)`` decorator: define, then impl at CIA."""

    def wrap(f):
        name = lib.define(schema, alias_analysis)
        lib.impl(name, f)
        return f

    return wrap


def _device_type_to_key(device_type: str) -> str:
    if device_type == "default":
        return "CompositeExplicitAutograd"
    return _dispatch_key_for_device(device_type)


@functools.singledispatch
def impl(qualname, types, func=None, *, lib=None):
    """Register ``func`` for device types (or key names) of ``qualname``; a decorator without func."""
    if isinstance(types, str):
        types = (types,)
    keys = set()
    for typ in types:
        keys.add(typ if _parse_dispatch_key(typ) else _device_type_to_key(typ))

    def register(func):
        namespace, _ = _parse_namespace(qualname)
        use_lib = lib
        if use_lib is None:
            use_lib = _fragment_library(namespace, sys._getframe(0).f_lineno)
        for key in sorted(keys):
            use_lib.impl(qualname, func, key)

    if func is None:
        return register
    register(func)
    return None


@impl.register
def _(lib: Library, name: str, dispatch_key: str = ""):
    """The legacy ``impl(lib, name, dispatch_key)`` decorator."""

    def wrap(f):
        lib.impl(name, f, dispatch_key)
        return f

    return wrap


# torch._C._dispatch_library and its module type: they need Python kernels, which sit above _C.
from ember._library.dispatch_module import DispatchModule, dispatch_library  # noqa: E402

_C._dispatch_library = dispatch_library
_C._DispatchModule = DispatchModule

# The custom-operator layer (ember/_library/, mirrors torch/_library/).
from ember._library.api import (  # noqa: E402,F401
    get_kernel,
    register_autograd,
    register_fake,
    register_kernel,
    register_torch_dispatch,
)
from ember._library.custom_ops import CustomOpDef, custom_op  # noqa: E402,F401
from ember._library.fake_impl import get_ctx  # noqa: E402,F401
from ember._library.infer_schema import infer_schema  # noqa: E402,F401
from ember._library.opcheck import OpCheckError, opcheck  # noqa: E402,F401
from ember._library.vmap_rule import register_vmap  # noqa: E402,F401
