"""The module-level torch.library registration functions beside ``Library``.

Layer: top (custom-op layer; imports ember.library, _ops, _C). Mirrors the
second half of torch/library.py (facts §10.2): register_kernel, register_fake,
register_autograd, get_kernel. In: an operator as ``"ns::op"``, an OpOverload
or a CustomOpDef. Out: registrations on the given ``lib``, or on a FRAGMENT
library kept alive forever; a CustomOpDef forwards to its own methods.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ember import _C, _ops
from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import DispatchKeySet, raw_table_index
from ember._dispatch.dispatcher import RegistrationHandle, dispatcher
from ember._dispatch.kernel import KernelFunction

from . import autograd as _autograd
from . import fake_impl

__all__ = [
    "register_kernel",
    "register_fake",
    "register_autograd",
    "register_torch_dispatch",
    "get_kernel",
]


def _library():
    from ember import library  # the Library face sits above this module's import time

    return library


def resolve_op(op, registration_name: str):
    """A qualname ``ns::op[.overload]``, or the CustomOpDef that owns it."""
    from .custom_ops import OPDEFS

    if not isinstance(op, (str, _ops.OpOverload)) and type(op).__name__ != "CustomOpDef":
        raise ValueError(f"{registration_name}({op}): got unexpected type for op: {type(op)}")
    if isinstance(op, _ops.OpOverload):
        op = op._name
    if isinstance(op, str) and op in OPDEFS:
        return OPDEFS[op]
    return op


def library_for_registration(namespace: str, lib):
    """``lib``, or a new FRAGMENT library kept alive forever, debug-tagged with this file."""
    if lib is not None:
        return lib
    return _library()._fragment_library(namespace, sys._getframe(0).f_lineno, __file__)


def lookup_op(qualname: str) -> _ops.OpOverload:
    """torch._library.utils.lookup_op: ``ns::op[.overload]`` -> OpOverload."""
    namespace, rest = qualname.split("::", 1)
    name, _, overload = rest.partition(".")
    packet = getattr(getattr(_ops.ops, namespace), name)
    return getattr(packet, overload or "default")


def register_raw_kernel(lib, qualname: str, key_name: str, fn, keyset_arg=None) -> None:
    """Register an ember-convention kernel (full argument list) as part of ``lib``.

    What ``lib.impl`` does, minus the Python-argument adapter: the custom-op
    layer's own kernels take the full argument list (Note [Dispatcher calling
    convention]); the registration is undone with the Library.
    """
    lib._check_alive()
    kernel = KernelFunction(fn, keyset_arg=keyset_arg, debug=lib._debug)
    key = _C.parse_dispatch_key(key_name)
    lib._registration_handles.append(dispatcher.register_impl(qualname, key, kernel))
    impl_key = f"{lib.ns}/{qualname.split('::')[-1]}/{key_name}"
    _library()._impls.add(impl_key)
    lib._op_impls.add(impl_key)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Register ``func`` for device types (None: CompositeExplicitAutograd) of ``op``."""
    op = resolve_op(op, "register_kernel")
    if not isinstance(op, str):
        return op.register_kernel(device_types, func)
    if device_types is None:
        device_types = "CompositeExplicitAutograd"
    return _library().impl(op, device_types, func, lib=lib)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=True):
    """Register a fake impl: a Meta kernel calling ``func`` (decorator without func)."""
    op = resolve_op(op, "register_fake")
    if not isinstance(op, str):
        return op.register_fake if func is None else op.register_fake(func)
    frame = sys._getframe(_stacklevel)
    source = f"{frame.f_code.co_filename}:{frame.f_lineno}"

    def register(func):
        namespace, _ = _library()._parse_namespace(op)
        use_lib = library_for_registration(namespace, lib)
        fake_impl.holder_for(op).register(func, source, use_lib, allow_override=allow_override)
        return func

    if func is None:
        return register
    return register(func)


def register_autograd(op, backward: Callable, /, *, setup_context=None, lib=None) -> None:
    """Install the §6.4 autograd kernel for ``op`` at the Autograd alias."""
    op = resolve_op(op, "register_autograd")
    if not isinstance(op, str):
        op.register_autograd(backward, setup_context=setup_context)
        return
    qualname = op
    _library()._parse_namespace(qualname)
    overload = lookup_op(qualname)
    schema = overload._schema
    if _autograd.is_out(overload):
        raise RuntimeError(
            "Cannot register autograd formula for operator tagged with torch.Tag.out: "
            f"{overload}. Out variants do not support autograd."
        )
    if not _autograd.is_functional_schema(schema):
        raise RuntimeError(
            f"Cannot register autograd formula for non-functional operator {overload} with "
            f"schema {schema}. Please create a functional operator and register an autograd "
            "formula for that."
        )
    if any(arg.kwarg_only and arg.type.is_tensor_like()[0] for arg in schema.arguments):
        raise NotImplementedError(
            "register_autograd with kwarg-only Tensor args. In the original definition of the "
            f"op, please make your tensors not kwarg-only. Got: {schema}"
        )
    info = _autograd.Info(backward, setup_context)
    kernel = _autograd.make_autograd_impl(overload, info)
    namespace, opname = qualname.split("::", 1)
    use_lib = library_for_registration(namespace, lib)
    register_raw_kernel(use_lib, qualname, "Autograd", kernel, keyset_arg="raw")


