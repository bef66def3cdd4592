"""torch.nn.utils: gradient clipping and the parameters <-> vector conversions.

Layer: nn. Mirrors torch/nn/utils/__init__.py (clip_grad.py, convert_parameters.py).
"""

from ember.nn.utils.clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_
from ember.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "parameters_to_vector",
    "vector_to_parameters",
]

from ember.nn.utils import stateless  # noqa: E402,F401
