"""`torch.masked._ops`, the module PyTorch's masked operations live in (its docstrings call
them as `torch.masked._ops.sum`): the same functions as ember.masked.

Layer: masked. Mirrors the module name torch/masked/_ops.py, whose `__all__` names the
functions its docstring decorator saw: every masked operation but logaddexp.
"""

from ember.masked import *  # noqa: F401,F403
from ember.masked import __all__ as _masked_all
from ember.masked import logaddexp  # noqa: F401
from ember.masked._mask import (  # noqa: F401
    _canonical_dim,
    _combine_input_and_mask,
    _input_mask,
    _output_mask,
    _reduction_identity,
    _where,
)

__all__ = [name for name in _masked_all if name != "logaddexp"]
