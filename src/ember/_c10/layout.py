"""torch.layout: how a tensor's elements are laid out (c10/core/Layout.h).

Layer: _c10 (imports nothing of ember). In: nothing. Out: the ``layout`` type, the
one layout ember stores, ``strided``, printed ``ember.strided`` as PyTorch prints
``torch.strided``, and PyTorch's other layouts as names only: ember has no sparse,
mkldnn or jagged tensors (a factory asked for one refuses, see backend_select_bits),
but a subclass with ``dispatch_layout`` may report one.
"""

from __future__ import annotations

from .naming import prefix

__all__ = ["layout", "strided", "OTHER_LAYOUTS"]


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


# PyTorch's layouts besides strided, by their names in the torch namespace.
OTHER_LAYOUTS = {
    name: layout(name)
    for name in ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
                 "_mkldnn", "jagged")
}  # fmt: skip
