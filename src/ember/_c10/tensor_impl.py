"""TensorImpl: storage + sizes + strides + offset + dtype + device + key set.

Layer: _c10 (imports nothing of ember outside _c10). Mirrors c10/core/TensorImpl.h
(and the version counter of c10/core/TensorImpl.h VariableVersion).
In: storages or fresh NumPy arrays. Out: tensor implementations that kernels
read and write through NumPy views; ``ember.Tensor`` subclasses this class.

Note [Kernel contract for tensor data]
--------------------------------------
Kernels never touch storages directly; they use four entry points:

* ``t.ndarray()`` -- a NumPy array VIEW of ``t`` honouring sizes, strides and
  storage offset (writes through it are visible in every alias). It is cached
  on the tensor, so calling it again is one attribute read. Meta tensors raise.
* ``cls._wrap(array, dtype=None)`` (``ember._tensor.wrap_array``) -- a new
  tensor over a FRESH NumPy array (a ufunc result, ``np.empty``...): no copy
  when the array is dense (C-contiguous, or a permutation of that such as the
  F-ordered result of an op on transposed inputs). Strides follow the array.
  The array must not alias any other tensor's memory: pass ``arr.copy()`` if
  in doubt. A NumPy scalar is accepted (it becomes a 0-dim tensor).
* ``cls._empty(sizes, dtype, device, strides=None)`` -- fresh storage,
  contiguous unless ``strides`` is given (then the storage spans the strides).
* ``make_view(base, sizes, strides, storage_offset)`` -- a view sharing
  ``base``'s storage and version counter (``base`` is any tensor; the caller
  records autograd view bookkeeping separately). The kernels of view
  operators return ``new_view``'s, with a counter of their own, as c10's view
  constructor does: the op's ADInplaceOrView kernel shares the base's.

A metadata change in place (``as_strided_``, ``transpose_``, ``resize_``...)
must go through ``t._set_sizes_strides(sizes, strides, offset)``, which drops
the cached NumPy view.

Fresh tensors (``_wrap``, ``_empty``, ``_from_storage`` without key bits) are
inference tensors when inference mode is on, as c10's TensorImpl constructor
decides (facts §7.2); ``inference=True/False`` overrides. Views keep their
base's key set (less the Python keys) and inference flag.

Note [Views are plain tensors]
------------------------------
A view a kernel makes is a new TensorImpl, and c10's view constructor drops the
Python keys (``key_set - python_ks``); its Python object is the plain
``torch.Tensor``, not the base's subclass, because no Python code made it. So
``make_view`` builds an instance of ``base._view_class`` (``ember.Tensor`` for
every tensor; None, the base's own class, for a bare TensorImpl) without the
Python and PythonTLSSnapshot keys. A subclass sees its class on a view only
through ``__torch_function__`` (the default converts results, ``_convert``) or
its ``__torch_dispatch__`` (which wraps what it returns).

Note [NumPy scalars from 0-d operands]
--------------------------------------
A NumPy ufunc or reduction whose operands are all 0-d returns a NumPy scalar
(``np.float32(2.0)``), not a 0-d array, unless it is given ``out=``. A scalar
is immutable and has no buffer, so it can never be a tensor's data: every
in-place op, ``fill_``, ``t[...] = v`` and storage sharing would fail on it.
The two wrapping entry points are the one boundary every kernel result
crosses, so they turn a scalar into a 0-d array there (``_wrap`` for any
non-array, ``_wrap_fresh`` for a 0-d result only, which the hot path's
sized results skip with one falsy-tuple test); kernels need not care.

Note [Lazy storage and version counter]
---------------------------------------
So that wrapping a result costs well under a microsecond, a tensor made by
``_wrap`` keeps its array in ``_array`` and builds its ``Storage`` only when
asked (``storage()``, ``data_ptr``, ``make_view``). Likewise ``_version_counter``
is None until a view shares it or an in-place op bumps it: read it through
``version_counter()``. Inference tensors have none (facts §7.2).
"""

from __future__ import annotations

import numpy as np

