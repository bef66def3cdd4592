"""Load the aten layer into the dispatcher, in the order PyTorch's static initialisers run.

Layer: aten. Definitions first (TORCH_LIBRARY(aten)), then the kernels of
each key (TORCH_LIBRARY_IMPL blocks). The package root imports this module and then
ember.autograd.load, as PyTorch's VariableType registrations follow ATen's.
"""

from __future__ import annotations

from ember.aten import (
    math_bits,
    metadata_ops,  # noqa: F401,E402  (aten::dim, prim::device... not in the yaml)
    zero_tensor,
)
from ember.aten._generated import (  # noqa: F401  (registers kernels)
    definitions,  # noqa: F401  (defines every aten operator)
    register_backend_select,
    register_composite,
    register_cpu,
    register_default_backend,
    register_inplace_or_view,
    register_meta,
)

zero_tensor.register()  # ZeroTensorFallback.cpp's registrations, after the definitions
math_bits.register()  # ConjugateFallback.cpp's and NegateFallback.cpp's
