"""ember.Size: the tuple type of tensor shapes.

Layer: torch face (imports nothing of ember). Mirrors torch/csrc/Size.cpp:
a tuple of ints printed ``ember.Size([2, 3])``; slicing and concatenation
stay Sizes; ``numel()`` multiplies the sizes.
"""

from __future__ import annotations

import operator

from ember._c10.naming import prefix


class Size(tuple):
    __slots__ = ()
    __module__ = "ember"  # as torch.Size's is "torch": <class 'ember.Size'>

    def __new__(cls, sizes=()):
        items = tuple(sizes)
        for position, item in enumerate(items):
            if item.__class__ is not int:
                try:
                    items = _as_ints(items)
                except TypeError:
                    raise TypeError(
                        f"{prefix()}.Size() takes an iterable of 'int' (item {position} is "
                        f"'{type(item).__name__}')"
                    ) from None
                break
        return tuple.__new__(cls, items)

    def numel(self) -> int:
        numel = 1
        for size in self:
            numel *= size
        return numel

    def __repr__(self) -> str:
        return prefix() + ".Size([" + ", ".join(str(size) for size in self) + "])"

    __str__ = __repr__

    def __getitem__(self, index):
        result = tuple.__getitem__(self, index)
        if isinstance(index, slice):
            return Size(result)
        return result

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, times):
        return Size(tuple.__mul__(self, times))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


def _as_ints(items) -> tuple:
    """Ints, or anything with ``__index__`` (a one-element integer tensor)."""
    return tuple(operator.index(item) for item in items)