from .device import CPU, META, check_linked
from .dispatch_key import DispatchKey
from .dispatch_key_set import key_bits, keys_bits
from .dtypes import _BY_NUMPY, from_numpy_dtype
from .geometry import (  # noqa: F401 (re-exported: kernels import them from here)
    _CONTIGUOUS_STRIDES,
    compute_numel,
    contiguous_strides,
    dense_order,
    inverse_permutation,
    is_channels_last,
    is_contiguous_strides,
    shape_text,
    storage_span,
)
from .storage import (
    NUMPY_MAX_DIMS,
    Storage,
    allocation_error,
    numpy_empty,
    storage_nbytes,
    strided_storage_nbytes,
    too_many_dims,
)
from .thread_state import per_thread

# Key sets of fresh tensors (facts §3.5, §7.2, §8.1).
CPU_KEY_BITS = keys_bits(
    [DispatchKey.CPU, DispatchKey.ADInplaceOrView, DispatchKey.AutogradCPU, DispatchKey.AutocastCPU]
)
META_KEY_BITS = keys_bits([DispatchKey.Meta, DispatchKey.ADInplaceOrView, DispatchKey.AutogradMeta])
CPU_INFERENCE_KEY_BITS = keys_bits([DispatchKey.CPU, DispatchKey.AutocastCPU])
META_INFERENCE_KEY_BITS = key_bits(DispatchKey.Meta)
PYTHON_KEY_BITS = key_bits(DispatchKey.Python) | key_bits(DispatchKey.PythonTLSSnapshot)
ZERO_TENSOR_BITS = key_bits(DispatchKey.ZeroTensor)  # a ZeroTensor (aten/zero_tensor.py)
CONJ_BITS = key_bits(DispatchKey.Conjugate)  # the lazy conjugate bit (aten/math_bits.py)
NEG_BITS = key_bits(DispatchKey.Negative)  # the lazy negative bit (aten/math_bits.py)
MATH_BITS = CONJ_BITS | NEG_BITS
_NOT_PYTHON_KEY_BITS = ~PYTHON_KEY_BITS


def device_key_bits(device, inference: bool = False) -> int:
    """The key set a fresh tensor on ``device`` carries."""
    if device.type == "cpu":
        return CPU_INFERENCE_KEY_BITS if inference else CPU_KEY_BITS
    return META_INFERENCE_KEY_BITS if inference else META_KEY_BITS


class VersionCounter:
    """Shared by a base and all its views; in-place ops ``bump()`` it."""

    __slots__ = ("version",)

    def __init__(self, version: int = 0) -> None:
        self.version = version

    def bump(self) -> None:
        self.version += 1


