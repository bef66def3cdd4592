"""`ember.optim`: optimizers and learning-rate schedulers.

Layer: optim (the Python face, above autograd and aten). In: tensors that require
grad; out: their in-place updates. Mirrors torch/optim/__init__.py.
"""

from ember.optim import lr_scheduler
from ember.optim.adagrad import Adagrad
from ember.optim.adam import Adam
from ember.optim.adamw import AdamW
from ember.optim.optimizer import Optimizer
from ember.optim.rmsprop import RMSprop
from ember.optim.sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
