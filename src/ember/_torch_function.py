"""The ``__torch_function__`` protocol: per-thread state, mode stack, overloaded arguments.

Layer: beside _size (imports nothing of ember; ember.Tensor registers itself as the plain
type). Mirrors torch/csrc/utils/disable_torch_function.cpp (the state and its guards),
torch/csrc/utils/python_arg_parser.cpp (append_overloaded_arg,
handle_torch_function_no_python_arg_parser) the torch-function
mode stack of c10/core/impl/PythonTorchFunctionTLS.cpp, and torch/overrides.py's
handle_torch_function for functions written in Python. In: the public function
called, the objects that may override it, the call's args / kwargs. Out: the first
answer of a mode or an overriding type that is not NotImplemented, or PyTorch's TypeError.

Note [Torch function checks]
----------------------------
PyTorch decides per call whether to run __torch_function__ with a per-type test (an
exact Tensor never overrides) and a thread-local test (a mode is pushed). ember keeps
both as cheap on plain tensors:

* a binding tests ``obj.__class__ is Tensor`` for its tensor arguments (the parser's
  tensor converter, a method's ``self``), which it needs anyway; only another class
  reaches ``overrides(obj)``, which reads this thread's state;
* ``state.anywhere`` counts the modes pushed on every thread's stack together (a class
  attribute, one read per call; a handler's mode stepping aside while it runs does not
  count); only while it is non-zero does a binding ask whether this thread's stack
  holds one (``mode_enabled()``).

The hand-written methods and properties need not even that: see Note [Wrappers only
where needed] in aten/torch_function.py.

A binding that finds either raises ``TorchFunctionCall`` from inside its ``try``;
the ``except`` clause lets the binding fall through to ``handle_*`` outside the
``try`` (so a handler's own exception carries no context). The handler binds the
arguments again, collecting the overloaded ones as PyTorch's parser does, which keeps
PyTorch's order: an argument error comes before any __torch_function__.
"""

from __future__ import annotations

import enum
import threading
import warnings

__all__ = [
    "ENABLED",
    "SUBCLASSES_DISABLED",
    "ALL_DISABLED",
    "TorchFunctionCall",
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "state",
    "overrides",
    "mode_enabled",
    "append_overloaded",
    "dispatch",
    "_disabled_torch_function_impl",
]


class TorchFunctionState(enum.IntEnum):
    """torch._C._TorchFunctionState (TorchFunctionDisabledState)."""

    ENABLED = 0
    SUBCLASSES_DISABLED = 1
    ALL_DISABLED = 2

    def __str__(self) -> str:
        return f"_TorchFunctionState.{self.name}"

    __repr__ = __str__


ENABLED, SUBCLASSES_DISABLED, ALL_DISABLED = TorchFunctionState


class TorchFunctionCall(Exception):  # noqa: N818 (a signal, not an error)
    """Raised by a binding's checks: this call goes to __torch_function__ (see Note
    [Torch function checks]); never escapes a binding."""


class _PerThread(threading.local):
    def __init__(self) -> None:
        self.disabled = ENABLED
        self.modes: list = []  # the TorchFunctionMode stack, innermost last
        self.collecting = False  # a handler binds again: overriding arguments are accepted


class _State:
    """The process-wide count of pushed modes and each thread's own state."""

    anywhere = 0  # modes pushed on all threads' stacks together
    plain: tuple = ()  # the classes that never override: ember.Tensor
    local = _PerThread()
    lock = threading.Lock()


state = _State


def register_plain(cls) -> None:
    """``cls`` (ember.Tensor) never overrides, whatever its __torch_function__ says."""
    _State.plain = (*_State.plain, cls)


# -- state and its guards ---------------------------------------------------------


def is_enabled() -> bool:
    """torch._C._is_torch_function_enabled: subclasses' __torch_function__ runs."""
    return _State.local.disabled == ENABLED


def is_all_disabled() -> bool:
    return _State.local.disabled == ALL_DISABLED


def get_state() -> TorchFunctionState:
    return TorchFunctionState(_State.local.disabled)


def set_state(value: int) -> None:
    _State.local.disabled = int(value)


def mode_enabled() -> bool:
    """torch._C._is_torch_function_mode_enabled: a mode is pushed and not all is disabled."""
    local = _State.local
    return bool(local.modes) and local.disabled != ALL_DISABLED


