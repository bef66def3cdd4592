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

from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.native.common import type_meta_name

__all__ = ["_trilinear", "bilinear"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _dim_set(dims, total: int, what: str) -> set:
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


def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim):
    total = i1.dim() + len(expand1)
    if i2.dim() + len(expand2) != total:
        raise RuntimeError("number of dimensions must match")
    if i3.dim() + len(expand3) != total:
        raise RuntimeError("number of dimensions must match")
    expands = [_dim_set(e, total, "expand") for e in (expand1, expand2, expand3)]
    summed = _dim_set(sumdim, total, "sumdim")
    # each input's subscripts: a letter per dim it has (the expanded dims it lacks)
    subscripts = []
    sizes = [1] * total
    for tensor, expanded in zip((i1, i2, i3), expands, strict=True):
        letters, own = [], iter(tensor.size())
        for dim in range(total):
            if dim not in expanded:
                letters.append(_LETTERS[dim])
                sizes[dim] = next(own)
        subscripts.append("".join(letters))
    kept = [dim for dim in range(total) if dim not in summed]
    out_shape = tuple(sizes[dim] for dim in kept)
    dtype = i1.dtype
    if i1.device.type == "meta":
        return empty_tensor(out_shape, dtype, device=i1.device)
    equation = ",".join(subscripts) + "->" + "".join(_LETTERS[d] for d in kept)
    arrays = [t.numpy(force=True) for t in (i1, i2, i3)]
    value = np.einsum(equation, *arrays, optimize=True)
    result = empty_tensor(out_shape, dtype)
    result.ndarray()[...] = value
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
