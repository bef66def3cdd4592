"""torch.func: the composable function transforms.

Layer: func (above nn and _functorch). Mirrors torch/func/__init__.py, which re-exports
torch/_functorch's transforms.
"""

from __future__ import annotations

from ember._functorch.vmap import vmap

__all__ = ["vmap"]

from ember._functorch.functionalize import functionalize  # noqa: E402

__all__ += ["functionalize"]