class _DisableGuard:
    _target = ALL_DISABLED

    def __init__(self) -> None:
        self._old = None

    def __enter__(self):
        local = _State.local
        self._old = local.disabled
        if self._target == ALL_DISABLED or local.disabled == ENABLED:
            local.disabled = self._target

    def __exit__(self, exc_type, exc, tb) -> None:
        _State.local.disabled = self._old


class DisableTorchFunction(_DisableGuard):
    """torch._C.DisableTorchFunction: neither modes nor subclasses run inside."""

    __module__ = "ember._C"
    _target = ALL_DISABLED


class DisableTorchFunctionSubclass(_DisableGuard):
    """torch._C.DisableTorchFunctionSubclass: subclasses' __torch_function__ does not
    run inside (modes still do)."""

    __module__ = "ember._C"
    _target = SUBCLASSES_DISABLED


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """torch._C._disabled_torch_function_impl: a class attribute that opts out of
    __torch_function__; called directly, it runs ``func`` with subclasses disabled."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


# -- the mode stack ---------------------------------------------------------------


class _Hooks:
    """Set by aten (Note [Wrappers only where needed] in aten/torch_function.py): called as
    the first mode is pushed, after the last is popped, and for each new Tensor subclass."""

    first_mode = last_mode = new_subclass = staticmethod(lambda *args: None)


def set_hooks(first_mode, last_mode, new_subclass) -> None:
    _Hooks.first_mode = staticmethod(first_mode)
    _Hooks.last_mode = staticmethod(last_mode)
    _Hooks.new_subclass = staticmethod(new_subclass)


def subclass_created(cls) -> None:
    _Hooks.new_subclass(cls)


def push_mode(mode) -> None:
    """torch._C._push_on_torch_function_stack."""
    with _State.lock:
        if _State.anywhere == 0:
            _Hooks.first_mode()
        _State.anywhere += 1
    _State.local.modes.append(mode)


def pop_mode():
    """torch._C._pop_torch_function_stack."""
    modes = _State.local.modes
    if not modes:
        raise RuntimeError("Tried to pop from an empty mode stack")
    mode = modes.pop()
    with _State.lock:
        _State.anywhere -= 1
        if _State.anywhere == 0:
            _Hooks.last_mode()
    return mode


def stack_len() -> int:
    return len(_State.local.modes)


def stack_at(index: int):
    modes = _State.local.modes
    if not -len(modes) <= index < len(modes):
        raise RuntimeError("Attempting to get mode from index that is out of range")
    return modes[index]


# -- overloaded arguments ---------------------------------------------------------

_BASIC = frozenset({bool, int, float, complex, str, bytes, type(None), tuple, list, dict})


def overrides(obj) -> bool:
    """check_has_torch_function(obj, ignore_mode=True): ``obj``'s type has a
    __torch_function__ that is not the disabled one, and subclasses are enabled."""
    cls = obj.__class__
    if cls in _State.plain or cls in _BASIC:
        return False
    handler = getattr(cls, "__torch_function__", None)
    if handler is None or handler is _disabled_torch_function_impl:
        return False  # (before the thread's state, the dearer read)
    return _State.local.disabled == ENABLED


def append_overloaded(overloaded: list, obj) -> None:
    """append_overloaded_arg: one argument per type; a subclass goes before the first
    of its superclasses, the others keep their left-to-right order."""
    cls = type(obj)
    for other in overloaded:
        if type(other) is cls:
            return
    index = len(overloaded)
    for position, other in enumerate(overloaded):
        if issubclass(cls, type(other)):
            index = position
            break
    overloaded.insert(index, obj)


def overloaded_of(objs) -> list:
    """The overloaded arguments among ``objs`` (flat), in calling order."""
    found: list = []
    for obj in objs:
        if overrides(obj):
            append_overloaded(found, obj)
    return found


def dispatch(public_api, name: str, overloaded: list, args: tuple, kwargs: dict | None):
    """handle_torch_function_no_python_arg_parser: the innermost mode first (popped
    while it runs), then each overloaded argument's __torch_function__; the first answer
    that is not NotImplemented wins. ``name`` is the function's name in the error
    (``ember.add``, ``ember.Tensor.sum``)."""
    types = tuple(type(arg) for arg in overloaded)
    call_args = (public_api, types, args) if kwargs is None else (public_api, types, args, kwargs)
    mode = None
    if mode_enabled():
        modes = _State.local.modes
        mode = modes.pop()  # the running mode steps aside; the count stays (see _Hooks)
        try:
            result = mode.__torch_function__(*call_args)
        finally:
            modes.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        handler = arg.__torch_function__
        if getattr(handler, "__self__", None) is arg:
            warnings.warn(
                "Defining your `__torch_function__` as a plain method is deprecated and will "
                "be an error in future, please define it as a classmethod.",
                UserWarning,
                stacklevel=3,
            )
        result = handler(*call_args)
        if result is not NotImplemented:
            return result
    lines = [
        f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
        "NotImplemented:\n"
    ]
    if mode is not None:
        lines.append(f"  - mode object {mode!r}")
    lines.extend(f"  - tensor subclass {type(arg)!r}" for arg in overloaded)
    lines.append("\nFor more information, try re-running with TORCH_LOGS=not_implemented")
    raise TypeError("\n".join(lines))


def raise_if_mode() -> None:
    """A binding's mode check, once ``state.anywhere`` is non-zero (Note [Torch function
    checks])."""
    if mode_enabled():
        raise TorchFunctionCall


def raise_if_overrides(obj) -> None:
    """A method's check of ``self`` (not an exact Tensor) or of a pushed mode."""
    cls = obj.__class__  # overrides(obj), inline: every method of a subclass runs this
    if cls not in _State.plain and cls not in _BASIC:
        handler = getattr(cls, "__torch_function__", None)
        if (
            handler is not None
            and handler is not _disabled_torch_function_impl
            and _State.local.disabled == ENABLED
        ):
            raise TorchFunctionCall
    if _State.anywhere and mode_enabled():
        raise TorchFunctionCall