def register_torch_dispatch(op, torch_dispatch_class, func=None, /, *, lib=None):
    """``func`` handles ``op`` instead of ``torch_dispatch_class.__torch_dispatch__``.

    ``torch_dispatch_class`` is a tensor subclass (``func(cls, func, types, args,
    kwargs)``) or a TorchDispatchMode class (``func(mode, ...)``); undone with ``lib``.
    """
    op = resolve_op(op, "register_torch_dispatch")
    if not isinstance(op, str):
        return op.register_torch_dispatch(torch_dispatch_class, func)

    def register(func):
        namespace, _ = _library()._parse_namespace(op)
        add_torch_dispatch_rule(
            library_for_registration(namespace, lib), op, torch_dispatch_class, func
        )
        return func

    if func is None:
        return register
    return register(func)


def add_torch_dispatch_rule(lib, qualname: str, torch_dispatch_class, func) -> None:
    """Record the rule where the Python fallback looks; ``lib``'s destruction removes it."""
    from ember.utils import _python_fallback

    rules = _python_fallback.torch_dispatch_rules.setdefault(qualname, {})
    rules[torch_dispatch_class] = func

    def undo() -> None:
        if rules.get(torch_dispatch_class) is func:
            del rules[torch_dispatch_class]

    lib._registration_handles.append(RegistrationHandle(undo))


class SafeKernelFunction:
    """The computed kernel of one operator at one dispatch key (``get_kernel``)."""

    def __init__(self, handle, kernel: KernelFunction, key_name: str) -> None:
        self._handle = handle
        self._kernel = kernel
        self._key_name = key_name

    def call_boxed(self, keyset, *args, **kwargs):
        """Run this kernel on Python arguments; ``keyset`` goes to with-keyset kernels."""
        full = self._handle.schema.bind(args, kwargs)
        fn, mode = self._handle._invoker(self._kernel)
        if mode is None:
            return fn(*full)
        bits = keyset if isinstance(keyset, int) else keyset.raw_repr()
        return fn(bits, *full)

    def __repr__(self) -> str:
        return f"SafeKernelFunction(debug={self._kernel.debug!r})"


_COMPUTED_KERNEL_SIGNATURE = (
    "_dispatch_get_computed_kernel_for_dispatch_key(): incompatible function arguments. The "
    "following argument types are supported:\n    1. (arg0: str, arg1: c10::DispatchKey) -> "
    "torch._C._SafeKernelFunction\n\nInvoked with: "
)


def get_kernel(op, dispatch_key) -> SafeKernelFunction:
    """The computed table entry of ``op`` at a runtime ``dispatch_key``."""
    if not isinstance(op, (str, _ops.OpOverload)):
        raise ValueError(f"get_kernel({op}): got unexpected type for op: {type(op)}")
    qualname = op.name() if isinstance(op, _ops.OpOverload) else op
    if isinstance(dispatch_key, str):
        key = DispatchKey.__members__.get(dispatch_key)
        if key is None:
            raise ValueError(f"Invalid dispatch key: {dispatch_key}")
    elif isinstance(dispatch_key, DispatchKey):
        key = dispatch_key
    else:
        raise TypeError(_COMPUTED_KERNEL_SIGNATURE + f"{qualname!r}, {dispatch_key!r}")
    # torch._C._dispatch_get_computed_kernel_for_dispatch_key
    handle = _C._find_op_or_throw(qualname)
    if not handle.has_schema():  # findSchemaOrThrow's "did you forget to def() the operator?"
        dispatcher.find_schema_or_throw(*(qualname.split(".", 1) + [""])[:2])
    if key >= DispatchKey.StartOfAliasKeys:
        raise RuntimeError("Alias keys do not have runtime kernel registrations.")
    found = None
    if key != DispatchKey.Undefined:
        found = handle.entry.lookup_index(raw_table_index(DispatchKeySet(key).raw_repr()))
    if found is None:
        raise RuntimeError(f"no kernel for {_C._dispatch_key_name(key)} for {qualname}")
    return SafeKernelFunction(handle, found[0], _C._dispatch_key_name(key))
