"""The Python-level functions of torch/functional.py that ember has: split.

Layer: torch face (above aten). In: Python arguments. Out: what the Tensor method
or aten overload returns. Mirrors torch/functional.py (split dispatches on the
type of its sizes through Tensor.split, torch/_tensor.py).
"""

from __future__ import annotations

from ember._tensor import Tensor
from ember.aten._generated import python_functions

__all__ = ["split"]


def split(tensor, split_size_or_sections, dim=0):
    """torch.split: Tensor.split, whose branching picks split or split_with_sizes."""
    return tensor.split(split_size_or_sections, dim)


def tensor_split_method(self, split_size, dim=0):
    """Tensor.split (torch/_tensor.py): an int, or a tensor that converts to one, goes to
    aten::split.Tensor; anything else to split_with_sizes, whose parser names the type."""
    if isinstance(split_size, Tensor):
        try:
            split_size = int(split_size)
        except ValueError:
            pass
    if isinstance(split_size, int):
        return python_functions.split(self, split_size, dim)
    return python_functions.split_with_sizes(self, split_size, dim)


tensor_split_method.__name__ = "split"
tensor_split_method.__qualname__ = "Tensor.split"
