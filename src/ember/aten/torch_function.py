"""The bindings' side of ``__torch_function__``: collect the overloaded arguments, then hand
the call on.

Layer: aten (imports _torch_function and the argument parser). In: a binding whose checks
raised TorchFunctionCall (Note [Torch function checks] in _torch_function.py), with the
call's arguments. Out: the answer of a mode or of an overriding argument's
__torch_function__. Mirrors handle_torch_function(PythonArgs&, ...) and the overloaded-arg
collection of FunctionSignature::parse in torch/csrc/utils/python_arg_parser.cpp.
"""

from __future__ import annotations

import functools

from ember._torch_function import (
    TorchFunctionCall,
    _disabled_torch_function_impl,
    append_overloaded,
    dispatch,
    handle_torch_function,
    mode_enabled,
    overrides,
    raise_if_mode,
    set_hooks,
)
from ember._torch_function import state as tf_state
from ember.aten.python_arg_convert import TENSOR, TENSOR_LIST
from ember.aten.python_arg_parser import no_arguments

__all__ = [
    "handle_function",
    "handle_method",
    "handle_self",
    "install",
    "overloaded_arguments",
    "overridable",
]


def overloaded_arguments(parser, args: tuple, kwargs: dict | None, self=None) -> list:
    """Bind the call as the parser does (its TypeError if nothing matches), accepting the
    overriding arguments, and list them: ``self`` first, then the Tensor and Tensor-list
    parameters in order, a subclass before its superclasses (append_overloaded_arg)."""
    local = tf_state.local
    previous = local.collecting
    local.collecting = True
    try:
        index, values = parser.parse(args, kwargs, self=self)
    finally:
        local.collecting = previous
    found: list = []
    if self is not None and overrides(self):
        append_overloaded(found, self)
    for param in parser.signatures[index].params:
        value = values[param.index]
        if param.kind == TENSOR:
            if value is not None and overrides(value):
                append_overloaded(found, value)
        elif param.kind == TENSOR_LIST and value is not None:
            for item in value:
                if overrides(item):
                    append_overloaded(found, item)
    return found


def handle_function(public, parser, args: tuple, kwargs: dict, module: str = "ember"):
    """``ember.add(...)`` with an overriding argument or under a mode."""
    overloaded = overloaded_arguments(parser, args, kwargs)
    return dispatch(public, f"{module}.{public.__name__}", overloaded, args, kwargs or None)


def handle_method(public, parser, self, args: tuple, kwargs: dict):
    """``t.sum(...)``: ``self`` is the first argument the handler sees."""
    overloaded = overloaded_arguments(parser, args, kwargs, self)
    name = f"ember.Tensor.{public.__name__}"
    return dispatch(public, name, overloaded, (self, *args), kwargs or None)


def handle_self(public, name: str, self, args: tuple = (), kwargs: dict | None = None):
    """A method without a parser (``t.abs()``, ``t.dim()``) or a property's getter
    (``Tensor.shape.__get__``): PyTorch hands ``self`` on as the one overloaded argument,
    even when it is an exact Tensor under a mode."""
    return dispatch(public, name, [self], (self, *args), kwargs or None)


# -- the hand-written Tensor methods and properties -----------------------------------
# Wrapped only where needed: see Note [Wrappers only where needed] below.
# How PyTorch hands each one to __torch_function__ (checked against torch 2.13 in
# tests/test_torch_function.py): "self" for the C methods without a parser (`self` is the
# one overloaded argument, kwargs None), "python" for those of torch/_tensor.py (the same,
# kwargs a dict), "parser" for the C methods with a parser (the overriding arguments only,
# `self` first). A name maps to the method PyTorch names (`ndimension` reaches `dim`).
_SELF, _PYTHON, _PARSER = "self", "python", "parser"
_MARK = "torch_function_checked"  # a wrapper of this module
_METHODS = {
    _SELF: (
        "storage_offset dim numel is_floating_point is_complex is_signed get_device data_ptr "
        "tolist element_size is_inference detach_ retain_grad __bool__ __float__ __int__ "
        "__index__ new_tensor"
    ),
    _PYTHON: (
        "__len__ __repr__ __array__ __contains__ __format__ __deepcopy__ norm split backward "
        "register_hook"
    ),
    _PARSER: (
        "size stride numpy is_contiguous float double half bfloat16 long int short char byte "
        "bool cfloat cdouble cpu requires_grad_ type contiguous type_as to copy_ __getitem__ "
        "__setitem__ set_"
    ),
}
_ALIASES = {"ndimension": "dim", "nelement": "numel"}
# The getters PyTorch hands to __torch_function__ as `Tensor.<name>.__get__`; itemsize and
# nbytes (TensorImpl's properties) are placed on ember.Tensor itself so that their checking
# wrappers can stand in for them. dtype, device and layout are not among them (PyTorch's
# are): ember's kernels read those fields of the tensors they are given, a subclass's
# among them, where torch's C++ reads the TensorImpl, so a handler would see reads torch's
# never does (Note [Field reads a handler does not see]).
_PROPERTIES = (
    "shape ndim T mT H mH requires_grad grad grad_fn is_leaf data is_cpu is_meta is_cuda _version "
    "output_nr retains_grad nbytes itemsize real imag is_sparse is_sparse_csr is_quantized "
    "is_nested is_mkldnn"
).split()
# Note [Field reads a handler does not see]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch routes `x.dtype`, `x.device` and `x.layout` through __torch_function__ too. Doing
# the same here needs every kernel's reads of them to bypass the checking wrapper (a
# TensorImpl slot read); until then they read plain, and tests/test_torch_function_getters.py
# keeps the difference as strict xfails.
# Properties whose setter PyTorch does not check (THPVariable_set_real / _set_imag call
# at::real / at::imag and copy_ at once).
_UNCHECKED_SETTERS = frozenset({"real", "imag"})


