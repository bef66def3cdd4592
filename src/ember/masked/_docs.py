"""The docstrings of ember.masked's operations, assembled from a few shared paragraphs.

Layer: masked (imports nothing of ember). In: an operation's name, signature and
identity. Out: its docstring. PyTorch generates its masked docstrings the same way
(torch/masked/_docs.py from templates in torch/masked/_ops.py); the wording here is
ember's own.
"""

from __future__ import annotations

__all__ = ["reduction_doc", "normalization_doc"]

_MASK = """\
`mask` is a boolean tensor (other dtypes are converted to bool) broadcastable to
`input`, of no more dimensions than `input`: True keeps the element, False drops it.
None keeps every element. A dropped element is replaced by the identity before the
plain operation runs."""

_REDUCTION = """\
{signature}

The {name} of the elements of `input` that `mask` keeps, along `dim` (an int, a tuple
of ints, or None for every dimension). `keepdim` keeps the reduced dimensions with
size 1; `dtype` is the result's dtype.

Identity: {identity}. Where a slice is wholly masked out, the result's element is not
defined by the masked semantics; ``_output_mask`` tells which elements are.

{mask}
"""

_NORMALIZATION = """\
{signature}

The {name} of each slice of `input` along `dim`, over the elements `mask` keeps.
`dtype` is the result's dtype. Elements that `mask` drops hold values that the masked
semantics leave undefined (the result's mask is the broadcast `mask`).

{mask}
"""


def reduction_doc(name: str, signature: str, identity: str) -> str:
    return _REDUCTION.format(signature=signature, name=name, identity=identity, mask=_MASK)


def normalization_doc(name: str, signature: str) -> str:
    return _NORMALIZATION.format(signature=signature, name=name, mask=_MASK)
