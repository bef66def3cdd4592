"""ember.random: the default CPU generator behind rand, randn, randint and dropout.

Layer: torch face (imports NumPy only). Mirrors torch/random.py and the
default CPUGeneratorImpl: `manual_seed(seed)` reseeds the process-wide
generator and returns it, `seed()` picks a fresh nondeterministic seed,
`initial_seed()` reports the last one. See Note [Two streams per generator].
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.device import CPU, as_device
from ember._tensor import Tensor, tensor_from_numpy

__all__ = [
    "Generator",
    "default_generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
]

_MAX_SEED = 0xFFFF_FFFF_FFFF_FFFF
_DEFAULT_SEED = 67280421310721  # c10::default_rng_seed_val
_STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState), what get_rng_state returns in PyTorch
_STATE_MAGIC = b"ember PCG64\0"
_MT_WORDS = 624  # at::mt19937's state: 624 32-bit words and a position

# Note [Two streams per generator]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# PyTorch's CPUGeneratorImpl draws every number from one at::mt19937 engine
# (ATen/core/MT19937RNGEngine.h), seeded from the low 32 bits of the seed.
# ember's rand / randn / randint / dropout draw from NumPy's PCG64 instead: the
# same seed reproduces ember's values, not PyTorch's. randperm alone consumes
# raw 32-bit words (randperm_cpu's `generator->random()`), so a generator also
# keeps an mt19937 engine, seeded exactly as PyTorch seeds its own (NumPy's
# MT19937 produces the same words from the same state), and randperm draws
# from it: after `manual_seed(s)`, ember's randperm sequence equals PyTorch's.
# A program that mixes randperm with other draws still gets PyTorch's
# permutations only as long as PyTorch's other draws would not have advanced
# the engine between them (ember's PCG64 draws never touch it).


class Generator:
    """A CPU random generator (torch.Generator): seeded NumPy bit stream plus its seed."""

    __slots__ = ("device", "_seed", "_rng", "_mt")

    def __init__(self, device="cpu") -> None:
        self.device = as_device(device)
        if self.device.type != "cpu":
            raise RuntimeError(f"ember has no {self.device.type} generator: only cpu")
        self.device = CPU
        self._seed = _DEFAULT_SEED
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        self._mt = None  # the mt19937 engine, made on first use from the seed

    def manual_seed(self, seed) -> Generator:
        """THPGenerator_manualSeed: an int (no bool, no tensor), as uint64 or else int64."""
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if seed < -0x8000_0000_0000_0000 or seed > _MAX_SEED:
            raise ValueError("Overflow when unpacking long long")
        seed &= _MAX_SEED  # a negative seed wraps, as PyTorch's uint64_t cast
        self._seed = seed
        self._rng = np.random.Generator(np.random.PCG64(seed))
        self._mt = None
        return self

    def seed(self) -> int:
        fresh = int(np.random.SeedSequence().entropy) & _MAX_SEED
        self.manual_seed(fresh)
        return fresh

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The state as a torch.ByteTensor of CPUGeneratorImplState's size (5056 bytes); its
        bytes hold this generator's PCG64 state, its seed and its mt19937 engine's state
        (Note [Two streams per generator]), not PyTorch's layout."""
        state = self._rng.bit_generator.state
        fields = (state["state"]["state"], state["state"]["inc"])
        packed = _STATE_MAGIC + b"".join(f.to_bytes(16, "little") for f in fields)
        packed += state["has_uint32"].to_bytes(4, "little")
        packed += state["uinteger"].to_bytes(4, "little")
        packed += self._seed.to_bytes(8, "little")
        mt_state = self._engine().state["state"]
        packed += mt_state["key"].astype("<u4").tobytes() + mt_state["pos"].to_bytes(4, "little")
        buffer = np.zeros(_STATE_SIZE, dtype=np.uint8)
        buffer[: len(packed)] = np.frombuffer(packed, dtype=np.uint8)
        return tensor_from_numpy(buffer)

    def set_state(self, new_state) -> Generator:
        """THPGenerator_setState / CPUGeneratorImpl::set_state, with their checks."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not dtypes.uint8 or new_state.device.type != "cpu":
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input RNG "
                f"state size to be {new_state.numel()}"
            )
        packed = new_state.contiguous().numpy().tobytes()
        start = len(_STATE_MAGIC)
        if packed[:start] != _STATE_MAGIC:
            raise RuntimeError("Invalid mt19937 state")
        state = int.from_bytes(packed[start : start + 16], "little")
        inc = int.from_bytes(packed[start + 16 : start + 32], "little")
        has_uint32 = int.from_bytes(packed[start + 32 : start + 36], "little")
        uinteger = int.from_bytes(packed[start + 36 : start + 40], "little")
        rng_state = {
            "bit_generator": "PCG64",
            "state": {"state": state, "inc": inc},
            "has_uint32": has_uint32,
            "uinteger": uinteger,
        }
        seed = int.from_bytes(packed[start + 40 : start + 48], "little")
        mt_start = start + 48
        key = np.frombuffer(packed[mt_start : mt_start + 4 * _MT_WORDS], dtype="<u4")
        pos = int.from_bytes(
            packed[mt_start + 4 * _MT_WORDS : mt_start + 4 * _MT_WORDS + 4], "little"
        )
        engine = np.random.MT19937()
        engine.state = {
            "bit_generator": "MT19937",
            "state": {"key": key.astype(np.uint32), "pos": pos},
        }
        self._rng.bit_generator.state = rng_state
        self._seed = seed
        self._mt = engine
        return self

    def numpy(self) -> np.random.Generator:
        """The NumPy generator kernels draw from."""
        return self._rng

    def mt19937_words(self, count: int) -> np.ndarray:
        """The next `count` 32-bit words of the mt19937 engine (as uint64), the numbers
        PyTorch's `generator->random()` returns. See Note [Two streams per generator]."""
        return self._engine().random_raw(count)

    def _engine(self) -> np.random.MT19937:
        if self._mt is None:
            self._mt = _seeded_mt19937(self._seed)
        return self._mt

    def __repr__(self) -> str:
        return f"<ember._C.Generator object at {id(self):#x}>"


def _seeded_mt19937(seed: int) -> np.random.MT19937:
    """at::mt19937's init_with_uint32: Knuth's recurrence from the seed's low 32 bits."""
    key = [seed & 0xFFFF_FFFF]
    for index in range(1, _MT_WORDS):
        previous = key[-1]
        key.append((1812433253 * (previous ^ (previous >> 30)) + index) & 0xFFFF_FFFF)
    engine = np.random.MT19937()
    engine.state = {
        "bit_generator": "MT19937",
        "state": {"key": np.array(key, dtype=np.uint32), "pos": _MT_WORDS},
    }
    return engine


default_generator = Generator()


def manual_seed(seed) -> Generator:
    """Seed the default generator; returns it (as torch.manual_seed does: int(seed) first)."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state) -> None:
    default_generator.set_state(state)
