"""`torch.backends.mha`: whether MultiheadAttention may take its fast path
(torch._native_multi_head_attention) when the call allows it.

Layer: a leaf below nn. Mirrors torch/backends/mha/__init__.py (ember does not script,
so the flag is all there is).
"""

from __future__ import annotations

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_is_fastpath_enabled: bool = True


def get_fastpath_enabled() -> bool:
    """Whether the fast path of TransformerEncoder and MultiheadAttention is enabled (it is
    still taken only when every condition on the inputs holds)."""
    return _is_fastpath_enabled


def set_fastpath_enabled(value: bool) -> None:
    """Sets whether the fast path is enabled."""
    global _is_fastpath_enabled
    _is_fastpath_enabled = value
