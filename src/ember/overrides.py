"""torch.overrides: the Python face of ``__torch_function__``.

Layer: overrides (above nn; imports _torch_function, the Tensor and the public namespaces it
lists). Mirrors torch/overrides.py: TorchFunctionMode and its stack, the has_torch_function
checks, handle_torch_function for functions written in Python, and the lists of
overridable and ignored functions, and enable_reentrant_dispatch. See Note [Torch function
checks] in _torch_function.py.
"""

from __future__ import annotations

import contextlib
import functools
import warnings

from ember import _C
from ember import _torch_function as _tf
from ember._tensor import Tensor, _default_nowrap_functions

__all__ = [
    "get_ignored_functions",
    "get_overridable_functions",
    "get_testing_overrides",
    "get_default_nowrap_functions",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "TorchFunctionMode",
    "BaseTorchFunctionMode",
    "enable_reentrant_dispatch",
]


_get_overloaded_args = _tf.get_overloaded_args
handle_torch_function = _tf.handle_torch_function


has_torch_function = _tf.has_torch_function


def has_torch_function_unary(obj) -> bool:
    return _tf.mode_enabled() or _tf.overrides(obj)


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


def get_default_nowrap_functions() -> set:
    """Field reads the default Tensor.__torch_function__ does not wrap (``Tensor.grad``)."""
    return _default_nowrap_functions()


def is_tensor_like(inp) -> bool:
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


# -- the mode stack -------------------------------------------------------------------


class TorchFunctionMode:
    """Overrides every overridable function inside ``with Mode():`` (innermost first)."""

    inner: TorchFunctionMode

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn(
            "`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
            stacklevel=2,
        )
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        return func(*args, **kwargs)


def _get_current_function_mode():
    length = _tf.stack_len()
    return _tf.stack_at(length - 1) if length > 0 else None


def _get_current_function_mode_stack() -> list:
    return [_tf.stack_at(i) for i in range(_tf.stack_len())]


def _push_mode(mode) -> None:
    _tf.push_mode(mode)


def _pop_mode():
    return _tf.pop_mode()


@contextlib.contextmanager
def _pop_mode_temporarily():
    old = _pop_mode()
    try:
        yield old
    finally:
        _push_mode(old)


@contextlib.contextmanager
def _enable_torch_function():
    old = _tf.get_state()
    try:
        _tf.set_state(_tf.ENABLED)
        yield
    finally:
        _tf.set_state(old)


# -- the function lists ----------------------------------------------------------------
# Approximated (see the module's tests): ember's lists are built from its own namespaces
# (ember, ember.nn.functional, ember.linalg, ember.Tensor), not from torch's hand-kept
# tables; get_testing_overrides gives each listed callable a lambda of its arity.


def get_ignored_functions() -> set:
    """Public callables that never consult __torch_function__ (factories' helpers,
    dtype queries): ember's functions that take no tensor-like argument by design."""
    import ember._type_helpers as helpers

    names = ("get_default_dtype", "set_default_dtype", "promote_types", "can_cast", "is_tensor")
    names += ("is_storage", "typename", "is_grad_enabled")
    return {getattr(helpers, n) for n in names if hasattr(helpers, n)} | {
        Tensor.as_subclass,
        Tensor._make_subclass,
        Tensor.__torch_function__,
    }


@functools.cache
def _overridable() -> dict:
    from ember import linalg as _linalg
    from ember.aten._generated import python_functions, tensor_methods
    from ember.nn import functional as _functional

    result: dict = {}
    namespaces = [
        ("ember", python_functions, python_functions.__all__),
        ("ember.nn.functional", _functional, getattr(_functional, "__all__", dir(_functional))),
        ("ember.linalg", _linalg, getattr(_linalg, "__all__", dir(_linalg))),
    ]
    ignored = get_ignored_functions()
    for _name, namespace, names in namespaces:
        found = []
        for name in names:
            fn = getattr(namespace, name, None)
            if callable(fn) and not isinstance(fn, type) and not name.startswith("_"):
                if fn not in ignored:
                    found.append(fn)
        result[namespace] = found
    methods = []
    for name in sorted(set(tensor_methods.__all__) | set(vars(Tensor))):
        attr = Tensor.__dict__.get(name)
        if isinstance(attr, property):
            methods.append(attr.__get__)
        elif callable(attr) and not isinstance(attr, (type, classmethod, staticmethod)):
            if attr not in ignored:
                methods.append(attr)
    result[Tensor] = methods
    return result


def get_overridable_functions() -> dict:
    """The callables, per namespace (module or ember.Tensor), that consult
    __torch_function__."""
    return _overridable()


def get_testing_overrides() -> dict:
    """Each overridable callable mapped to a dummy of its signature: here a lambda that
    accepts anything and returns -1."""
    return {
        fn: (lambda *args, **kwargs: -1)
        for functions in get_overridable_functions().values()
        for fn in functions
    }


def is_tensor_method_or_property(func) -> bool:
    return func in set(get_overridable_functions()[Tensor]) or func.__name__ == "__get__"


def wrap_torch_function(dispatcher):
    """Decorator: the wrapped function consults __torch_function__ on the arguments
    ``dispatcher(*args, **kwargs)`` names."""

    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant_args = dispatcher(*args, **kwargs)
            if has_torch_function(relevant_args):
                return handle_torch_function(wrapped, relevant_args, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return inner


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """Inside ``__torch_dispatch__``: run the body with the dispatch state the call had
    before the Python key (autograd and the keys above Python on again), as
    torch._C._RestorePythonTLSSnapshot; outside a handler it raises."""
    with _C._RestorePythonTLSSnapshot():
        yield
