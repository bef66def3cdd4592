"""Shared test helpers.

``KeyCarrier`` stands in for a tensor wherever a test needs only what the
dispatcher reads from one: its key set as the raw int ``_key_bits`` (see
docs/architecture.md, "Key sets on the hot path").
"""

from __future__ import annotations

import re

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import DispatchKeySet


class KeyCarrier:
    """Any object with ``_key_bits`` takes part in dispatch like a tensor."""

    __slots__ = ("_key_bits", "label")

    def __init__(self, *keys: DispatchKey | str, bits: int | None = None, label: str = "") -> None:
        if bits is None:
            bits = DispatchKeySet([DispatchKey[k] if isinstance(k, str) else k for k in keys])
            bits = bits.raw_repr()
        self._key_bits = bits
        self.label = label

    def __repr__(self) -> str:
        return f"KeyCarrier({DispatchKeySet.from_raw(self._key_bits)})"


# Key sets of common torch tensors (facts §3.5).
CPU_TENSOR_KEYS = ("CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU")
META_TENSOR_KEYS = ("Meta", "ADInplaceOrView", "AutogradMeta")
SPARSE_TENSOR_KEYS = ("SparseCPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU")

_LOCATION = re.compile(r"registered at \S+?:\d+")


def normalise(text: str) -> str:
    """Replace every ``registered at FILE:LINE`` (torch .cpp, ember .py, tests) by one placeholder."""
    return _LOCATION.sub("registered at <loc>", text)
