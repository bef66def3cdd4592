"""aten::_trilinear and aten::bilinear.

Layer: aten (CompositeExplicitAutogradNonFunctional _trilinear, CompositeImplicitAutograd
bilinear). In: three tensors, the dims each one is unsqueezed at (expand1..3) and the
dims summed out (sumdim). Out: the product of the three, broadcast over the common dims
and summed over sumdim, those dims squeezed away. bilinear checks its inputs as
PyTorch does, flattens the batch dims and calls
``_trilinear(x1, weight, x2, [1, 3], [0], [1, 2], [2, 3])``. Mirrors
ATen/native/Linear.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10.dtypes import promote_types, scalar_type_name
from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.native.common import type_meta_name

__all__ = ["_trilinear", "bilinear"]


def _dim_set(dims, total: int) -> set:
    """at::dim_list_to_bitset: each dim wrapped, at most once."""
    seen = set()
    for dim in dims:
        if not -total <= dim < total:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-total}, {total - 1}], "
                f"but got {dim})"
            )
        wrapped = dim % total
        if wrapped in seen:
            raise RuntimeError(f"dim {wrapped} appears multiple times in the list of dims")
        seen.add(wrapped)
    return seen


def _broadcast_error(a_size, b_size, dim):
    return RuntimeError(
        f"The size of tensor a ({a_size}) must match the size of tensor b ({b_size}) at "
        f"non-singleton dimension {dim}"
    )


def _sumproduct_pair(left, right, sum_dims):
    """at::native::sumproduct_pair on pre-unsqueezed (dtype, array) pairs, keepdim: no sum
    dims is at::mul (broadcasting, promoting); else a dim of size > 1 in both must agree
    and the product goes through bmm (one dtype)."""
    (left_dtype, left_array), (right_dtype, right_array) = left, right
    if left_array.ndim != right_array.ndim:
        raise RuntimeError("number of dimensions must match")
    if not sum_dims:
        for dim in range(left_array.ndim):
            sizes = left_array.shape[dim], right_array.shape[dim]
            if 1 not in sizes and sizes[0] != sizes[1]:
                raise _broadcast_error(*sizes, dim)
        dtype = promote_types(left_dtype, right_dtype)
        return dtype, (left_array * right_array).astype(dtype.np_dtype, copy=False)
    for dim in range(left_array.ndim):
        sizes = left_array.shape[dim], right_array.shape[dim]
        if 1 not in sizes and sizes[0] != sizes[1]:
            raise RuntimeError("non-broadcast dimensions must match")
    if left_dtype != right_dtype:  # bmm's check
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(left_dtype)} but found "
            f"{scalar_type_name(right_dtype)}"
        )
    product = (left_array * right_array).sum(axis=tuple(sum_dims), keepdims=True)
    return left_dtype, product.astype(left_dtype.np_dtype, copy=False)


def _add_into(target, buf) -> None:
    """target += buf (an in-place add: buf broadcasts to target's shape)."""
    for dim in range(target.ndim):
        sizes = target.shape[dim], buf.shape[dim]
        if sizes[1] != 1 and sizes[0] != sizes[1]:
            if sizes[0] != 1:
                raise _broadcast_error(*sizes, dim)
            broadcast = [max(t, b) for t, b in zip(target.shape, buf.shape, strict=True)]
            raise RuntimeError(
                f"output with shape {list(target.shape)} doesn't match the broadcast shape "
                f"{broadcast}"
            )
    target += buf.astype(target.dtype, copy=False)


def _narrow(piece, dim, start):
    """narrow(dim, start, 1) of a (dtype, array) pair, with narrow's range error."""
    dtype, array = piece
    if start + 1 > array.shape[dim]:
        raise RuntimeError(
            f"start ({start}) + length (1) exceeds dimension size ({array.shape[dim]})."
        )
    return dtype, array[(slice(None),) * dim + (slice(start, start + 1),)]


def _unsqueezed_sizes(tensors, expands, total):
    """The loop of _trilinear over the dims: each input unsqueezed at its expand dims (with
    unsqueeze's and size()'s range errors), each dim's size that of the last input that
    has it, 0 where none has it."""
    shapes = [list(t.size()) for t in tensors]
    sizes = []
    for dim in range(total):
        size = 0
        for shape, expanded in zip(shapes, expands, strict=True):
            n = len(shape)
            if dim in expanded:
                if dim > n:
                    raise IndexError(
                        f"Dimension out of range (expected to be in range of [{-n - 1}, {n}], "
                        f"but got {dim})"
                    )
                shape.insert(dim, 1)
            else:
                if n == 0:
                    raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
                if dim >= n:
                    raise IndexError(
                        f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                        f"but got {dim})"
                    )
                size = shape[dim]
        sizes.append(size)
    return shapes, sizes


def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim):
    """Linear.cpp's _trilinear: the product of the three inputs, unsqueezed at their
    expand dims, summed over sumdim in slices along unroll_dim (none when that dim has
    size 0), then the summed dims squeezed away."""
    tensors = (i1, i2, i3)
    total = i1.dim() + len(expand1)
    if not 0 <= unroll_dim < total:
        raise RuntimeError(f"unroll_dim must be in [0,{total - 1}]")
    expands = [_dim_set(e, total) for e in (expand1, expand2, expand3)]
    summed = _dim_set(sumdim, total)
    shapes, sizes = _unsqueezed_sizes(tensors, expands, total)
    output_size = [1 if dim in summed else size for dim, size in enumerate(sizes)]
    final_shape = tuple(size for dim, size in enumerate(output_size) if dim not in summed)
    if i1.device.type == "meta":
        return empty_tensor(final_shape, i1.dtype, device=i1.device)
    output = np.zeros(output_size, dtype=i1.dtype.np_dtype)
    if all(t.numel() != 0 for t in tensors):
        arrays = [
            (t.dtype, t.numpy(force=True).reshape(shape))
            for t, shape in zip(tensors, shapes, strict=True)
        ]
        sum_12 = [d for d in sorted(summed) if d != unroll_dim and d in expands[2]]
        sum_23 = [d for d in sorted(summed) if d != unroll_dim and d not in expands[2]]
        steps = [0 if unroll_dim in expanded else 1 for expanded in expands]
        for k in range(sizes[unroll_dim]):
            pieces = [
                _narrow(piece, unroll_dim, k * step)
                for piece, step in zip(arrays, steps, strict=True)
            ]
            buf = _sumproduct_pair(pieces[0], pieces[1], sum_12)
            _dtype, buf = _sumproduct_pair(buf, pieces[2], sum_23)
            if unroll_dim in summed:
                _add_into(output, buf)
            else:
                index = [slice(None)] * total
                index[unroll_dim] = slice(k, k + 1)
                _add_into(output[tuple(index)], buf)
    result = empty_tensor(final_shape, i1.dtype)
    result.ndarray()[...] = output.reshape(final_shape)
    return result


