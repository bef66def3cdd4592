"""torch._C's whole-dispatcher queries and boxed calls, as PyTorch's dispatcher tests use them.

Layer: just below _C, which re-exports every name here (imports _c10, _dispatch and _ops).
Mirrors the bindings of torch/csrc/utils/python_dispatch.cpp over
c10::Dispatcher::checkInvariants, findDanglingImpls and getRegistrationsForDispatchKey,
and ``_dispatch_call_boxed``. In: key names, operator handles, Python arguments. Out: the
values, printed lines and errors (pybind11's TypeError for a wrong argument type) PyTorch's
functions give. torch._C._dispatch_library lives in ember/_library/dispatch_module.py: its
Python kernels sit above this layer.
"""

from __future__ import annotations

from ember import _ops
from ember._c10.dispatch_key import DispatchKey, parse_dispatch_key
from ember._dispatch.dispatcher import OperatorHandle, dispatcher

__all__ = [
    "_dispatch_call_boxed",
    "_dispatch_check_all_invariants",
    "_dispatch_find_dangling_impls",
    "_dispatch_get_registrations_for_dispatch_key",
    "_dispatch_print_registrations_for_dispatch_key",
]


def _refuse(name: str, signature: str, invoked: tuple, kwargs: dict | None = None) -> TypeError:
    text = ", ".join(repr(value) for value in invoked)
    if kwargs:
        text += "; kwargs: " + ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    return TypeError(
        f"{name}(): incompatible function arguments. The following argument types are "
        f"supported:\n    1. {signature}\n\nInvoked with: {text}"
    )


def _dispatch_check_all_invariants() -> None:
    """Dispatcher::checkInvariants: every operator's table is what its registrations give."""
    for name in dispatcher.all_op_names(sort=False):
        dispatcher.check_invariants(name)


def _dispatch_find_dangling_impls() -> list[str]:
    """The dump of every operator that has kernels but no def (an impl for a typo'd name)."""
    found = []
    for name in dispatcher.all_op_names(sort=False):
        handle = dispatcher.find_op(name)
        if handle is not None and not handle.has_schema() and handle.entry.kernels:
            found.append(handle.entry.dump())
    return found


def _dispatch_get_registrations_for_dispatch_key(dispatch_key: str = "") -> list[str]:
    """Every operator with a kernel registered directly at ``dispatch_key`` ("": every one)."""
    if not isinstance(dispatch_key, str):
        raise _refuse(
            "_dispatch_get_registrations_for_dispatch_key",
            "(dispatch_key: str = '') -> list[str]",
            (dispatch_key,),
        )
    key = parse_dispatch_key(dispatch_key) if dispatch_key else None
    names = dispatcher.all_op_names(sort=False)
    if key is None:
        return names
    if key == DispatchKey.Undefined:
        return []
    return [name for name in names if dispatcher.find_op(name).entry.has_kernel_for_key(key)]


def _dispatch_print_registrations_for_dispatch_key(dispatch_key: str = "") -> None:
    """Print the operators of ``_dispatch_get_registrations_for_dispatch_key``, one a line."""
    if not isinstance(dispatch_key, str):
        raise _refuse(
            "_dispatch_print_registrations_for_dispatch_key",
            "(dispatch_key: str = '') -> None",
            (dispatch_key,),
        )
    for name in _dispatch_get_registrations_for_dispatch_key(dispatch_key):
        print(name)


def _dispatch_call_boxed(handle, *args, **kwargs):
    """Call the operator of ``handle`` (from _dispatch_find_schema_or_throw) on Python values."""
    if not isinstance(handle, OperatorHandle):
        raise _refuse(
            "_dispatch_call_boxed",
            "(arg0: torch._C._DispatchOperatorHandle, *args, **kwargs) -> object",
            (handle, *args),
            kwargs,
        )
    schema = handle.schema
    try:
        full = schema.bind(args, kwargs)  # no number stands in for a Tensor here
        schema.check_defined(full)
        return handle.call(*full)
    except RuntimeError as error:
        _ops._raise_as_pybind(error)
        raise
