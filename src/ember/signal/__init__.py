"""ember.signal: torch.signal, the window functions.

Layer: torch face (beside linalg and fft). Mirrors torch/signal/__init__.py.
"""

from ember.signal import windows

__all__ = ["windows"]
