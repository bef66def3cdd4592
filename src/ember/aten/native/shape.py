"""Composite shape kernels: reshape, flatten, unflatten, view_as, expand_as, narrow,
chunk, split.sizes, movedim (contiguous is in native/copy.py).

Layer: aten/native, CompositeImplicitAutograd. In: the full schema argument
list. Out: whatever the operators they call return: these kernels only
compose other operators through `at` (so autograd and dispatch traces see
exactly the calls PyTorch makes), except where ATen calls a native function
directly (flatten -> native::reshape, movedim.int -> movedim), which is a
plain Python call here too. Mirrors ATen/native/TensorShape.cpp.
"""

from __future__ import annotations

import warnings

from ember._c10 import dtypes
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.views import compute_stride, fmt_ints, infer_size

CONTIGUOUS_FORMAT = 0  # c10::MemoryFormat::Contiguous, as the schema default spells it

__all__ = [
    "chunk",
    "expand_as",
    "flatten_using_ints",
    "mT",
    "movedim_int",
    "movedim_intlist",
    "narrow",
    "narrow_Tensor",
    "numpy_T",
    "reshape",
    "split_sizes",
    "swapaxes",
    "swapdims",
    "unflatten_int",
    "view_as",
]


def reshape(self, shape):
    """A view when the strides allow one (`view`), else a contiguous copy (`_unsafe_view`)."""
    inferred = infer_size(shape, self.numel())
    if compute_stride(self._sizes, self._strides, inferred) is not None:
        return at.view(self, list(shape))
    copy = at.clone(self, CONTIGUOUS_FORMAT)
    return at._unsafe_view(copy, list(inferred))


def view_as(self, other):
    return at.view(self, list(other._sizes))


def expand_as(self, other):
    return at.expand(self, list(other._sizes), False)


def flatten_using_ints(self, start_dim, end_dim):  # noqa: N802 (kernel names follow overloads)
    ndim = self.dim()
    start_dim = wrap_dim(start_dim, ndim)
    end_dim = wrap_dim(end_dim, ndim)
    if start_dim > end_dim:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if ndim == 0:
        return reshape(self, [1])
    if start_dim == end_dim:
        return self
    sizes = self._sizes
    slice_numel = 1
    for size in sizes[start_dim : end_dim + 1]:
        slice_numel *= size
    return reshape(self, [*sizes[:start_dim], slice_numel, *sizes[end_dim + 1 :]])


def unflatten_int(self, dim, sizes):  # noqa: N802
    sizes = [int(s) for s in sizes]
    if not sizes:  # torch/_tensor.py checks this before ATen wraps the dim
        raise RuntimeError("unflatten: sizes must be non-empty")
    dim = wrap_dim(dim, self.dim())
    try:
        if not self._sizes:  # sym_size(dim) refuses a 0-dim tensor
            raise RuntimeError("Dimension specified as 0 but tensor has no dimensions")
        dim_size = self._sizes[dim]
        inferred = infer_size(sizes, dim_size)
    except RuntimeError as error:
        if "is invalid for input of size" in str(error):
            raise RuntimeError(
                f"unflatten: Provided sizes {fmt_ints(sizes)} don't multiply up to the size of "
                f"dim {dim} ({dim_size}) in the input tensor"
            ) from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{error}") from None
    shape = [*self._sizes[:dim], *inferred, *self._sizes[dim + 1 :]]
    return at.view(self, shape)


def narrow(self, dim, start, length):
    if self.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    start, length = int(start), int(length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    cur_size = self._sizes[wrap_dim(dim, self.dim())]
    if not -cur_size <= start <= cur_size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-cur_size}, {cur_size}], "
            f"but got {start})"
        )
    if start < 0:
        start += cur_size
    if start > cur_size - length:
        raise RuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({cur_size})."
        )
    return at.slice_Tensor(self, dim, start, start + length, 1)


def narrow_Tensor(self, dim, start, length):  # noqa: N802
    if start.dim() != 0 or not _is_integral(start.dtype):
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    return at.narrow(self, dim, int(at._local_scalar_dense(start)), length)


def _is_integral(dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex or dtype is dtypes.bool)


def chunk(self, chunks, dim):
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim_size = self._sizes[wrap_dim(dim, self.dim())]
    split_size = (dim_size + chunks - 1) // chunks
    if split_size == 0 and dim_size == 0:
        # split() would lose the number of chunks: every 0-size chunk adds up to 0.
        return at.split_with_sizes(self, [0] * chunks, dim)
    return at.split_Tensor(self, split_size, dim)


def split_sizes(self, split_size, dim):
    return at.split_with_sizes(self, list(split_size), dim)


def movedim_intlist(self, source, destination):
    source = [int(d) for d in source]
    destination = [int(d) for d in destination]
    if len(source) != len(destination):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({fmt_ints(source)} dims) "
            f"should contain the same number of dims as destination ({fmt_ints(destination)} dims)"
        )
    ndim = self.dim()
    src = [wrap_dim(d, ndim) for d in source]
    dst = [wrap_dim(d, ndim) for d in destination]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({fmt_ints(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({fmt_ints(destination)})")
    if ndim == 0:
        return at.alias(self)
    order = [-1] * ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest_src = iter(d for d in range(ndim) if d not in src)
    for i in range(ndim):
        if order[i] == -1:
            order[i] = next(rest_src)
    return at.permute(self, order)


def movedim_int(self, source, destination):
    return movedim_intlist(self, [source], [destination])


def swapaxes(self, axis0, axis1):
    return at.transpose_int(self, axis0, axis1)


def swapdims(self, dim0, dim1):
    return at.transpose_int(self, dim0, dim1)


_WARNED_ONCE: set = set()


def _warn_once(message: str) -> None:
    """TORCH_WARN_ONCE: a UserWarning the first time in the process only."""
    if message not in _WARNED_ONCE:
        _WARNED_ONCE.add(message)
        warnings.warn(message, UserWarning, stacklevel=4)


def mT(self):  # noqa: N802 (PyTorch's name)
    if self.dim() == 0:
        _warn_once(
            "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases."
        )
        return self
    if self.dim() < 2:
        raise RuntimeError(
            "tensor.mT is only supported on matrices or batches of matrices. "
            f"Got {self.dim()}-D tensor."
        )
    return at.transpose_int(self, -2, -1)


def numpy_T(self):  # noqa: N802 (PyTorch's name)
    """Tensor.T: all dims reversed (deprecated for anything but matrices)."""
    ndim = self.dim()
    if ndim not in (0, 2):
        _warn_once(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor."
        )
    if ndim == 0:
        _warn_once(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
        )
    return at.permute(self, list(range(ndim - 1, -1, -1)))
