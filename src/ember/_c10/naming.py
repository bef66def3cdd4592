"""The module name ember's objects print: `ember`, or `torch` while ember answers `import torch`.

Layer: _c10 (imports nothing of ember). In: the interpreter's module table. Out: the
prefix of the reprs PyTorch prints as `torch.X` (dtypes, layouts, memory formats,
torch.Size, legacy type strings).

Note [The name ember prints]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A program run through `ember run` (or any import hook that answers `import torch` with
ember) prints `torch.float32` and `torch.Size([2, 3])`, as it does under PyTorch: the
hook makes `sys.modules["torch"]` the ember module itself. Imported as itself, next to
the real torch or without it, ember prints `ember.float32`.
"""

from __future__ import annotations

import sys

__all__ = ["prefix", "as_named"]


def prefix() -> str:
    modules = sys.modules
    torch = modules.get("torch")
    return "torch" if torch is not None and torch is modules.get("ember") else "ember"


def as_named(text: str) -> str:
    """A message that names ember's types (`must be ember.dtype, not str`) as the program
    sees them: `torch.dtype` while ember answers `import torch`."""
    return text.replace("ember.", "torch.") if prefix() == "torch" else text
