"""ember.Tensor: the Python face of TensorImpl, with what needs no operator.

Layer: torch face (imports only _c10 and its siblings _size / _tensor_str).
Mirrors torch/_tensor.py and the parts of torch/csrc/autograd/python_variable.cpp
that read tensor metadata. In: TensorImpls. Out: shape, strides, dtype, device,
item/tolist/numpy, Python protocols, printing, subclass constructors.

Operators (``+``, ``view``, ``sum``...) are attached to this class by the ATen
layer's generated bindings; autograd may replace the autograd properties here
(``requires_grad``, ``grad``, ``grad_fn``, ``is_leaf``) with fuller ones.
See Note [Kernel contract for tensor data] in _c10/tensor_impl.py for the
helpers kernels use (``wrap_array``, ``empty_tensor``, ``make_view``).
"""

from __future__ import annotations

import numpy as np

from ._c10 import dtypes as _dtypes
from ._c10.device import CPU, as_device
from ._c10.dispatch_key import DispatchKey
from ._c10.dispatch_key_set import FULL_MASK, full_after_bits
from ._c10.layout import strided
from ._c10.storage import Storage
from ._c10.tensor_impl import (
    CONJ_BITS,
    NEG_BITS,
    PYTHON_KEY_BITS,
    ZERO_TENSOR_BITS,
    TensorImpl,
    make_view,  # noqa: F401 (re-exported for kernels)
    resolved_array,
)
from ._c10.tls import local_state
from ._size import Size
from ._torch_function import (
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    register_plain,
    subclass_created,
)


