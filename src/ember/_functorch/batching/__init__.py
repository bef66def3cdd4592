"""The batching rules: FuncTorchBatched kernels by operator family.

Layer: _functorch. Mirrors aten/src/ATen/functorch/BatchRules*.cpp. Each module registers
its family at import; ``helpers`` holds what they share.
"""

from __future__ import annotations

from . import pointwise  # noqa: F401 (registrations)
