"""The batching rules: FuncTorchBatched kernels by operator family.

Layer: _functorch. Mirrors aten/src/ATen/functorch/BatchRules*.cpp. Each module registers
its family at import; ``helpers`` holds what they share. The decompositions come last:
they skip every op a family gave a rule.
"""

from __future__ import annotations

from . import dims, matmul, nn, pointwise, randomness, special, views  # noqa: F401

# isort: split
from . import decompositions  # noqa: F401  (last: after every rule)