def _check_dtypes(input1, input2, weight, bias) -> None:
    tensors = [("input1", input1), ("input2", input2), ("weight", weight)]
    if bias is not None:
        tensors.append(("bias", bias))
    if any(t.dtype != input1.dtype for _, t in tensors):
        named = ", ".join(f"{name}: {type_meta_name(t.dtype)}" for name, t in tensors)
        raise RuntimeError(f"All tensors must have the same dtype, got {named}")


def bilinear(input1, input2, weight, bias):
    _check_dtypes(input1, input2, weight, bias)
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for i in range(input1.dim() - 1):
        if input1.size(i) != input2.size(i):
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {i}: got "
                f"{input1.size(i)} and {input2.size(i)}"
            )
    if input1.size(input1.dim() - 1) != weight.size(1):
        raise RuntimeError(
            "bilinear(): input1 size does not match weight size: got "
            f"{input1.size(input1.dim() - 1)} but expected {weight.size(1)}"
        )
    if input2.size(input2.dim() - 1) != weight.size(2):
        raise RuntimeError(
            "bilinear(): input2 size does not match weight size: got "
            f"{input2.size(input2.dim() - 1)} but expected {weight.size(2)}"
        )
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(
            "bilinear(): bias size does not match weight size: got "
            f"{bias.size(0)} but expected {weight.size(0)}"
        )
    output_size = [*input1.size()[:-1], weight.size(0)]
    flat1 = at.reshape(input1, [-1, input1.size(-1)])
    flat2 = at.reshape(input2, [-1, input2.size(-1)])
    output = at.reshape(
        at._trilinear(flat1, weight, flat2, [1, 3], [0], [1, 2], [2, 3], 1), output_size
    )
    if bias is not None:
        output = at.add_Tensor(output, bias, 1)
    return output
