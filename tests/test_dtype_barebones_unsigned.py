"""uint16 / uint32 / uint64 against PyTorch 2.13: the dtypes themselves, their promotion,
the factories and torch.tensor's element checks, the kernels that take them and those that
refuse them (Note [Barebones unsigned types]), and what a mode sees of a uint64 fill."""

import pytest
from ops_support import same_outcome
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode

NAMES = ["uint16", "uint32", "uint64"]
BIG = 2**63 + 1


def test_dtype_attributes():
    for name in NAMES:
        e, t = getattr(ember, name), getattr(torch, name)
        assert repr(e).replace("ember.", "torch.") == repr(t)
        assert (e.itemsize, e.is_signed, e.is_floating_point, e.is_complex) == (
            t.itemsize, t.is_signed, t.is_floating_point, t.is_complex,
        )  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("other", ["int64", "uint8", "bool", "float32", "float64", "uint16",
                                   "uint32", "uint64", "complex64"])  # fmt: skip
def test_promote_types(name, other):
    same_outcome(lambda lib: repr(lib.promote_types(getattr(lib, name), getattr(lib, other)))[6:])


def _x(lib, name):
    return lib.full((2, 2), 5, dtype=getattr(lib, name))


CASES = [
    lambda lib, d: lib.full((2,), BIG, dtype=getattr(lib, d)),
    lambda lib, d: lib.full((2,), -1, dtype=getattr(lib, d)),
    lambda lib, d: lib.zeros(2, dtype=getattr(lib, d)),
    lambda lib, d: lib.ones(2, dtype=getattr(lib, d)),
    lambda lib, d: lib.tensor([1, 2], dtype=getattr(lib, d)),
    lambda lib, d: lib.tensor([2**64 - 1], dtype=getattr(lib, d)),
    lambda lib, d: lib.tensor([2**64], dtype=getattr(lib, d)),
    lambda lib, d: lib.tensor([-1], dtype=getattr(lib, d)),
    lambda lib, d: lib.tensor([-70000], dtype=getattr(lib, d)),
    lambda lib, d: lib.tensor([70000], dtype=getattr(lib, d)),
    lambda lib, d: lib.tensor([2**32], dtype=getattr(lib, d)),
    lambda lib, d: lib.tensor([BIG], dtype=getattr(lib, d)),
    lambda lib, d: lib.tensor([3.7], dtype=getattr(lib, d)),
    lambda lib, d: lib.tensor([True], dtype=getattr(lib, d)),
    lambda lib, d: _x(lib, d) == 5,
    lambda lib, d: _x(lib, d) == _x(lib, d),
    lambda lib, d: _x(lib, d) != 4,
    lambda lib, d: _x(lib, d) + 1,
    lambda lib, d: _x(lib, d) - _x(lib, d),
    lambda lib, d: _x(lib, d) * 2,
    lambda lib, d: _x(lib, d) + lib.ones(2),
    lambda lib, d: _x(lib, d) + lib.ones(2, dtype=lib.int64),
    lambda lib, d: _x(lib, d).float(),
    lambda lib, d: lib.ones(2).to(getattr(lib, d)),
    lambda lib, d: _x(lib, d).to(lib.int64),
    lambda lib, d: _x(lib, d).sum(),
    lambda lib, d: _x(lib, d).sum(0),
    lambda lib, d: _x(lib, d).prod(),
    lambda lib, d: _x(lib, d).all(),
    lambda lib, d: _x(lib, d).clone(),
    lambda lib, d: _x(lib, d).t().contiguous(),
    lambda lib, d: _x(lib, d)[0],
    lambda lib, d: -_x(lib, d),
    lambda lib, d: _x(lib, d).abs(),
    lambda lib, d: _x(lib, d).max(),
    lambda lib, d: _x(lib, d).min(),
    lambda lib, d: _x(lib, d).amax(),
    lambda lib, d: _x(lib, d).max(0),
    lambda lib, d: _x(lib, d).argmax(),
    lambda lib, d: _x(lib, d) < 3,
    lambda lib, d: _x(lib, d) >= 3,
    lambda lib, d: _x(lib, d).sign(),
    lambda lib, d: _x(lib, d) // 2,
    lambda lib, d: _x(lib, d) / 2,
    lambda lib, d: _x(lib, d) % 2,
    lambda lib, d: _x(lib, d) ** 2,
    lambda lib, d: _x(lib, d).clamp(0, 3),
    lambda lib, d: _x(lib, d).bitwise_and(_x(lib, d)),
    lambda lib, d: _x(lib, d).bitwise_not(),
    lambda lib, d: _x(lib, d).cumsum(0),
    lambda lib, d: _x(lib, d).cumprod(0),
    lambda lib, d: _x(lib, d).mm(_x(lib, d)),
    lambda lib, d: _x(lib, d).fill_(3),
    lambda lib, d: _x(lib, d).zero_(),
    lambda lib, d: lib.cat([_x(lib, d), _x(lib, d)]),
    lambda lib, d: lib.arange(3, dtype=getattr(lib, d)),
    lambda lib, d: lib.full((2,), BIG, dtype=getattr(lib, d)) == BIG,
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("case", CASES)
def test_against_torch(name, case):
    same_outcome(lambda lib: case(lib, name))


def test_a_mode_sees_the_uint64_fill_value():
    def run(lib, mode_base):
        class Keep(mode_base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                self.last_args = args
                return func(*args, **(kwargs or {}))

        with Keep() as mode:
            a = lib.full((3, 3), BIG, dtype=lib.uint64)
        return mode.last_args[1], bool((a == BIG).all().item())

    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    assert run(ember, TorchDispatchMode) == run(torch, TorchMode) == (BIG, True)
