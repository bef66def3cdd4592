"""torch.nn.modules: Module, the containers and the layers.

Layer: nn. Mirrors torch/nn/modules/__init__.py (one file per family of layers).
"""

from ember.nn.modules import activation as _activation
from ember.nn.modules import batchnorm as _batchnorm
from ember.nn.modules import instancenorm as _instancenorm
from ember.nn.modules import loss as _loss
from ember.nn.modules import normalization as _normalization
from ember.nn.modules.activation import *  # noqa: F403
from ember.nn.modules.batchnorm import *  # noqa: F403
from ember.nn.modules.container import (
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from ember.nn.modules.dropout import (
    AlphaDropout,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
)
from ember.nn.modules.flatten import Flatten, Unflatten
from ember.nn.modules.instancenorm import *  # noqa: F403
from ember.nn.modules.linear import Bilinear, Identity, Linear
from ember.nn.modules.loss import *  # noqa: F403
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import *  # noqa: F403
from ember.nn.modules.sparse import Embedding

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
    "Embedding",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "AlphaDropout",
    "FeatureAlphaDropout",
]
__all__ += (
    _activation.__all__
    + _batchnorm.__all__
    + _instancenorm.__all__
    + _normalization.__all__
    + _loss.__all__
)


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

from ember.nn.modules import distance as _distance  # noqa: E402
from ember.nn.modules import loss_margin as _loss_margin  # noqa: E402
from ember.nn.modules import pool3d_unpool as _pool3d_unpool  # noqa: E402
from ember.nn.modules.distance import *  # noqa: E402,F401,F403
from ember.nn.modules.loss_margin import *  # noqa: E402,F401,F403
from ember.nn.modules.pool3d_unpool import *  # noqa: E402,F401,F403

__all__ += _distance.__all__ + _loss_margin.__all__ + _pool3d_unpool.__all__

from ember.nn.modules import activation_mha as _activation_mha  # noqa: E402
from ember.nn.modules.activation_mha import *  # noqa: E402,F401,F403

__all__ += _activation_mha.__all__
