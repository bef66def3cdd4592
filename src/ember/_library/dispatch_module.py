"""torch._C._dispatch_library: the low-level library object PyTorch's own dispatcher tests drive.

Layer: top (the library layer; installed into ember._C by ember.library, since _C sits
below the kernels it needs). Mirrors the ``_DispatchModule`` bindings of
torch/csrc/utils/python_dispatch.cpp over torch::Library (aten/src/ATen/core/library.cpp).
In: ``(kind, namespace, dispatch key name, file, line)``, then schema strings, key names
and kernels: the typed test kernels (``impl_t_t``: one Tensor in, the same Tensor out,
inferred schema ``(Tensor _0) -> Tensor _0``), Python kernels, fallthroughs. Out:
registrations in the dispatcher; dropping the object (or ``reset()``) undoes exactly what it
registered, so registration order and destruction order can be permuted and the dumps
compared (test/test_dispatch.py's commutativity tests).
"""

from __future__ import annotations

import dataclasses
import functools
import weakref

from ember._c10.dispatch_key import DispatchKey, key_name, parse_dispatch_key
from ember._dispatch.dispatcher import dispatcher
from ember._dispatch.kernel import KernelFunction, make_fallthrough
from ember._dispatch.schema_parser import parse_name, parse_schema, parse_unnamed_schema
from ember._library.python_kernel import python_fallback, python_kernel

__all__ = ["DispatchModule", "dispatch_library"]

_KIND_NAMES = {"DEF": "TORCH_LIBRARY", "FRAGMENT": "TORCH_LIBRARY_FRAGMENT",
               "IMPL": "TORCH_LIBRARY_IMPL"}  # fmt: skip
_ALIAS_KINDS = {"CONSERVATIVE": "CONSERVATIVE", "FROM_SCHEMA": "FROM_SCHEMA",
                "PURE_FUNCTION": "PURE_FUNCTION", "": "FROM_SCHEMA"}  # fmt: skip
# The schema c10 infers from a C++ kernel ``Tensor (const Tensor&)``.
_TENSOR_TO_TENSOR = parse_unnamed_schema("(Tensor _0) -> Tensor _0")

_SIGNATURES = {
    "_dispatch_library": "(kind: str, name: str, dispatch: str, file: str = '/dev/null', "
    "linenum: typing.SupportsInt | typing.SupportsIndex = 0) -> torch._C._DispatchModule",
    "def_": "(self: object, schema: str, alias: str = '') -> object",
    "def_legacy": "(self: object, schema: str) -> object",
    "def_name_t_t": "(self: object, name: str, dispatch: str = '', debug: str = "
    "'default_def_name_t_t') -> object",
    "def_schema_t_t": "(self: object, name: str, dispatch: str = '', alias: str = '', "
    "debug: str = 'default_def_schema_t_t') -> object",
    "impl_t_t": "(self: object, name: str, dispatch: str = '', debug: str = 'impl_t_t') -> object",
    "fallback_fallthrough": "(self: object, dispatch: str = '') -> object",
}


