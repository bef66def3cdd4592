"""custom_op and CustomOpDef: a Python function turned into a dispatcher operator.

Layer: top (custom-op layer; imports ember.library, _ops, _C, autograd).
Mirrors torch/_library/custom_ops.py (facts §10.3). In: a type-annotated
function, ``mutates_args``, optional device types or schema. Out: a
CustomOpDef; one FRAGMENT Library per operator (redefining the op destroys the
old one) holding the def (tagged pt2_compliant_tag), a Meta fake impl, the
§6.4 autograd kernel at Autograd, a version-bumping ADInplaceOrView kernel for
mutating schemas, and the body at CompositeExplicitAutograd or per device key.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Callable, Iterable

from ember import _C, _ops
from ember._dispatch.python_returns import returns_converter

from . import autograd as _autograd
from . import fake_impl
from .api import lookup_op, register_raw_kernel
from .infer_schema import infer_schema

__all__ = ["custom_op", "CustomOpDef", "OPDEFS"]

OPDEFS: dict[str, CustomOpDef] = {}
_LIBRARIES: dict[str, object] = {}


def _library_allowing_overwrite(namespace: str, name: str):
    """One FRAGMENT library per op; redefining the op destroys the previous one."""
    from ember import library

    qualname = f"{namespace}::{name}"
    previous = _LIBRARIES.pop(qualname, None)
    if previous is not None:
        previous._destroy()
    lib = library.Library(namespace, "FRAGMENT")
    lib._set_debug(f"registered at {__file__}:{sys._getframe(0).f_lineno}")
    _LIBRARIES[qualname] = lib
    return lib


def _with_pt2_compliant_tag(tags) -> tuple:
    tags = tuple(tags or ())
    return tags if "pt2_compliant_tag" in tags else (*tags, "pt2_compliant_tag")


def custom_op(name: str, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wrap ``fn`` into the operator ``name`` (``"ns::op"``); a decorator without ``fn``."""

    def inner(fn: Callable) -> CustomOpDef:
        if schema is None:
            schema_str = infer_schema(fn, mutates_args=mutates_args)
        else:
            schema_str = schema
        namespace, opname = name.split("::")
        result = CustomOpDef(namespace, opname, schema_str, fn, tags)
        if schema is not None:
            expected = {
                argument.name
                for argument in result._opoverload._schema.arguments
                if argument.alias_info is not None and argument.alias_info.is_write
            }
            if expected != set(mutates_args):
                raise ValueError(
                    f"Attempted to create a custom op with `mutates_args={mutates_args}` and "
                    f"`schema={schema}. The schema suggests that the op mutates {expected}which "
                    "is different from what was provided to us in `mutates_args`. Please make "
                    "these consistent."
                )
        result.register_kernel(device_types)(fn)
        return result

    if fn is None:
        return inner
    return inner(fn)


def _is_tensor(value) -> bool:
    return hasattr(value, "_key_bits") and hasattr(value, "_sizes")


def _memory(tensor):
    """What identifies a tensor's memory: its Storage, or (still lazy) its own array."""
    storage = tensor._storage
    return storage if storage is not None else tensor._array


def _check_aliasing(name: str, full_args: tuple, result, backend_fn) -> None:
    """Outputs must be fresh: not an input, no alias of an input or another output."""
    outputs = result if isinstance(result, (tuple, list)) else (result,)
    seen = []
    for value in full_args:
        if isinstance(value, (list, tuple)):
            seen.extend(_memory(item) for item in value if _is_tensor(item))
        elif _is_tensor(value):
            seen.append(_memory(value))
    for out in outputs:
        if not _is_tensor(out):
            continue
        memory = _memory(out)
        if memory is not None and any(memory is other for other in seen):
            raise RuntimeError(
                f"{name} (with implementation in {inspect.getmodule(backend_fn)}): The output "
                "of this custom operator (1) must not also be an input to this custom operator "
                "and (2) may not alias any inputs to this custom operator or other returns. The "
                "most common way to trigger this error is if we have y = custom_op(x) and y and "
                "x are the same Tensor. Please instead return a clone of the offending output "
                "tensor(s) (e.g. return x.clone()) or refactor the custom operator to not "
                "return y."
            )
        seen.append(memory)


