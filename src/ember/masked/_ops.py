"""`torch.masked._ops`, the module PyTorch's masked operations live in (its docstrings call
them as `torch.masked._ops.sum`): the same functions as ember.masked.

Layer: masked. Mirrors the module name torch/masked/_ops.py.
"""

from ember.masked import *  # noqa: F401,F403
from ember.masked import __all__  # noqa: F401
from ember.masked._mask import (  # noqa: F401
    _canonical_dim,
    _combine_input_and_mask,
    _input_mask,
    _output_mask,
    _reduction_identity,
    _where,
)