class TensorImpl:
    """The data of a tensor. See Note [Kernel contract for tensor data]."""

    __slots__ = (
        "_storage",  # Storage, or None while _array is the whole storage (lazy)
        "_array",  # cached NumPy view, or None
        "_sizes",  # tuple of ints
        "_strides",  # tuple of ints, in elements
        "_storage_offset",  # in elements
        "dtype",
        "device",
        "_key_bits",  # raw DispatchKeySet bits
        "_is_inference",
        # Reserved for autograd (ember.autograd owns their meaning).
        "_requires_grad",
        "_grad_fn",
        "__dict__",  # the rarer fields below, once set, and what subclasses add
    )

    # -- construction ------------------------------------------------------
    # Every constructor sets every slot (an unset slot would raise on read);
    # they are written out in full because allocation is on every op's hot path.
    # Fields most tensors never change are class-level defaults instead: a fresh
    # tensor costs no store for them, and reading them costs what a slot does.
    _version_counter = None  # VersionCounter (lazy; always None on inference tensors)
    _python_dispatch = False  # the class defines __torch_dispatch__
    _python_metadata = 0  # See Note [Python metadata] in py_interpreter.py
    _is_wrapped_number = False  # a Python number wrapped as a 0-dim tensor (promotes as one)
    _view_class = None  # the class of a view (None: the base's); Note [Views are plain tensors]
    # Reserved for autograd (ember.autograd owns their meaning).
    _grad = None
    _output_nr = 0
    _base = None
    _view_info = None
    _backward_hooks = None
    _retains_grad = False
    # A functorch wrapper's record (BatchedTensor, GradTrackingTensor): its value and level.
    _functorch = None
    _fw_grad = None  # ForwardGrad: tangents per level (Note [Forward grads])

    @classmethod
    def _wrap(cls, array, dtype=None, inference=None):
        """A new tensor over a fresh NumPy array. See Note [Kernel contract for tensor data]."""
        if array.__class__ is not np.ndarray:
            array = np.asarray(array)
        if dtype is None:
            dtype = _BY_NUMPY.get(array.dtype)
            if dtype is None:
                dtype = from_numpy_dtype(array.dtype)
        self = cls._wrap_fresh(array, dtype, inference)
        if not array.flags.c_contiguous:
            _adopt_strided(self, array)  # its own storage, array and strides
        return self

    @classmethod
    def _wrap_fresh(cls, array, dtype, inference=None):
        """``_wrap`` for the fast paths' results: a C-contiguous ndarray of ``dtype``'s NumPy
        dtype, fresh from NumPy, so nothing about it needs checking -- except that a NumPy
        ufunc over 0-d operands returns a NumPy scalar, not an array (Note [NumPy scalars
        from 0-d operands])."""
        if inference is None:
            inference = per_thread.state.inference_mode
        self = object.__new__(cls)
        sizes = array.shape
        if not sizes and array.__class__ is not np.ndarray:
            array = np.asarray(array)
        self._storage = None
        self._array = array
        strides = _CONTIGUOUS_STRIDES.get(sizes)
        self._strides = strides if strides is not None else contiguous_strides(sizes)
        self._sizes = sizes
        self._storage_offset = 0
        self.dtype = dtype
        self.device = CPU
        if inference:
            self._key_bits = CPU_INFERENCE_KEY_BITS
            self._is_inference = True
        else:
            self._key_bits = CPU_KEY_BITS
            self._is_inference = False
        self._requires_grad = False
        self._grad_fn = None
        return self

    @classmethod
    def _from_storage(
        cls, storage, sizes, strides, storage_offset, dtype, device, key_bits=None, inference=None
    ):
        """A tensor over an existing storage (the general constructor).

        With ``key_bits`` None the tensor is fresh: its keys come from the device
        and, as in c10's TensorImpl constructor, from inference mode when
        ``inference`` is None. A view passes its base's key bits and inference flag.
        """
        if inference is None:
            inference = per_thread.state.inference_mode
        self = object.__new__(cls)
        self._storage = storage
        self._array = None
        self._sizes = tuple(sizes)
        self._strides = tuple(strides)
        self._storage_offset = storage_offset
        self.dtype = dtype
        self.device = device
        if key_bits is None:
            key_bits = device_key_bits(device, inference)
        self._key_bits = key_bits
        self._is_inference = inference
        self._requires_grad = False
        self._grad_fn = None
        return self

    @classmethod
    def _empty(cls, sizes, dtype, device=CPU, strides=None, inference=None):
        """Fresh memory for ``sizes`` (contiguous unless other ``strides`` are given)."""
        if inference is None:
            inference = per_thread.state.inference_mode
        if sizes.__class__ is not tuple:
            sizes = tuple(sizes)
        contiguous = _CONTIGUOUS_STRIDES.get(sizes) or contiguous_strides(sizes)
        strided = strides is not None  # empty_strided: PyTorch's meta kernel checks no size
        if strided:
            strides = tuple(strides)
            if strides == contiguous:
                strides = None
        if device is CPU and strides is None:
            np_dtype = dtype.np_dtype
            if np_dtype is None:
                _numpy_dtype(dtype)  # raises
            try:
                array = np.empty(sizes, np_dtype)
            except (MemoryError, ValueError) as error:  # See Note [Allocation errors]
                raise allocation_error(error, sizes, dtype.itemsize) from None
            return cls._wrap(array, dtype, inference)
        if device.type != "meta" and device.type != "cpu":
            check_linked(device.type)  # See Note [Devices ember has no backend for]
        if strides is None and not (strided and device.type == "meta"):
            strides = contiguous
            nbytes = storage_nbytes(sizes, dtype.itemsize)
        elif device.type == "meta":
            strides = contiguous if strides is None else strides
            nbytes = storage_span(sizes, strides, 0) * dtype.itemsize  # PyTorch checks none
        else:
            nbytes = strided_storage_nbytes(sizes, strides, dtype.itemsize)
        if device.type == "meta":
            storage = Storage(None, nbytes, META)
            return cls._from_storage(storage, sizes, strides, 0, dtype, device, inference=inference)
        memory = numpy_empty((nbytes // dtype.itemsize,), _numpy_dtype(dtype), dtype.itemsize)
        storage = Storage.from_array(memory)
        self = cls._from_storage(storage, sizes, strides, 0, dtype, device, inference=inference)
        order = dense_order(sizes, strides)
        if order is not None:  # a permuted dense layout: build the view now, cheaply
            memory_sizes = tuple(sizes[d] for d in order)
            self._array = memory.reshape(memory_sizes).transpose(inverse_permutation(order))
        return self

    # -- storage, views, versions -------------------------------------------
    def storage(self) -> Storage:
        storage = self._storage
        if storage is None:
            storage = self._storage = Storage.from_array(self._array)
        return storage

    def version_counter(self) -> VersionCounter:
        """The counter shared with this tensor's views (created on first use)."""
        counter = self._version_counter
        if counter is None:
            if self._is_inference:
                raise RuntimeError("Inference tensors do not track version counter.")
            counter = self._version_counter = VersionCounter()
        return counter

    def _set_sizes_strides(self, sizes, strides, storage_offset=None) -> None:
        """Change the geometry in place (as_strided_, resize_...): drops the cached view."""
        self.storage()
        self._sizes = tuple(sizes)
        self._strides = tuple(strides)
        if storage_offset is not None:
            self._storage_offset = storage_offset
        self._array = None

    def _adopt_storage_of(self, fresh) -> None:
        """Take over `fresh`'s storage and geometry (resize_ of an out= argument).

        Like c10's resize, the tensor keeps its identity, dtype, key set and
        version counter; only its memory and geometry change.
        """
        self._storage = fresh.storage()
        self._set_sizes_strides(fresh._sizes, fresh._strides, fresh._storage_offset)

    def ndarray(self) -> np.ndarray:
        """A NumPy view of this tensor's elements. See Note [Kernel contract for tensor data]."""
        array = self._array
        if array is None:
            storage = self._storage
            if storage.data is None:
                raise RuntimeError(
                    f"Cannot access data of a {self.device.type} tensor: it has no storage data"
                )
            itemsize = self.dtype.itemsize
            if 0 in self._sizes:  # no element: the offset may lie past the storage's end
                array = np.empty(self._sizes, self.dtype.np_dtype)
                self._array = array
                return array
            try:
                array = np.ndarray(
                    self._sizes,
                    self.dtype.np_dtype,
                    storage.data,
                    self._storage_offset * itemsize,
                    tuple([stride * itemsize for stride in self._strides]),
                )
            except ValueError:
                if len(self._sizes) > NUMPY_MAX_DIMS:
                    raise too_many_dims(len(self._sizes)) from None
                raise
            self._array = array
        return array

    # -- geometry ----------------------------------------------------------
    def numel(self) -> int:
        return compute_numel(self._sizes)

    def dim(self) -> int:
        return len(self._sizes)

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return compute_numel(self._sizes) * self.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def is_contiguous(self, *args, memory_format=None) -> bool:
        """Row-major contiguity, ignoring size-1 dims; any empty tensor is contiguous."""
        if args:  # is_contiguous(*, MemoryFormat memory_format=contiguous_format)
            verb = "was" if len(args) == 1 else "were"
            raise TypeError(
                f"is_contiguous() takes 0 positional arguments but {len(args)} {verb} given"
            )
        if memory_format is not None and getattr(memory_format, "_name", None) in (
            "channels_last",
            "channels_last_3d",
        ):  # any other format (preserve_format too) asks for row-major contiguity
            return is_channels_last(self._sizes, self._strides, memory_format._name)
        return is_contiguous_strides(self._sizes, self._strides)

    def is_inference(self) -> bool:
        return self._is_inference


def new_view(base, sizes, strides, storage_offset):
    """c10's VIEW TensorImpl: a tensor over ``base``'s storage with ``base``'s key set (less
    the Python keys) and a version counter of its own; what a view kernel returns. The
    ADInplaceOrView kernel of a view op gives it the base's counter (as_view). See Note
    [Views are plain tensors] for its class."""
    storage = base._storage
    if storage is None:
        storage = base.storage()
    cls = base._view_class
    view = object.__new__(base.__class__ if cls is None else cls)  # _from_storage, spelled out
    view._storage = storage
    view._array = None
    view._sizes = sizes if sizes.__class__ is tuple else tuple(sizes)
    view._strides = strides if strides.__class__ is tuple else tuple(strides)
    view._storage_offset = storage_offset
    view.dtype = base.dtype
    view.device = base.device
    view._key_bits = base._key_bits & _NOT_PYTHON_KEY_BITS
    view._is_inference = base._is_inference
    view._requires_grad = False
    view._grad_fn = None
    array = base._array
    if array is not None and storage_offset == base._storage_offset:
        _share_array(view, base, array)
    return view


def make_view(base, sizes, strides, storage_offset):
    """``new_view`` sharing ``base``'s version counter too (an alias ember makes itself)."""
    view = new_view(base, sizes, strides, storage_offset)
    if not base._is_inference:
        counter = base._version_counter
        view._version_counter = counter if counter is not None else base.version_counter()
    return view


# Note [Math bits]
# A tensor with the conjugate (or negative) bit holds in its storage the conjugate (the
# negation) of the values it stands for: `x.conj()` is a view of x's storage with the
# Conjugate key. Operators reach such a tensor through the Conjugate / Negative fallback
# (aten/math_bits.py), which materialises it; the operators PyTorch lets fall through
# (views, copy_, clone, mm, dot ...) read it with `resolved_array` and write into one
# with `apply_math_bits`. Everything that reads storage outside dispatch (repr, tolist)
# uses `resolved_array` too.


def apply_math_bits(values: np.ndarray, bits: int) -> np.ndarray:
    """`values` conjugated and/or negated as `bits` say (each is its own inverse)."""
    if bits & CONJ_BITS:
        values = np.conj(values)
    if bits & NEG_BITS:
        values = np.negative(values)
    return values


def resolved_array(t) -> np.ndarray:
    """The values `t` stands for: its NumPy view, or a resolved copy when a math bit is set."""
    bits = t._key_bits & MATH_BITS
    return t.ndarray() if not bits else apply_math_bits(t.ndarray(), bits)


def _share_array(view, base, array) -> None:
    """Give a view the NumPy view of the common geometries at once (detach and alias, a
    contiguous view, a 2-d transpose), instead of rebuilding it from the storage."""
    sizes, strides = view._sizes, view._strides
    if sizes == base._sizes and strides == base._strides:
        view._array = array
    elif strides == contiguous_strides(sizes):
        if (
            base._strides == contiguous_strides(base._sizes)
            and compute_numel(sizes) == array.size
            and array.flags.c_contiguous
        ):
            if len(sizes) <= NUMPY_MAX_DIMS:  # beyond NumPy's limit, ndarray() says so
                view._array = array.reshape(sizes)  # the same contiguous elements: never a copy
    elif len(sizes) == 2 and sizes == base._sizes[::-1] and strides == base._strides[::-1]:
        view._array = array.T


def _numpy_dtype(dtype):
    np_dtype = dtype.np_dtype
    if np_dtype is None:
        raise RuntimeError(f"ember cannot store {dtype} on cpu: NumPy has no such type")
    return np_dtype


def _adopt_strided(self, array) -> None:
    """Take a dense but not C-ordered fresh array without copying; copy anything else."""
    itemsize = array.itemsize
    order = sorted(range(array.ndim), key=lambda d: -abs(array.strides[d]))
    memory_order = array.transpose(order)
    if not memory_order.flags.c_contiguous or any(s < 0 for s in array.strides):
        array = np.ascontiguousarray(array)
        self._storage = None
        self._array = array
        self._strides = contiguous_strides(array.shape)
        return
    self._storage = Storage.from_array(memory_order)
    self._array = array
    self._strides = tuple(s // itemsize for s in array.strides)
