"""ember.random: the default CPU generator behind rand, randn, randint and dropout.

Layer: torch face (imports NumPy only). Mirrors torch/random.py and the
default CPUGeneratorImpl: `manual_seed(seed)` reseeds the process-wide
generator and returns it, `seed()` picks a fresh nondeterministic seed,
`initial_seed()` reports the last one. The stream is PyTorch's: the same
mt19937 engine (ember._c10.mt19937), the same cached normal samples, and
`get_rng_state` bytes in PyTorch's layout, so a seed gives PyTorch's values
and a state saved by one library restores in the other. The distributions
that turn words into values are in ember.aten.native.distributions.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.device import CPU, as_device
from ember._c10.mt19937 import MT19937, STATE_SIZE
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


class Generator:
    """A CPU random generator (torch.Generator): the mt19937 engine and the normal
    samples PyTorch's normal distribution caches between calls."""

    __slots__ = ("device", "engine", "next_double_normal", "next_float_normal")

    def __init__(self, device="cpu") -> None:
        self.device = as_device(device)
        if self.device.type != "cpu":
            raise RuntimeError(f"ember has no {self.device.type} generator: only cpu")
        self.device = CPU
        self.engine = MT19937(_DEFAULT_SEED)
        self.next_double_normal: float | None = None
        self.next_float_normal: float | None = None

    def manual_seed(self, seed) -> Generator:
        """THPGenerator_manualSeed: an int (no bool, no tensor), as uint64 or else int64."""
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if seed < -0x8000_0000_0000_0000 or seed > _MAX_SEED:
            raise ValueError("Overflow when unpacking long long")
        seed &= _MAX_SEED  # a negative seed wraps, as PyTorch's uint64_t cast
        self.engine.reseed(seed)  # set_current_seed: the cached samples go too
        self.next_double_normal = self.next_float_normal = None
        return self

    def seed(self) -> int:
        fresh = int(np.random.SeedSequence().entropy) & _MAX_SEED
        self.manual_seed(fresh)
        return fresh

    def initial_seed(self) -> int:
        return self.engine.seed

    def get_state(self):
        """CPUGeneratorImpl::get_state: a torch.ByteTensor of CPUGeneratorImplState."""
        packed = self.engine.pack(self.next_double_normal, self.next_float_normal)
        return tensor_from_numpy(np.frombuffer(packed, dtype=np.uint8).copy())

    def set_state(self, new_state) -> Generator:
        """THPGenerator_setState / CPUGeneratorImpl::set_state, with their checks."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not dtypes.uint8 or new_state.device.type != "cpu":
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input RNG "
                f"state size to be {new_state.numel()}"
            )
        packed = new_state.contiguous().numpy().tobytes()
        self.next_double_normal, self.next_float_normal = self.engine.unpack(packed)
        return self

    def __repr__(self) -> str:
        return f"<ember._C.Generator object at {id(self):#x}>"


default_generator = Generator()
default_generator.seed()  # getDefaultCPUGenerator: seeded from the OS, unlike Generator()


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