class CustomOpDef:
    """A custom operator built by ``custom_op``; call it like the function it wraps."""

    def __init__(self, namespace: str, name: str, schema: str, fn: Callable, tags=None) -> None:
        self._namespace = namespace
        self._name = name
        self._schema = schema
        self._tags = tuple(tags or ())
        self._init_fn = fn
        self._backend_fns: dict[str | None, Callable] = {}
        self._abstract_fn: Callable | None = None
        self._setup_context_fn: Callable | None = None
        self._backward_fn: Callable | None = None
        self._disabled_kernel: set = set()
        self._lib = _library_allowing_overwrite(namespace, name)
        self._register_to_dispatcher()
        OPDEFS[self._qualname] = self

    @property
    def _qualname(self) -> str:
        return f"{self._namespace}::{self._name}"

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    # -- registration at construction -----------------------------------------------
    def _register_to_dispatcher(self) -> None:
        schema_str = self._name + self._schema
        parsed = _C.parse_schema(schema_str)
        if any(a.kwarg_only and a.type.is_tensor_like()[0] for a in parsed.arguments):
            raise NotImplementedError(
                "custom_op with kwarg-only Tensor args. Please make your tensors not "
                f"kwarg-only. Got: {schema_str}"
            )
        self._lib.define(schema_str, tags=_with_pt2_compliant_tag(self._tags))
        self._opoverload = lookup_op(self._qualname)
        self._register_fake_impl()
        autograd_kernel = _autograd.make_autograd_impl(self._opoverload, self)
        register_raw_kernel(self._lib, self._qualname, "Autograd", autograd_kernel, "raw")
        if self._opoverload._schema.is_mutable:
            self._register_mutation_version_bump()

    def _register_fake_impl(self) -> None:
        def fake_impl_fn(*args, **kwargs):
            if self._abstract_fn is None:
                schema = self._opoverload._schema
                if schema.is_mutable and not schema.returns:
                    return None  # can_generate_trivial_fake_impl: mutates, returns nothing
                raise RuntimeError(
                    f"There was no fake impl registered for {self}. This is necessary for "
                    "torch.compile/export/fx tracing to work. Please use "
                    f"`{self._init_fn.__name__}.register_fake` to add an fake impl."
                )
            return self._abstract_fn(*args, **kwargs)

        frame = sys._getframe(0)
        source = f"{frame.f_code.co_filename}:{frame.f_lineno}"
        fake_impl.holder_for(self._qualname).register(fake_impl_fn, source, self._lib)

    def _register_mutation_version_bump(self) -> None:
        """An ADInplaceOrView kernel: bump each mutated argument, then redispatch below it."""
        schema = self._opoverload._schema
        mutated = [i for i, a in enumerate(schema.arguments) if a.alias_info is not None
                   and a.alias_info.is_write]  # fmt: skip
        after = _C._after_ADInplaceOrView_keyset.raw_repr()
        handle = self._opoverload._op

        def adinplaceorview_kernel(bits, *full_args):
            for index in mutated:
                _bump(full_args[index])
            return handle.redispatch(bits & after, *full_args)

        register_raw_kernel(
            self._lib, self._qualname, "ADInplaceOrView", adinplaceorview_kernel, "raw"
        )

    # -- the public methods ---------------------------------------------------------------
    def register_kernel(self, device_types, fn=None, /):
        """Register ``fn`` for device types (None: every device, at CompositeExplicitAutograd)."""

        def inner(fn):
            if device_types is None or isinstance(device_types, str):
                devices: list = [device_types]
            else:
                devices = list(device_types)
            for device_type in devices:
                if device_type not in self._backend_fns:
                    self._register_backend(device_type)
                self._backend_fns[device_type] = self._maybe_disabled(device_type, fn)
            return fn

        if fn is None:
            return inner
        return inner(fn)

    def _maybe_disabled(self, device_type, fn):
        def wrapped_fn(*args, **kwargs):
            if device_type in self._disabled_kernel:
                return self._init_fn(*args, **kwargs)
            return fn(*args, **kwargs)

        return wrapped_fn

    def _register_backend(self, device_type) -> None:
        schema = self._opoverload._schema
        check_aliasing = not _ops._is_view(schema)
        name = self._name

        convert = returns_converter(schema, "PythonKernelHolder")

        def backend_kernel(*full_args):
            args, kwargs = schema.python_kernel_args(list(full_args))
            backend_fn = self._backend_fns[device_type]
            result = backend_fn(*args, **kwargs)
            if check_aliasing:
                _check_aliasing(name, full_args, result, backend_fn)
            return convert(result)  # Note [Results of Python kernels]

        key = "CompositeExplicitAutograd" if device_type is None else None
        key = key or _C._dispatch_key_for_device(device_type)
        register_raw_kernel(self._lib, self._qualname, key, backend_kernel)

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type: str, enabled: bool = True):
        """Temporarily disable (or re-enable) the kernel registered for ``device_type``."""
        action = "enable" if enabled else "disable"
        originally_disabled = device_type in self._disabled_kernel
        if device_type not in self._backend_fns:
            import logging

            logging.getLogger(__name__).warning(
                "Attempted to %s kernel for %s but no kernel was registered for this device type.",
                action,
                device_type,
            )
        if not enabled:
            self._disabled_kernel.add(device_type)
        else:
            self._disabled_kernel.discard(device_type)
        try:
            yield
        finally:
            if originally_disabled:
                self._disabled_kernel.add(device_type)
            else:
                self._disabled_kernel.discard(device_type)

    def register_fake(self, fn, /):
        """The fake impl: output metadata from input metadata, no data."""
        self._abstract_fn = fn
        return fn

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        """``fn`` handles this op for ``torch_dispatch_class`` (a subclass or a mode class)."""
        from .api import add_torch_dispatch_rule

        def register(fn):
            add_torch_dispatch_rule(self._lib, self._qualname, torch_dispatch_class, fn)
            return fn

        return register if fn is None else register(fn)

    def register_autograd(self, backward: Callable, /, *, setup_context=None) -> None:
        """backward(ctx, *grads) and setup_context(ctx, inputs, output) (facts §6.4)."""
        schema = self._opoverload._schema
        if _autograd.is_out(self._opoverload):
            raise RuntimeError(
                "Cannot register autograd formula for operator tagged with torch.Tag.out: "
                f"{self}. Out variants do not support autograd."
            )
        if not _autograd.is_functional_schema(schema):
            raise RuntimeError(
                f"Cannot register autograd formula for non-functional operator {self} with "
                f"schema {schema}. Please create a functional operator and register an "
                "autograd formula for that."
            )
        self._backward_fn = backward
        self._setup_context_fn = setup_context


def _bump(value) -> None:
    if isinstance(value, Iterable) and not _is_tensor(value):
        for item in value:
            _bump(item)
    elif value is not None and not value._is_inference:
        value.version_counter().bump()