def _overriding_args(args: tuple) -> list:
    """The overriding objects among positional arguments, one level of tuples or lists
    looked into (an index tuple, a shape)."""
    found: list = []
    for arg in args:
        if isinstance(arg, (tuple, list)):
            for item in arg:
                if overrides(item):
                    append_overloaded(found, item)
        elif overrides(arg):
            append_overloaded(found, arg)
    return found


def dispatch_indexing(tensor_class, name: str, args: tuple):
    """handle_torch_function_indexing for an exact tensor (whose __getitem__ / __setitem__
    has no checking wrapper) when its index or value overrides: the index and value's
    overriding objects (one level of tuples or lists looked into) decide, and the handler
    gets ``Tensor.<name>`` and the arguments as given."""
    public = getattr(tensor_class, name)
    return dispatch(public, f"ember.Tensor.{name}", _overriding_args(args[1:]), args, None)


# Note [Classes that opt out]
# A subclass whose __torch_function__ is the disabled one (nn.Parameter, nn.Buffer) never
# overrides, so with no mode pushed anywhere and no positional argument that could
# override, its wrappers have nothing to decide: they call the method at once, the answer
# the full check gives (overrides() reads the class attribute per call, so a class that
# assigns a handler later is checked again from its next call).
_DISABLED = _disabled_torch_function_impl


def _checked_method(tensor_class, method, name: str, style: str, public_name: str):
    refuses_arguments = getattr(method, "takes_no_arguments", False)

    def checked(self, *args, **kwargs):
        if refuses_arguments and (args or kwargs):
            no_arguments(self, name, args, kwargs)  # from here, as the method itself would
        cls = self.__class__
        if cls is not tensor_class or tf_state.anywhere:
            if not args and not tf_state.anywhere and cls.__torch_function__ is _DISABLED:
                return method(self, **kwargs)  # See Note [Classes that opt out]
            others = _overriding_args(args)
            if overrides(self) or others or mode_enabled():
                public = getattr(tensor_class, public_name)
                if style == _PYTHON:  # torch/_tensor.py's handle_torch_function(f, (self,), ...)
                    return handle_torch_function(public, (self,), self, *args, **kwargs)
                overloaded = [self] if style != _PARSER or overrides(self) else []
                for other in others:
                    append_overloaded(overloaded, other)
                call_kwargs = kwargs if style == _PYTHON else (kwargs or None)
                qualified = f"ember.Tensor.{public_name}"
                result = dispatch(public, qualified, overloaded, (self, *args), call_kwargs)
                return None if name == "__setitem__" else result  # a slot's answer is None
        elif _ATTACHED.idle:
            _detach_if_idle()
        return method(self, *args, **kwargs)

    checked.__name__ = checked.__qualname__ = name
    checked.__doc__ = method.__doc__
    if style == _PYTHON:
        checked.__module__ = "ember._tensor"  # as torch/_tensor.py's own methods
    checked.__wrapped__ = method
    setattr(checked, _MARK, True)
    return checked


def _checked_property(tensor_class, prop: property, name: str) -> property:
    getter = prop.fget
    qualified = f"ember.Tensor.{name}.__get__"

    def get(self):
        cls = self.__class__
        if cls is tensor_class:  # a plain tensor: only a mode can take the read
            if tf_state.anywhere:
                if mode_enabled():
                    public = tensor_class.__dict__[name].__get__
                    return dispatch(public, qualified, [self], (self,), None)
            elif _ATTACHED.idle:
                _detach_if_idle()
        elif not tf_state.anywhere and cls.__torch_function__ is _DISABLED:
            return getter(self)  # See Note [Classes that opt out]
        elif overrides(self) or mode_enabled():
            public = tensor_class.__dict__[name].__get__  # Tensor.<name>.__get__
            return dispatch(public, qualified, [self], (self,), None)
        return getter(self)

    setattr(get, _MARK, True)
    setter = prop.fset

    def set_(self, value):
        if self.__class__ is not tensor_class or tf_state.anywhere:
            if overrides(self) or mode_enabled():  # handle_torch_function_setter
                public = tensor_class.__dict__[name].__set__
                qualified = f"ember.Tensor.{name}.__set__"
                dispatch(public, qualified, [self], (self, value), None)
                return
        setter(self, value)

    wrapped_setter = setter if name in _UNCHECKED_SETTERS else set_
    checked = _Getset(get, wrapped_setter if setter is not None else None, prop.fdel, prop.__doc__)
    checked.__name__ = name
    return checked


