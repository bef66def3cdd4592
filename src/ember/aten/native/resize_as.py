"""resize_as_: `self` resized in place to another tensor's sizes (and memory format).

Layer: aten/native (CompositeExplicitAutograd: resize_ through `at`). In: self, the
template, an optional memory format (preserve_format: the template's suggested one). Out:
self. Mirrors ATen/native/Resize.cpp (resize_as_); its autograd kernel is hand-written, as
PyTorch's (autograd/manual_kernels.py).
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.native.copy import _suggest_memory_format
from ember.aten.native.layout import MEMORY_FORMATS, memory_format_name

__all__ = ["resize_as_"]


def resize_as_(self, the_template, memory_format):
    if memory_format is not None:
        name = memory_format_name(memory_format)
        if name == "preserve_format":
            name = _suggest_memory_format(the_template)
        memory_format = MEMORY_FORMATS.index(name)
    return at.resize_(self, list(the_template._sizes), memory_format)
