"""`torch.nn.functional.scaled_dot_product_attention`: the torch._C._nn binding itself.

Layer: the Python face, above aten. Mirrors torch/nn/functional.py, where the function
is the C binding with a docstring added.
"""

from __future__ import annotations

from ember.aten._generated import python_nn_functions as _nn

__all__ = ["scaled_dot_product_attention"]

scaled_dot_product_attention = _nn.scaled_dot_product_attention
