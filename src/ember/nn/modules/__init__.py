"""torch.nn.modules: Module, the containers and the layers.

Layer: nn. Mirrors torch/nn/modules/__init__.py (one file per family of layers).
"""

from ember.nn.modules.container import (
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from ember.nn.modules.flatten import Flatten, Unflatten
from ember.nn.modules.linear import Bilinear, Identity, Linear
from ember.nn.modules.module import Module

__all__ = [
    "Module",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "ParameterList",
    "ParameterDict",
    "Identity",
    "Linear",
    "Bilinear",
    "Flatten",
    "Unflatten",
]

from ember.nn.modules import conv as _conv  # noqa: E402
from ember.nn.modules import padding as _padding  # noqa: E402
from ember.nn.modules import pooling as _pooling  # noqa: E402
from ember.nn.modules.conv import *  # noqa: E402,F401,F403
from ember.nn.modules.padding import *  # noqa: E402,F401,F403
from ember.nn.modules.pooling import *  # noqa: E402,F401,F403

__all__ += _conv.__all__ + _padding.__all__ + _pooling.__all__

from ember.nn.modules import upsampling as _upsampling  # noqa: E402
from ember.nn.modules.upsampling import *  # noqa: E402,F401,F403

__all__ += _upsampling.__all__
