"""sum_to_size and reshape_as: Tensor methods that take their target shape from elsewhere.

Layer: aten/native (CompositeImplicitAutograd: only operators through `at`, so autograd and
a mode see sum.dim_IntList / view / reshape). Mirrors ATen/native/ReduceOps.cpp
(sum_to_size), ATen/ExpandUtils.h (is_expandable_to, sum_to) and TensorShape.cpp
(reshape_as).
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = ["reshape_as", "sum_to_size"]


def _is_expandable_to(shape, desired) -> bool:
    if len(shape) > len(desired):
        return False
    for size, target in zip(reversed(shape), reversed(desired)):
        if size != target and size != 1:
            return False
    return True


def _ints(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def sum_to_size(self, size):
    size = [int(s) for s in size]
    if not _is_expandable_to(size, self._sizes):
        raise RuntimeError(
            f"size {{{_ints(size)}}} is not expandable to size {{{_ints(self._sizes)}}}."
        )
    return _sum_to(self, size)


def _sum_to(tensor, shape):
    """at::sum_to: sum the leading dims and the dims `shape` holds as 1."""
    if not shape:
        return at.sum(tensor, None)
    sizes = tensor._sizes
    leading = len(sizes) - len(shape)
    dims = list(range(leading))
    dims += [leading + i for i, s in enumerate(shape) if s == 1 and sizes[leading + i] != 1]
    result = tensor
    if dims:
        result = at.sum_dim_IntList(result, dims, True, None)
    if leading > 0:
        result = at.view(result, shape)
    return result


def reshape_as(self, other):
    return at.reshape(self, list(other._sizes))
