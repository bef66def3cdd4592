"""`F.pad`: the torch._C._nn.pad binding, which picks constant_pad_nd, reflection_pad*,
replication_pad* or _pad_circular by mode.

Layer: the Python face, above aten. Mirrors torch/nn/functional.py's pad (there
the C++ binding itself, behind the __torch_function__ check).
"""

from __future__ import annotations

from ember.aten._generated import python_nn_functions as _nn

__all__ = ["pad"]

pad = _nn.pad
