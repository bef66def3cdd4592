"""The mt19937 engine of PyTorch's CPU generator, and its state in PyTorch's byte layout.

Layer: _c10 (imports NumPy only). In: a seed, or a state saved by PyTorch or
ember. Out: the raw 32-bit stream PyTorch's CPUGeneratorImpl draws from
(`random()`), its 64-bit draws (`random64()`: the first 32-bit draw is the
high half), and `get_rng_state`'s 5056 bytes, laid out as PyTorch's
CPUGeneratorImplState so a state saved by either library restores in the
other. Mirrors ATen/core/MT19937RNGEngine.h and ATen/CPUGeneratorImpl.cpp.

The words themselves come from NumPy's MT19937 bit generator, which is the
same engine: seeded by `init_genrand` (NumPy's legacy integer seeding), it
gives PyTorch's stream word for word. NumPy keeps a position in the state
array where PyTorch keeps `left_` and `next_`; Note [mt19937 position] says
how they map.
"""

from __future__ import annotations

import struct

import numpy as np

__all__ = ["MT19937", "STATE_SIZE"]

_N = 624  # MERSENNE_STATE_N
_MASK32 = 0xFFFF_FFFF

# CPUGeneratorImplStateLegacy: the_initial_seed (u64), left (i32), seeded (i32), next (u64),
# state[624] (u64), normal_x, normal_y, normal_rho (f64), normal_is_valid (i32), padding;
# CPUGeneratorImplState adds next_float_normal_sample (f32), its validity (bool), padding.
_LEGACY = struct.Struct(f"<QiiQ{_N}QdddI4x")
_CURRENT = struct.Struct(f"<{_LEGACY.size}sf?3x")
STATE_SIZE = _CURRENT.size  # 5056

# Note [mt19937 position]
# ~~~~~~~~~~~~~~~~~~~~~~~
# PyTorch's engine decrements `left_` before each draw and regenerates the state array
# when it reaches 0 (then left_ = 624, next_ = 0), and returns state[next_++]; seeding
# sets left_ = 1, next_ = 0. So after any draw left_ + next_ == 625. NumPy's engine
# regenerates when its position reaches 624 and returns key[pos++]; seeding sets pos =
# 624. Hence pos = next_ when left_ > 1 and pos = 624 when left_ == 1; back again,
# left_ = 625 - pos and next_ = pos, except that a freshly seeded engine reports next_ = 0.


class MT19937:
    """PyTorch's CPU mt19937: seeded, drawn from in blocks, saved and restored."""

    __slots__ = ("_bits", "_fresh", "seed")

    def __init__(self, seed: int) -> None:
        self._bits = np.random.MT19937()
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        """mt19937(seed): init_with_uint32 of the low 32 bits; the whole seed is kept."""
        self._bits._legacy_seeding(seed & _MASK32)
        self._fresh = True
        self.seed = seed

    def random(self, n: int) -> np.ndarray:
        """n draws of random(): the 32-bit words, as uint64."""
        self._fresh = False
        return self._bits.random_raw(n)

    def random64(self, n: int) -> np.ndarray:
        """n draws of random64(): two words each, the first one the high half."""
        words = self.random(2 * n)
        return (words[0::2] << np.uint64(32)) | words[1::2]

    # -- get_state / set_state -------------------------------------------------------------

    def pack(self, double_normal: float | None, float_normal: float | None) -> bytes:
        """CPUGeneratorImpl::get_state's bytes, with the cached normal samples."""
        state = self._bits.state["state"]
        pos = int(state["pos"])
        left, next_ = (1, 0) if self._fresh else (625 - pos, pos)
        legacy = _LEGACY.pack(
            self.seed, left, 1, next_, *(int(w) for w in state["key"]),
            0.0, 0.0 if double_normal is None else double_normal, 0.0,
            int(double_normal is not None),
        )  # fmt: skip
        return _CURRENT.pack(
            legacy, 0.0 if float_normal is None else float_normal, float_normal is not None
        )

    def unpack(self, data: bytes) -> tuple[float | None, float | None]:
        """CPUGeneratorImpl::set_state; returns the cached normal samples.

        The caller has checked the size; an engine state PyTorch would call invalid raises
        before anything changes."""
        legacy, float_normal, float_valid = _CURRENT.unpack(data)
        fields = _LEGACY.unpack(legacy)
        seed, left, seeded, next_ = fields[:4]
        words = fields[4 : 4 + _N]
        double_normal, double_valid = fields[4 + _N + 1], fields[4 + _N + 3]
        if not (seeded and 0 < left <= _N and (next_ & _MASK32) <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = np.array([w & _MASK32 for w in words], dtype=np.uint32)
        pos = _N if left == 1 else next_ & _MASK32
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self._fresh = left == 1 and next_ == 0
        self.seed = seed
        return (
            double_normal if double_valid else None,
            float(np.float32(float_normal)) if float_valid else None,
        )
