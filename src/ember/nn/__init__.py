"""`ember.nn`: the neural-network face of ember: Module, Parameter, the layers, init,
utils and the functional API.

Layer: the Python face, above aten. In/out: tensors. Mirrors torch/nn/__init__.py;
`ember.nn.functional` mirrors torch/nn/functional.py.
"""

from ember.nn import functional, init  # noqa: F401
from ember.nn.modules import *  # noqa: F403
from ember.nn.modules import __all__ as _modules_all
from ember.nn.parameter import Buffer, Parameter

__all__ = ["Buffer", "Parameter", *_modules_all]
