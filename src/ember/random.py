"""ember.random: the default CPU generator behind rand, randn, randint and dropout.

Layer: torch face (imports NumPy only). Mirrors torch/random.py and the
default CPUGeneratorImpl: `manual_seed(seed)` reseeds the process-wide
generator and returns it, `seed()` picks a fresh nondeterministic seed,
`initial_seed()` reports the last one. The streams are NumPy's PCG64, not
PyTorch's mt19937: the same seed reproduces the same values in ember, but not
PyTorch's values. Kernels draw through `default_generator.numpy()`.
"""

from __future__ import annotations

import numpy as np

from ember._c10.device import CPU, as_device

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
    """A CPU random generator (torch.Generator): seeded NumPy bit stream plus its seed."""

    __slots__ = ("device", "_seed", "_rng")

    def __init__(self, device="cpu") -> None:
        self.device = as_device(device)
        if self.device.type != "cpu":
            raise RuntimeError(f"ember has no {self.device.type} generator: only cpu")
        self.device = CPU
        self._seed = _DEFAULT_SEED
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed) -> Generator:
        seed = int(seed)
        if seed < -0x8000_0000_0000_0000 or seed > _MAX_SEED:
            raise RuntimeError(
                f"Overflow when unpacking long long, expected seed in [{-(2**63)}, {_MAX_SEED}]"
            )
        seed &= _MAX_SEED  # a negative seed wraps, as PyTorch's uint64_t cast
        self._seed = seed
        self._rng = np.random.Generator(np.random.PCG64(seed))
        return self

    def seed(self) -> int:
        fresh = int(np.random.SeedSequence().entropy) & _MAX_SEED
        self.manual_seed(fresh)
        return fresh

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        return dict(self._rng.bit_generator.state)

    def set_state(self, state) -> Generator:
        self._rng.bit_generator.state = state
        return self

    def numpy(self) -> np.random.Generator:
        """The NumPy generator kernels draw from."""
        return self._rng

    def __repr__(self) -> str:
        return f"<ember._C.Generator object at {id(self):#x}>"


default_generator = Generator()


def manual_seed(seed) -> Generator:
    """Seed the default generator; returns it (as torch.manual_seed does)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state) -> None:
    default_generator.set_state(state)
