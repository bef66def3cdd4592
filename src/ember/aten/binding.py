"""What the generated Python API calls: operator handles, wrapped numbers, factory finishing.

Layer: aten. In: overload names and Python values. Out: bound dispatcher
entry points (see Note [Dispatcher calling convention] in docs/architecture.md).
Mirrors the helpers of torch/csrc/utils/python_arg_parser.h and
wrapped_scalar_tensor (ATen/ScalarOps.h).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.device import check_linked, device_lazy_init
from ember._c10.tls import AutoDispatchBelowADInplaceOrView
from ember._dispatch.dispatcher import dispatcher
from ember._tensor import Tensor
from ember._torch_function import ENABLED, _disabled_torch_function_impl
from ember._torch_function import _State as _tf_state


def handle(overload: str):
    """The dispatcher's handle for ``add.Tensor`` / ``mm`` (namespace aten).

    Callers keep the handle and call ``handle.call(...)`` each time: the handle
    swaps its call path when tracing starts or stops, so a bound ``.call`` saved
    earlier would miss the trace.
    """
    name, _, overload_name = overload.partition(".")
    return dispatcher.find_schema_or_throw("aten::" + name, overload_name)


_NUMBER_DTYPES = {
    bool: (dtypes.bool, np.bool_),
    int: (dtypes.int64, np.int64),
    complex: (dtypes.complex128, np.complex128),
    float: (dtypes.float64, np.float64),
}


def scalar_to_tensor(value) -> Tensor:
    """A 0-dim tensor for a Python number, marked as a wrapped number for type promotion."""
    found = _NUMBER_DTYPES.get(type(value))
    dtype, np_type = found if found is not None else _number_dtype(value)
    try:
        array = np.array(value, dtype=np_type)
    except OverflowError:  # See Note [Python ints are int64] in python_arg_convert.py
        if value < -(2**63):
            raise OverflowError("can't convert negative int to unsigned") from None
        if value >= 2**64:
            raise OverflowError("int too big to convert") from None
        array, dtype = np.array(value, dtype=np.uint64), dtypes.uint64  # Note [uint64 Scalars]
    result = Tensor._wrap_fresh(array, dtype)  # a fresh 0-d ndarray of dtype's NumPy dtype
    result._is_wrapped_number = True
    return result


def _number_dtype(value):
    for kind in (bool, int, float, complex):
        if isinstance(value, kind):
            return _NUMBER_DTYPES[kind]
    raise TypeError(f"expected a number, got {type(value).__name__}")


def wrap_number(value):
    """A Python number in a Tensor position becomes a wrapped-number tensor (else unchanged)."""
    if isinstance(value, Tensor) or value is None:
        return value
    if isinstance(value, (bool, int, float, complex)):
        return scalar_to_tensor(value)
    return value


def plain_tensor(value) -> bool:
    """A Tensor parameter's argument that the parser takes as it is, for a binding's fast
    path: a tensor (subclass) that does not override __torch_function__ (Note [Torch
    function checks]); an exact Tensor the caller tests first, inline."""
    if not isinstance(value, Tensor):
        return False
    cls = value.__class__  # not overrides(value), inline: every subclass argument runs this
    if cls in _tf_state.plain:
        return True
    handler = getattr(cls, "__torch_function__", None)
    if handler is None or handler is _disabled_torch_function_impl:
        return True
    return _tf_state.local.disabled != ENABLED


def plain_scalar(value) -> bool:
    """A Scalar parameter's argument that the parser takes as it is, for a binding's fast
    path: a float, or an int within int64 (python_arg_convert's _scalar returns both
    unchanged; anything else, None included, is left to the parser)."""
    cls = value.__class__
    return cls is float or (cls is int and -(2**63) <= value < 2**63)


def check_target_device(device) -> None:
    """`to()`, `tensor()` and `new_tensor()` onto a device ember has no backend for (Note
    [Devices ember has no backend for]): the accelerator's lazy initialisation, then the
    device guard; the lazy device has one, and the copy then finds no kernel."""
    device_lazy_init(device.type)
    if device.type == "lazy":
        raise handle("empty.memory_format").entry.missing_kernel_error(device.dispatch_key)
    check_linked(device.type)


def check_out_type_matches(out, dtype, device) -> None:
    """torch/csrc/utils/out_types.cpp: a factory's dtype= and device= must describe its out=
    (ember has one layout, strided, so a layout= never differs)."""
    if dtype is not None and out.dtype is not dtype:
        raise RuntimeError(
            f"dtype {dtypes.scalar_type_name(dtype)} does not match dtype of out parameter "
            f"({dtypes.scalar_type_name(out.dtype)})"
        )
    if device is not None and out.device.type != device.type:
        raise RuntimeError(
            f"device type {device.type} does not match device type of out parameter "
            f"({out.device.type})"
        )


def _set_requires_grad(result, requires_grad: bool):
    if requires_grad:
        dtype = result.dtype
        if not (dtype.is_floating_point or dtype.is_complex):  # TensorImpl::set_requires_grad
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        result.requires_grad = True  # not requires_grad_(): allowed inside a functorch transform
    return result


def make_factory_out(op, args: tuple, requires_grad: bool):
    """A Python factory function's out= overload: the operator as called (autograd sees
    `out`, and refuses one that requires grad), then requires_grad set on the result."""
    return _set_requires_grad(op.call(*args), requires_grad)


def make_factory(op, args: tuple, requires_grad: bool):
    """A Python factory function (`ember.zeros(..., requires_grad=True)`).

    As PyTorch's variable_factories.h, the operator runs below ADInplaceOrView
    (a fresh tensor's own initialisation is no in-place update: `_version` stays
    0), and requires_grad is set on the result afterwards.
    """
    with AutoDispatchBelowADInplaceOrView():
        result = op.call(*args)
    return _set_requires_grad(result, requires_grad)
