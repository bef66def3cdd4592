"""torch.layout: how a tensor's elements are laid out (c10/core/Layout.h).

Layer: _c10 (imports nothing of ember). In: nothing. Out: the ``layout`` type and the
one layout ember stores, ``strided``, printed ``ember.strided`` as PyTorch prints
``torch.strided``. The sparse and mkldnn layouts are not made: ember has no such
tensors, and a factory handed one would build a strided tensor instead.
"""

from __future__ import annotations

from .naming import prefix

__all__ = ["layout", "strided"]


class layout:  # noqa: N801 (PyTorch's name)
    """A named layout singleton."""

    __slots__ = ("_name",)
    __module__ = "ember"

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return prefix() + "." + self._name

    def __reduce__(self):
        return self._name  # pickled and copied as the module's global: the same object


strided = layout("strided")