# -- functions written in Python (torch/overrides.py) -------------------------------


def get_overloaded_args(relevant_args, get_type_fn=None) -> list:
    if not is_enabled():
        return []
    get_type = type if get_type_fn is None else get_type_fn
    overloaded: list = []
    seen: set = set()
    for arg in relevant_args:
        cls = get_type(arg)
        if cls in seen:
            continue
        handler = getattr(cls, "__torch_function__", None)
        if handler is None or handler is _disabled_torch_function_impl:
            continue
        seen.add(cls)
        index = len(overloaded)
        for position, old in enumerate(overloaded):
            if issubclass(cls, get_type(old)):
                index = position
                break
        overloaded.insert(index, arg)
    return overloaded


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """The Python path: the mode first, then each overloaded argument (exact Tensors
    included, as torch.overrides does), else PyTorch's TypeError."""
    overloaded = get_overloaded_args(relevant_args)
    types = tuple(map(type, overloaded))
    if mode_enabled():
        modes = _State.local.modes
        mode = modes.pop()
        try:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            modes.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        handler = arg.__torch_function__
        if getattr(handler, "__self__", None) is arg:
            warnings.warn(
                "Defining your `__torch_function__ as a plain method is deprecated and "
                "will be an error in future, please define it as a classmethod.",
                DeprecationWarning,
                stacklevel=2,
            )
        result = handler(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    func_name = f"{public_api.__module__}.{public_api.__name__}"
    msg = (
        f"no implementation found for '{func_name}' on types that implement "
        f"__torch_function__: {[type(arg) for arg in overloaded]}"
    )
    if mode_enabled():
        msg += f" nor in mode {stack_at(-1)}"
    raise TypeError(msg)


def has_torch_function(relevant_args) -> bool:
    """torch.overrides.has_torch_function: a mode is enabled, or an argument that is no
    exact Tensor overrides."""
    return mode_enabled() or any(overrides(arg) for arg in relevant_args)


def self_wants(obj) -> bool:
    """A method's test once ``self`` is no exact Tensor or a mode is pushed somewhere:
    ``self`` overrides, or this thread's mode stack holds an enabled mode."""
    return overrides(obj) or (_State.anywhere and mode_enabled())


def handle_self(public, name: str, self, args: tuple, kwargs, *, parsed: bool = False):
    """A method whose only tensor is ``self``. Without a parser (``t.dim()``) PyTorch hands
    ``self`` on even as an exact Tensor under a mode; with one (``t.size()``) only if it
    overrides."""
    overloaded = [self] if not parsed or overrides(self) else []
    return dispatch(public, name, overloaded, (self, *args), kwargs or None)
