"""F.bilinear: as in PyTorch, the ``torch.bilinear`` binding itself (aten::bilinear).

Layer: nn. Mirrors ``bilinear = _add_docstr(torch.bilinear, ...)`` of torch/nn/functional.py.
"""

from __future__ import annotations

from ember.aten._generated import python_functions as _functions

__all__ = ["bilinear"]

bilinear = _functions.bilinear
