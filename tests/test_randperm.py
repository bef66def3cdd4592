"""randperm against PyTorch 2.13: the same seed gives the same permutation (every dtype,
generator= and out=), and the checks raise PyTorch's errors.

randperm draws the generator's mt19937 words, PyTorch's own stream (Note [Random values
are PyTorch's] in ember/aten/native/distributions.py).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_support import same, same_outcome
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode

SEEDS = st.integers(0, 2**64 - 1)


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, n=st.integers(0, 3000))
def test_randperm_equals_torch_for_the_same_seed(seed, n):
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    same(ember.randperm(n), torch.randperm(n))


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, sizes=st.lists(st.integers(0, 40), min_size=2, max_size=5))
def test_successive_draws_follow_torchs_stream(seed, sizes):
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    for n in sizes:
        same(ember.randperm(n), torch.randperm(n))


@pytest.mark.parametrize(
    "dtype", ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
              "float64"],
)  # fmt: skip
def test_every_dtype(dtype):
    for seed in (0, 7, 2**40 + 3):
        ember.manual_seed(seed)
        torch.manual_seed(seed)
        same(ember.randperm(100, dtype=getattr(ember, dtype)),
             torch.randperm(100, dtype=getattr(torch, dtype)))  # fmt: skip


def test_generator_argument_and_its_default_seed():
    e, t = ember.Generator(), torch.Generator()
    same(ember.randperm(50, generator=e), torch.randperm(50, generator=t))
    same(ember.randperm(9, generator=e), torch.randperm(9, generator=t))
    e.manual_seed(123)
    t.manual_seed(123)
    same(ember.randperm(30, generator=e), torch.randperm(30, generator=t))


def test_state_round_trip_replays_the_permutation():
    ember.manual_seed(5)
    ember.randperm(10)
    state = ember.get_rng_state()
    first = ember.randperm(20)
    ember.set_rng_state(state)
    assert ember.equal(ember.randperm(20), first)
    torch.manual_seed(5)
    torch.randperm(10)
    same(first, torch.randperm(20))


@pytest.mark.parametrize(
    "make_out",
    [
        lambda lib: lib.empty(2, 3),
        lambda lib: lib.empty(10)[::2],
        lambda lib: lib.empty(10, dtype=lib.int32)[::2],
        lambda lib: lib.empty(0, dtype=lib.int16),
    ],
)
def test_out(make_out):
    def run(lib):
        lib.manual_seed(11)
        out = make_out(lib)
        result = lib.randperm(5, out=out)
        assert result is out
        return out

    same_outcome(run)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.randperm(-1),
        lambda lib: lib.randperm(-1, out=lib.empty(0)),
        lambda lib: lib.randperm(200, dtype=lib.int8),
        lambda lib: lib.randperm(129, dtype=lib.int8),
        lambda lib: lib.randperm(300, dtype=lib.uint8),
        lambda lib: lib.randperm(3, dtype=lib.bool),
        lambda lib: lib.randperm(3, dtype=lib.complex64),
        lambda lib: lib.randperm(2050, dtype=lib.half),
        lambda lib: lib.randperm(2**24 + 2, dtype=lib.float),
        lambda lib: lib.randperm(4, out=lib.empty(3, dtype=lib.bool)),
        lambda lib: lib.randperm(5, requires_grad=True),
        lambda lib: lib.randperm(5.0),
        lambda lib: lib.randperm(True),
        lambda lib: lib.randperm(5, dtype=lib.float, requires_grad=True).requires_grad,
        lambda lib: lib.randperm(0),
        lambda lib: lib.randperm(3, device="meta"),
    ],
)
def test_errors_and_edge_cases(call):
    same_outcome(call, values=False)


def test_what_a_mode_sees():
    def run(lib, mode_base):
        seen = []

        class Log(mode_base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append((str(func), args, dict(kwargs or {})))
                return func(*args, **(kwargs or {}))

        with Log():
            lib.randperm(3)
            lib.randperm(3, dtype=lib.int32)
            lib.randperm(4, out=lib.empty(4))
        return [(name, args, sorted(kwargs)) for name, args, kwargs in seen]

    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    assert run(ember, TorchDispatchMode) == run(torch, TorchMode)
