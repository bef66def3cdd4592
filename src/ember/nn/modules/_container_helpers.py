"""Helpers shared by the containers (container.py, _parameter_containers.py).

Layer: nn. In: a container and an index or pairs. Out: PyTorch's string keys, checks and
error messages. Mirrors the private helpers of torch/nn/modules/container.py.
"""

from __future__ import annotations

import operator
from collections import abc as container_abcs

__all__ = ["abs_string_index", "update_pairs", "without_digits"]


def abs_string_index(container, idx) -> str:
    """The key "0", "1", ... of index ``idx`` (negative counts from the end)."""
    idx = operator.index(idx)
    if not -len(container) <= idx < len(container):
        raise IndexError(f"index {idx} is out of range")
    if idx < 0:
        idx += len(container)
    return str(idx)


def without_digits(keys):
    return [key for key in keys if not key.isdigit()]


def update_pairs(target, pairs, name: str) -> None:
    """``update`` from an iterable of (key, value) pairs, with PyTorch's checks."""
    for j, m in enumerate(pairs):
        if not isinstance(m, container_abcs.Iterable):
            raise TypeError(
                f"{name} update sequence element #"
                + str(j)
                + " should be Iterable; is"
                + type(m).__name__
            )
        if not len(m) == 2:
            raise ValueError(
                f"{name} update sequence element #"
                + str(j)
                + " has length "
                + str(len(m))
                + "; 2 is required"
            )
        target[m[0]] = m[1]
