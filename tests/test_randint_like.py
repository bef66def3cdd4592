"""randint_like (its six overloads) against PyTorch 2.13: the result's geometry, dtype and
range, the errors, the overload a __torch_dispatch__ mode sees, and a subclass that
answers for it. Its values, PyTorch's for a seed, are tests/test_random_streams.py's."""

import pytest
from ops_support import same, same_outcome
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode


def _x(lib):
    return lib.ones(2, 3)


@pytest.mark.parametrize(
    "case",
    [
        lambda lib: lib.randint_like(_x(lib), 10),
        lambda lib: lib.randint_like(_x(lib), 3, 5),
        lambda lib: lib.randint_like(_x(lib), high=3),
        lambda lib: lib.randint_like(_x(lib), low=3, high=5),
        lambda lib: lib.randint_like(_x(lib), lib.tensor(4)),
        lambda lib: lib.randint_like(_x(lib), lib.tensor(4.5)),
        lambda lib: lib.randint_like(_x(lib), lib.tensor([4, 5])),
        lambda lib: lib.randint_like(_x(lib), 0),
        lambda lib: lib.randint_like(_x(lib), 5, 5),
        lambda lib: lib.randint_like(_x(lib), -5),
        lambda lib: lib.randint_like(_x(lib), 300, dtype=lib.uint8),
        lambda lib: lib.randint_like(_x(lib).int(), 10),
        lambda lib: lib.randint_like(_x(lib), 10, dtype=lib.int16),
        lambda lib: lib.randint_like(_x(lib).t(), 10),
        lambda lib: lib.randint_like(_x(lib).t(), 10, memory_format=lib.contiguous_format),
        lambda lib: lib.randint_like(_x(lib), 10, device="meta"),
        lambda lib: lib.randint_like(_x(lib), 10, requires_grad=True),
        lambda lib: lib.randint_like(_x(lib).bool(), 2),
        lambda lib: lib.randint_like(_x(lib), 2**40, dtype=lib.int32),
        lambda lib: lib.randint_like(_x(lib).cfloat(), 3),
        lambda lib: lib.randint_like(_x(lib), 3, generator=lib.Generator()),
        lambda lib: lib.randint_like(_x(lib), 1, 2, generator=lib.Generator()),
        lambda lib: lib.randint_like(_x(lib), lib.tensor(1), generator=lib.Generator()),
    ],
)
def test_against_torch(case):
    e, t = same_outcome(case, values=False)
    if t is not None and t.device.type != "meta":
        low = min(float(t.min()), float(e.min()))
        high = max(float(t.max()), float(e.max()))
        assert low >= 0 and high < 2**40


def test_values_stay_in_range():
    for lib in (ember, torch):
        r = lib.randint_like(lib.ones(1000), 3, 7)
        assert bool(((r >= 3) & (r < 7)).all())
        assert set(r.long().tolist()) == {3, 4, 5, 6}


def test_the_overload_a_mode_sees():
    def run(lib, mode_base):
        seen = []

        class Log(mode_base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append((str(func), sorted(kwargs or {})))
                return func(*args, **(kwargs or {}))

        x = lib.ones(2, 3)
        with Log():
            lib.randint_like(x, 3)
            lib.randint_like(x, 2, 3)
            lib.randint_like(x, lib.tensor(3))
            lib.randint_like(x, high=3, dtype=lib.int64)
        return seen

    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    assert run(ember, TorchDispatchMode) == run(torch, TorchMode)


def test_a_subclass_answers():
    def run(lib):
        class Mine(lib.Tensor):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                return Mine(3)

        return type(lib.randint_like(Mine(2), high=3)).__name__

    assert run(ember) == run(torch) == "Mine"
    same(ember.randint_like(ember.ones(2), 1), torch.randint_like(torch.ones(2), 1))
