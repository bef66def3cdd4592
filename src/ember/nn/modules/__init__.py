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
