"""ember.testing: torch.testing's helpers for tests (assert_close, make_tensor).

Layer: testing (the top, beside nn and functional; imports the tensor API below).
Mirrors torch/testing/__init__.py.
"""

from ember.testing._comparison import assert_allclose, assert_close
from ember.testing._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