def _wrap_dim(dim: int, ndim: int) -> int:
    """A dim in [-ndim, ndim) as a non-negative index, with c10's IndexError messages."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    bound = ndim
    if not -bound <= dim < bound:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], "
            f"but got {dim})"
        )
    return dim + bound if dim < 0 else dim


# Python and every key above it (FULL minus FULL_AFTER(Python)).
_PYTHON_AND_ABOVE = FULL_MASK & ~full_after_bits(DispatchKey.Python)


def _disabled_torch_dispatch_impl(func, types, args=(), kwargs=None):
    """torch._C._disabled_torch_dispatch_impl, ``Tensor.__torch_dispatch__``: run ``func``
    below the Python key (THPModule_disable_torch_dispatch excludes Python and every key
    before it, an approximation of a redispatch PyTorch documents as such)."""
    excluded = local_state.excluded
    added = _PYTHON_AND_ABOVE & ~excluded
    local_state.excluded = excluded | added
    try:
        return func(*args, **(kwargs or {}))
    finally:
        local_state.excluded &= ~added


_new_tuple = tuple.__new__


def _defines_torch_dispatch(cls) -> bool:
    """Whether ``cls`` has its own __torch_dispatch__ (not one Tensor itself carries)."""
    handler = getattr(cls, "__torch_dispatch__", None)
    if handler is None:
        return False
    default = Tensor.__dict__.get("__torch_dispatch__")
    if default is None:
        return True
    return getattr(handler, "__func__", handler) is not getattr(default, "__func__", default)


class Tensor(TensorImpl):
    """A tensor. Subclass freely; instances accept new attributes as torch's do."""

    __array_priority__ = 1000  # NumPy defers binary operators to the tensor, as for torch
    # A class that keeps this one does not define __torch_dispatch__ (facts §8.1).
    __torch_dispatch__ = staticmethod(_disabled_torch_dispatch_impl)
    # Printed as `ember.Tensor` (annotations, reprs, pickles), as torch.Tensor names itself
    __module__ = "ember"

    # -- metadata ----------------------------------------------------------
    @property
    def shape(self) -> Size:
        sizes = self._sizes
        for size in sizes:  # Size()'s check, inline: a tensor's sizes are ints
            if size.__class__ is not int:
                return Size(sizes)
        return _new_tuple(Size, sizes)

    def size(self, dim=None):
        if dim is None:
            sizes = self._sizes
            for size in sizes:
                if size.__class__ is not int:
                    return Size(sizes)
            return _new_tuple(Size, sizes)
        return self._sizes[_wrap_dim(dim, len(self._sizes))]

    def stride(self, dim=None):
        if dim is None:
            return self._strides
        return self._strides[_wrap_dim(dim, len(self._sizes))]

    def storage_offset(self) -> int:
        return self._storage_offset

    @property
    def ndim(self) -> int:
        return len(self._sizes)

    def ndimension(self) -> int:
        return len(self._sizes)

    def nelement(self) -> int:
        return self.numel()

    @property
    def layout(self):
        return strided

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    @property
    def is_meta(self) -> bool:
        return self.device.type == "meta"

    @property
    def is_cuda(self) -> bool:
        return False

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def is_signed(self) -> bool:
        return self.dtype.is_signed

    def get_device(self) -> int:
        return -1

    def untyped_storage(self) -> Storage:
        return self.storage()

    def data_ptr(self) -> int:
        """The first element's address; 0 without data or elements (as TensorImpl::data())."""
        storage = self.storage()
        if storage.data is None or 0 in self._sizes or self._key_bits & ZERO_TENSOR_BITS:
            return 0
        return storage.data_ptr() + self._storage_offset * self.dtype.itemsize

    @property
    def _version(self) -> int:
        if self._is_inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        counter = self._version_counter
        return 0 if counter is None else counter.version

    # -- autograd slots (ember.autograd may install fuller properties) ------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self._grad_fn is not None and not value:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        self._requires_grad = bool(value)

    @property
    def grad_fn(self):
        return self._grad_fn

    def _is_view(self) -> bool:
        """Whether autograd records this tensor as a view of ``_base`` (is_view())."""
        return self._base is not None

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        self._grad = value

    # -- values as Python / NumPy objects ------------------------------------
    def _check_has_data(self, what: str) -> None:
        if self.device.type == "meta":
            if what == "item":
                raise RuntimeError("Tensor.item() cannot be called on meta tensors")
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        if self._functorch is not None:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        if self._storage is not None and self._storage.data is None:
            raise RuntimeError(
                f"Cannot access the data of a {type(self).__name__} that has no storage "
                "(a wrapper subclass)"
            )

    def tolist(self):
        if self._python_dispatch:  # THPVariable_tolist: the Python key is refused first
            raise RuntimeError(
                f".tolist() is not supported for tensor subclasses, got {type(self).__name__}"
            )
        if self._key_bits & ZERO_TENSOR_BITS:  # its storage is unallocated in PyTorch
            raise RuntimeError("tolist() shouldn't be called on a tensor with unallocated storage")
        self._check_has_data("tolist")
        array = resolved_array(self)
        if self.dtype is _dtypes.bfloat16:
            array = array.astype(np.float32)
        return array.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        if self._python_dispatch:  # tensor_to_numpy: the Python key is refused first
            raise RuntimeError(".numpy() is not supported for tensor subclasses.")
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        if self.device.type != "cpu":
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. "
                "Use Tensor.cpu() to copy the tensor to host memory first."
            )
        if self._key_bits & ZERO_TENSOR_BITS and not force:
            raise RuntimeError(
                " Cannot convert a ZeroTensor to numpy. Set force=True if you need the zero array."
            )
        if self._key_bits & CONJ_BITS:
            raise RuntimeError(
                "Can't call numpy() on Tensor that has conjugate bit set. "
                "Use tensor.resolve_conj().numpy() instead."
            )
        if self._key_bits & NEG_BITS:
            raise RuntimeError(
                "Can't call numpy() on Tensor that has negative bit set. "
                "Use tensor.resolve_neg().numpy() instead."
            )
        if self.dtype is _dtypes.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        self._check_has_data("numpy")
        return self.ndarray().view()  # a new view object: callers may reshape it freely

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        if dtype is not None:
            array = array.astype(dtype, copy=False)
        return array

    def _one_element(self, kind: str):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __float__(self) -> float:
        value = self._one_element("float")
        if isinstance(value, complex):
            if value.imag != 0:
                raise RuntimeError("value cannot be converted to type double without overflow")
            value = value.real
        return float(value)

    def __int__(self) -> int:
        value = self._one_element("int")
        if isinstance(value, complex):
            if value.imag != 0:
                raise RuntimeError("value cannot be converted to type int64_t without overflow")
            value = value.real
        return int(value)

    def __complex__(self) -> complex:
        return complex(self._one_element("complex"))

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.dtype.is_complex or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._functorch is not None:  # the wrapper's record says what it allows
            self._functorch.check_bool()
        numel = self.numel()
        if numel == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if numel > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __len__(self) -> int:
        if not self._sizes:
            raise TypeError("len() of a 0-d tensor")
        return self._sizes[0]

    def __iter__(self):
        # Iteration is unbind(0) in PyTorch; the ATen layer provides ``unbind``.
        if not self._sizes:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    __hash__ = object.__hash__  # operators may define __eq__; identity stays the hash

    # -- printing ----------------------------------------------------------
    def __repr__(self, *, tensor_contents=None) -> str:
        if self._functorch is not None:  # BatchedTensor(...), GradTrackingTensor(...)
            return self._functorch.repr()
        from ._tensor_str import _str

        return _str(self, tensor_contents=tensor_contents)

    def __format__(self, spec: str) -> str:
        if not self._sizes and self.device.type == "cpu" and type(self) is Tensor:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # -- subclasses ----------------------------------------------------------
    # _make_subclass, _make_wrapper_subclass, as_subclass and the legacy constructor
    # (``__new__``) parse their arguments as PyTorch does, so they live above aten
    # (ember/_tensor_subclass.py).

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        # THPVariableMetaType_init: a class that defines its own __torch_dispatch__ and no
        # __torch_function__ of its own gets the disabled one (its subclasses inherit it)
        own = cls.__dict__
        dispatch = own.get("__torch_dispatch__")
        if (
            dispatch is not None
            and getattr(dispatch, "__func__", dispatch) is not _disabled_torch_dispatch_impl
            and "__torch_function__" not in own
        ):
            cls.__torch_function__ = _disabled_torch_function_impl
        subclass_created(cls)  # See Note [Wrappers only where needed]

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """torch/_tensor.py's default: run ``func`` with subclasses' __torch_function__
        disabled, and return its tensors as ``cls`` (not for field reads such as
        ``Tensor.grad.__get__``, get_default_nowrap_functions)."""
        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            ret = func(*args, **kwargs)
            if func in _default_nowrap_functions():
                return ret
            return _convert(ret, cls)