class _Getset(property):
    """A property that knows its name, as PyTorch's getset descriptors do: a handler given
    `Tensor.shape.__get__` finds "shape" in `func.__self__.__name__`."""


# Note [Wrappers only where needed]
# The hand-written methods and properties above run as they are on exact Tensors: a
# wrapper would cost each call a frame and a repacking of its arguments. Their checking
# wrappers stand instead on each Tensor subclass (set when the class is created, unless it
# defines the attribute itself) and on ember.Tensor only while a TorchFunctionMode is
# pushed on some thread: set as the first mode is pushed, removed by the first call of a
# plain tensor's wrapped method after the last is popped (so a loop of `with mode: op`
# rewrites the class once). The handlers' own pop of the running mode does not count.
# A handler comparing `func` with `Tensor.size` does so while the wrappers stand; a `func`
# kept and compared after they are gone is the wrapper, not `Tensor.size`.
_WRAPPERS: dict = {}  # name -> (the attribute of ember.Tensor, its checking wrapper)
_TENSOR_CLASS: list = []


def install(tensor_class) -> None:
    """Build the checking wrappers of the hand-written methods and properties of
    ``tensor_class`` (ember.Tensor), once every layer has installed its own; see Note
    [Wrappers only where needed]."""
    _TENSOR_CLASS[:] = [tensor_class]
    for style, names in _METHODS.items():
        for name in names.split():
            _wrap(tensor_class, name, style, name)
    for name, public_name in _ALIASES.items():
        _wrap(tensor_class, name, _SELF, public_name)
    for name in _PROPERTIES:
        _wrap(tensor_class, name, None, name)
    set_hooks(_attach_to_tensor, _detach_from_tensor, _attach_to_subclass)
    pending = list(tensor_class.__subclasses__())  # those defined before (FakeTensor)
    while pending:
        cls = pending.pop()
        _attach_to_subclass(cls)
        pending.extend(cls.__subclasses__())
    if tf_state.anywhere:
        _attach_to_tensor()


def _wrap(tensor_class, name: str, style, public_name: str) -> None:
    attribute = tensor_class.__dict__.get(name)
    if attribute is None:
        attribute = getattr(tensor_class, name, None)
    if attribute is None:
        return
    if style is None:
        if isinstance(attribute, property) and not hasattr(attribute.fget, _MARK):
            original = _Getset(attribute.fget, attribute.fset, attribute.fdel, attribute.__doc__)
            original.__name__ = name
            setattr(tensor_class, name, original)
            _WRAPPERS[name] = (original, _checked_property(tensor_class, original, name))
    elif not hasattr(attribute, _MARK):
        wrapper = _checked_method(tensor_class, attribute, name, style, public_name)
        _WRAPPERS[name] = (attribute, wrapper)


class _ATTACHED:  # noqa: N801 (a namespace of two flags)
    """Whether the wrappers stand on ember.Tensor, and whether no mode is pushed since."""

    on = False
    idle = False


def _attach_to_tensor() -> None:
    """The first mode is pushed (under _torch_function's lock)."""
    _ATTACHED.idle = False
    if _ATTACHED.on:
        return
    tensor_class = _TENSOR_CLASS[0]
    for name, (original, wrapper) in _WRAPPERS.items():
        if tensor_class.__dict__.get(name) is original:
            setattr(tensor_class, name, wrapper)
    _ATTACHED.on = True


def _detach_from_tensor() -> None:
    """The last mode is popped: the wrappers stay until a plain tensor's call finds them
    idle, so that `with mode:` around each operation does not rewrite the class twice."""
    _ATTACHED.idle = True


def _detach_if_idle() -> None:
    with tf_state.lock:
        if not _ATTACHED.idle or tf_state.anywhere:
            return
        tensor_class = _TENSOR_CLASS[0]
        for name, (original, wrapper) in _WRAPPERS.items():
            if tensor_class.__dict__.get(name) is wrapper:
                setattr(tensor_class, name, original)
        _ATTACHED.on = _ATTACHED.idle = False


def _attach_to_subclass(cls) -> None:
    """A new subclass gets the wrappers of the attributes it takes from ember.Tensor."""
    if not _TENSOR_CLASS:
        return
    inherited = set(_TENSOR_CLASS[0].__mro__)
    for name, (_original, wrapper) in _WRAPPERS.items():
        owner = next((c for c in cls.__mro__ if name in c.__dict__), None)
        if owner in inherited:
            setattr(cls, name, wrapper)


def overridable(parser, module: str = "ember"):
    """A hand-written binding over ``parser`` (``ember.numel``) that consults
    __torch_function__ as the generated ones do (Note [Torch function checks])."""

    def wrap(function):
        @functools.wraps(function)
        def public(*args, **kwargs):
            try:
                if tf_state.anywhere:
                    raise_if_mode()
                return function(*args, **kwargs)
            except TorchFunctionCall:
                pass
            return handle_function(public, parser, args, kwargs, module)

        return public

    return wrap
