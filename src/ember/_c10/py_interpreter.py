"""What c10 asks Python about a tensor whose metadata is custom: the policy bits and the hook.

Layer: _c10 (imports nothing of ember). Mirrors c10/core/impl/PyInterpreter.h (the
``dim`` / ``sym_sizes`` / ``device`` / ``layout``... callbacks TensorImpl makes when its
sizes-strides policy or its python_custom_device / python_custom_layout flags are set)
and the SizesStridesPolicy of c10/core/TensorImpl.h. In: the flags a wrapper subclass's
constructor asks for. Out: ``interpreter``, the object ember.utils._python_metadata fills
in, which the constructors and the kernels of the metadata operators call.

Note [Python metadata]
----------------------
``_make_wrapper_subclass`` / ``_make_subclass`` with ``dispatch_sizes_strides_policy``
(``"strides"`` or ``"sizes"``), ``dispatch_device`` or ``dispatch_layout`` store these
bits in the tensor's ``_python_metadata`` (a class-level 0 on every other tensor) and
have ``interpreter.install(cls)`` put the slow-path readers on the subclass, once: a
plain tensor, and a subclass no such tensor was ever made of, keeps ember.Tensor's
readers and pays nothing. A reader on an instance without the bit defers to the
inherited one. Only the public readers (``size()``, ``shape``, ``stride()``,
``is_contiguous()``, ``device``...) dispatch, as only TensorImpl's virtual accessors do
in PyTorch; ember's own code reading ``_sizes`` / ``_strides`` sees the stored values.
"""

from __future__ import annotations

# TensorImpl::SizesStridesPolicy::CustomStrides: strides and contiguity ask Python.
CUSTOM_STRIDES = 1
# SizesStridesPolicy::CustomSizes: sizes, dim, numel and storage offset too.
CUSTOM_SIZES = 2 | CUSTOM_STRIDES
CUSTOM_DEVICE = 4  # python_custom_device_
CUSTOM_LAYOUT = 8  # python_custom_layout_


class _Interpreter:
    """The Python side, set by ember.utils._python_metadata when ember is imported."""

    __slots__ = ("install", "is_strides_like", "is_non_overlapping_and_dense")

    def __init__(self) -> None:
        self.install = None  # install(cls): the slow-path readers on a subclass
        self.is_strides_like = None  # (tensor, memory_format) -> bool
        self.is_non_overlapping_and_dense = None  # (tensor) -> bool


interpreter = _Interpreter()


def sizes_strides_policy_bits(policy) -> int:
    """The bits of ``dispatch_sizes_strides_policy`` (None, "strides" or "sizes")."""
    if policy is None:
        return 0
    if policy == "strides":
        return CUSTOM_STRIDES
    if policy == "sizes":
        return CUSTOM_SIZES
    raise ValueError(f"Unknown sizes_strides_policy: {policy}; expected 'strides' or 'sizes'")
