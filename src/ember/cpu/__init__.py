"""ember.cpu: the CPU device module; here only its deprecated amp spelling.

Layer: amp's neighbour (imports ember.amp). Mirrors torch/cpu/__init__.py.
"""

from . import amp

__all__ = ["amp"]