def _strings(method: str, count: int = 8):
    """A binding whose first ``count`` arguments are ``str``: pybind11's TypeError otherwise."""

    def wrap(fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            values = args[1:] if method != "_dispatch_library" else args
            values = (*values, *kwargs.values())[:count]
            if not all(isinstance(value, str) for value in values):
                invoked = ", ".join(repr(a) for a in args)
                if kwargs:
                    invoked += "; kwargs: " + ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
                raise TypeError(
                    f"{method}(): incompatible function arguments. The following argument "
                    f"types are supported:\n    1. {_SIGNATURES[method]}\n\n"
                    f"Invoked with: {invoked}"
                )
            return fn(*args, **kwargs)

        return checked

    return wrap


def _identity(tensor):
    return tensor


def _typed_kernel(debug: str) -> KernelFunction:
    """The ``Tensor(const Tensor&)`` lambda of the test bindings, as c10 stores it."""
    return KernelFunction(
        _identity, debug=debug, name=debug, inferred_schema=_TENSOR_TO_TENSOR, unboxed=True
    )


class _State:
    """What one module registered; apart from the module so that a finalizer can undo it."""

    def __init__(self) -> None:
        self.handles: list = []

    def reset(self) -> None:
        while self.handles:
            self.handles.pop().remove()


class DispatchModule:
    """``torch._C._DispatchModule``: a torch::Library whose registrations live as long as it."""

    def __init__(self, kind: str, ns: str, dispatch: str, file: str, line: int) -> None:
        if kind not in _KIND_NAMES:
            raise RuntimeError(f"could not parse {kind}")
        key = parse_dispatch_key(dispatch) if dispatch else None
        self._kind = kind
        self._ns = ns
        self._key = None if key == DispatchKey.Undefined else key
        self._debug = f"registered at {file}:{line}"
        self._context = (
            f"(Error occurred while processing {_KIND_NAMES[kind]} block at {file}:{line})"
        )
        if kind != "IMPL" and self._key is not None:
            raise RuntimeError(
                '!dispatch_key_.has_value() INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/'
                'src/ATen/core/library.cpp":108, please report a bug to PyTorch. ' + self._context
            )
        self._state = _State()
        if kind == "DEF":
            self._state.handles.append(dispatcher.register_library(ns, self._debug))
        weakref.finalize(self, self._state.reset)

    def __repr__(self) -> str:
        return f"<torch._C._DispatchModule object at {hex(id(self))}>"

    # -- def ------------------------------------------------------------------------------
    def _def(self, schema, alias: str | None):
        """Library::_def: the schema, put in this block's namespace, registered."""
        if self._kind == "IMPL":
            written = schema.name + (f".{schema.overload_name}" if schema.overload_name else "")
            raise RuntimeError(
                f'def("{written}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL '
                "block.  All def()s should be placed in the (unique) TORCH_LIBRARY block for "
                f"their namespace.  {self._context}"
            )
        if "::" in schema.name:
            ns = schema.name.split("::", 1)[0]
            if ns != self._ns:
                raise RuntimeError(
                    f"Explicitly provided namespace ({ns}) in schema string does not match "
                    f"namespace of enclosing {_KIND_NAMES[self._kind]} block ({self._ns}).  Move "
                    "this definition to the (unique) TORCH_LIBRARY block corresponding to this "
                    "namespace (and consider deleting the namespace from your schema string.)  "
                    + self._context
                )
        else:
            schema = dataclasses.replace(schema, name=f"{self._ns}::{schema.name}")
        self._state.handles.append(dispatcher.register_def(schema, self._debug, alias))
        return schema.qualified_name

    @_strings("def_")
    def def_(self, schema: str, alias: str = ""):
        if alias not in _ALIAS_KINDS:
            raise RuntimeError(f"could not parse {alias}")
        self._def(parse_schema(schema), _ALIAS_KINDS[alias])
        return self

    @_strings("def_legacy")
    def def_legacy(self, schema: str):
        self._def(parse_schema(schema), None)  # alias analysis: the default
        return self

    @_strings("def_name_t_t")
    def def_name_t_t(self, name: str, dispatch: str = "", debug: str = "default_def_name_t_t"):
        key = parse_dispatch_key(dispatch) if dispatch else None
        base, _, overload = parse_name(name).partition(".")
        schema = dataclasses.replace(_TENSOR_TO_TENSOR, name=base, overload_name=overload)
        qualname = self._def(schema, "CONSERVATIVE")
        self._register_impl(qualname, self._impl_key(name, key), _typed_kernel(debug))
        return self

    @_strings("def_schema_t_t")
    def def_schema_t_t(
        self, name: str, dispatch: str = "", alias: str = "", debug: str = "default_def_schema_t_t"
    ):
        key = parse_dispatch_key(dispatch) if dispatch else None
        if alias not in _ALIAS_KINDS:
            raise RuntimeError(f"could not parse {alias}")
        qualname = self._def(parse_schema(name), _ALIAS_KINDS[alias])
        self._register_impl(qualname, self._impl_key(name, key), _typed_kernel(debug))
        return self

    def define(self, schema: str, alias_analysis: str = "", tags=()) -> str:
        """The binding torch.library.Library.define calls; returns the name as written."""
        if alias_analysis not in _ALIAS_KINDS:
            raise RuntimeError(f"could not parse {alias_analysis}")
        parsed = parse_schema(schema)
        qualname = self._def(parsed, _ALIAS_KINDS[alias_analysis])
        if tags:
            dispatcher.find_op(qualname).entry.tags = tuple(tags)
        return parsed.name

    # -- impl -----------------------------------------------------------------------------
    def _qualify(self, name: str) -> str:
        """_parseNameForLib: the operator's full name, its namespace checked."""
        base, _, overload = parse_name(name).partition(".")
        if "::" in base:
            ns = base.split("::", 1)[0]
            if ns != self._ns:
                raise RuntimeError(
                    f'impl("{name}", ...): Explicitly provided namespace ({ns}) in operator name '
                    f"does not match namespace of enclosing {_KIND_NAMES[self._kind]} block "
                    f"({self._ns}).  Move this definition to the {_KIND_NAMES[self._kind]} block "
                    "corresponding to this namespace (and consider deleting the namespace from "
                    f"your schema string.)  {self._context}"
                )
        else:
            base = f"{self._ns}::{base}"
        return f"{base}.{overload}" if overload else base

    def _impl_key(self, name: str, key: DispatchKey | None) -> DispatchKey:
        """The kernel's key: its own, else the block's, else CompositeImplicitAutograd."""
        if key == DispatchKey.Undefined:
            key = None
        if key is not None and self._key is not None and key != self._key:
            block = _KIND_NAMES[self._kind]
            raise RuntimeError(
                f'impl("{name}", ...): Explicitly provided dispatch key ({key_name(key)}) is '
                f"inconsistent with the dispatch key of the enclosing {block} block "
                f"({key_name(self._key)}).  Please declare a separate {block} block for this "
                f"dispatch key and move your impl() there.  {self._context}"
            )
        key = key if key is not None else self._key
        return key if key is not None else DispatchKey.CompositeImplicitAutograd

    def _register_impl(self, qualname: str, key: DispatchKey, kernel: KernelFunction) -> None:
        self._state.handles.append(dispatcher.register_impl(qualname, key, kernel))

    @_strings("impl_t_t")
    def impl_t_t(self, name: str, dispatch: str = "", debug: str = "impl_t_t"):
        key = parse_dispatch_key(dispatch) if dispatch else None
        qualname = self._qualify(name)
        self._register_impl(qualname, self._impl_key(name, key), _typed_kernel(debug))
        return self

    def impl(self, name: str, dispatch, func, with_keyset: bool = False) -> None:
        """A Python kernel (or torch.library.fallthrough_kernel) at ``dispatch``."""
        from ember.library import fallthrough_kernel

        key = parse_dispatch_key(dispatch) if isinstance(dispatch, str) else DispatchKey(dispatch)
        qualname = self._qualify(name)
        key = self._impl_key(name, key)
        if func is fallthrough_kernel:
            kernel = make_fallthrough(self._debug)
        else:
            kernel = python_kernel(qualname, func, with_keyset)
            kernel.debug = self._debug
        self._register_impl(qualname, key, kernel)

    # -- fallback -------------------------------------------------------------------------
    def _fallback(self, dispatch: DispatchKey | None, kernel: KernelFunction) -> None:
        """Library::_fallback: IMPL blocks of the wildcard namespace only."""
        block = _KIND_NAMES[self._kind]
        if self._kind != "IMPL":
            raise RuntimeError(
                f"fallback(...): Cannot define an operator inside of a {block} block.  Did you "
                f"mean to call this function inside a TORCH_LIBRARY_IMPL block?  {self._context}"
            )
        if self._ns != "_":
            raise RuntimeError(
                "fallback(...): Fallback functions which apply to only a single namespace (you "
                f"specified {self._ns}) are not supported.  If you intended to apply this fallback "
                "function globally, please define a separate block:\n\n    TORCH_LIBRARY_IMPL(_, "
                f"{key_name(self._key or DispatchKey.Undefined)}, m) {{ m.fallback(...); }}\n\n"
                + self._context
            )
        key = dispatch if dispatch not in (None, DispatchKey.Undefined) else self._key
        if key is None:
            raise RuntimeError(
                'dispatch_key.has_value() INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/'
                'src/ATen/core/library.cpp":293, please report a bug to PyTorch. ' + self._context
            )
        self._state.handles.append(dispatcher.register_fallback(key, kernel))

    @_strings("fallback_fallthrough")
    def fallback_fallthrough(self, dispatch: str = ""):
        key = parse_dispatch_key(dispatch) if dispatch else None
        self._fallback(key, make_fallthrough(self._debug))
        return self

    def fallback(self, dispatch, func, with_keyset: bool = False) -> None:
        key = parse_dispatch_key(dispatch) if isinstance(dispatch, str) else DispatchKey(dispatch)
        kernel = KernelFunction(
            python_fallback(func, with_keyset), keyset_arg="boxed", debug=self._debug
        )
        self._fallback(key, kernel)

    # -- lifetime -------------------------------------------------------------------------
    def reset(self) -> None:
        """Undo every registration this module made (it stays usable)."""
        self._state.reset()


@_strings("_dispatch_library", 4)
def dispatch_library(
    kind: str, name: str, dispatch: str, file: str = "/dev/null", linenum: int = 0
) -> DispatchModule:
    """torch._C._dispatch_library(kind, namespace, dispatch key name, file, line)."""
    return DispatchModule(kind, name, dispatch, file, int(linenum))
