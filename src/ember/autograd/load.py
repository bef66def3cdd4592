"""Load the autograd layer into the dispatcher: kernels, view hook, fallback.

Layer: autograd. Imported by the package root right after ember.aten.load, as
PyTorch's VariableType registrations follow ATen's.
"""

from __future__ import annotations

from . import (
    fallback,
    manual_kernels,  # noqa: F401  (registers resize_)
    views,
)
from ._generated import autograd_kernels  # noqa: F401  (registers every autograd kernel)

views.install()
fallback.install()
