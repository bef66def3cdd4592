"""ember.masked: PyTorch's masked reductions and normalizations on strided tensors.

Layer: masked, above nn (it calls nn.functional's softmax family) and called by nobody
inside ember. In: a tensor and a boolean mask broadcastable to it. Out: the plain
operation over the kept elements, built from ember's operators (see Note [Masked
operations on strided tensors] in _mask.py). Mirrors torch/masked/__init__.py and
torch/masked/_ops.py; MaskedTensor and sparse inputs are not part of it.
"""

from ember.masked._mask import (  # noqa: F401 (torch.masked exposes these helpers too)
    _canonical_dim,
    _combine_input_and_mask,
    _input_mask,
    _output_mask,
    _reduction_identity,
    _where,
)
from ember.masked._normalizations import (
    cumprod,
    cumsum,
    log_softmax,
    normalize,
    softmax,
    softmin,
)
from ember.masked._pointwise import logaddexp
from ember.masked._reductions import (
    amax,
    amin,
    argmax,
    argmin,
    logsumexp,
    mean,
    median,
    norm,
    prod,
    sum,
)
from ember.masked._variance import std, var

__all__ = [
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cumprod",
    "cumsum",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "mean",
    "median",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]
