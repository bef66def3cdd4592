"""`ember.optim`: optimizers and learning-rate schedulers.

Layer: optim (the Python face, above autograd and aten). In: tensors that require
grad; out: their in-place updates. Mirrors torch/optim/__init__.py, which keeps the
submodules importable (`import torch.optim.optimizer`) but not as attributes.
"""

from ember.optim import lr_scheduler as lr_scheduler
from ember.optim.adagrad import Adagrad as Adagrad
from ember.optim.adam import Adam as Adam
from ember.optim.adamw import AdamW as AdamW
from ember.optim.optimizer import Optimizer as Optimizer
from ember.optim.rmsprop import RMSprop as RMSprop
from ember.optim.sgd import SGD as SGD

del adagrad  # noqa: F821
del adam  # noqa: F821
del adamw  # noqa: F821
del optimizer  # noqa: F821
del rmsprop  # noqa: F821
del sgd  # noqa: F821
del lr_plateau  # noqa: F821
del lr_one_cycle  # noqa: F821
del lr_composite  # noqa: F821

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