def _default_nowrap_functions() -> set:
    """torch.overrides.get_default_nowrap_functions: field reads keep their object."""
    fields = (getattr(Tensor, name, None) for name in ("_base", "grad", "_grad"))
    return {field.__get__ for field in fields if field is not None}


def _convert(ret, cls):
    """torch/_tensor.py's _convert: tensors (also inside tuples and lists) as ``cls``."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        ret = ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        ret = type(ret)(_convert(r, cls) for r in ret)
    return ret


def _alias_as(source, cls):
    """A ``cls`` alias of ``source`` (same storage and version counter), with the
    Python keys iff ``cls`` defines __torch_dispatch__ (facts §8.1)."""
    dispatches = _defines_torch_dispatch(cls)
    key_bits = source._key_bits & ~PYTHON_KEY_BITS
    if dispatches:
        key_bits |= PYTHON_KEY_BITS
    result = cls._from_storage(
        source.storage(),
        source._sizes,
        source._strides,
        source._storage_offset,
        source.dtype,
        source.device,
        key_bits=key_bits,
        inference=source._is_inference,
    )
    result._python_dispatch = dispatches
    if not source._is_inference:
        result._version_counter = source.version_counter()
    return result


register_plain(Tensor)  # an exact Tensor never overrides (Note [Torch function checks])
Tensor._view_class = Tensor  # See Note [Views are plain tensors]


# ---------------------------------------------------------------------------
# Kernel-facing constructors. See Note [Kernel contract for tensor data].


def wrap_array(array, dtype=None, inference=None) -> Tensor:
    """A Tensor over a fresh NumPy array (no copy when dense)."""
    return Tensor._wrap(array, dtype, inference)


def empty_tensor(sizes, dtype=None, device=CPU, strides=None, inference=None) -> Tensor:
    """Fresh, uninitialised memory (contiguous unless ``strides`` is given)."""
    dtype = _dtypes.get_default_dtype() if dtype is None else dtype
    return Tensor._empty(sizes, dtype, as_device(device), strides, inference)


def tensor_from_numpy(
    array, device=None, requires_grad: bool = False, dtype=None, inference=None
) -> Tensor:
    """A Tensor holding a COPY of ``array`` (tests and factory kernels).

    ``dtype`` converts the values; on meta only the shape and dtype are kept.
    """
    array = np.asarray(array)
    if dtype is None:
        dtype = _dtypes.from_numpy_dtype(array.dtype)
    device = as_device(device)
    if device.type == "meta":
        result = Tensor._empty(array.shape, dtype, device, inference=inference)
    else:
        result = Tensor._wrap(np.array(array, dtype=dtype.np_dtype, order="C"), dtype, inference)
    result._requires_grad = bool(requires_grad)
    return result
