"""`torch.backends`: switches for the backend paths PyTorch may take.

Layer: a leaf below nn (it imports nothing of ember). Mirrors torch/backends/__init__.py;
only `mha` (MultiheadAttention's fast path) is here.
"""

from ember.backends import mha  # noqa: F401
