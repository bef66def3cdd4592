"""FakeTensorMode against torch._subclasses.FakeTensorMode: metadata without data.

Each program runs under both libraries' FakeTensorMode; the sizes, strides,
storage offsets, dtypes, devices and requires_grad of every result must match
PyTorch's, and so must the type of the results (a FakeTensor).
"""

import itertools

import pytest

import ember
from ember._subclasses.fake_tensor import FakeTensor, FakeTensorMode

try:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
_names = itertools.count()


def metadata(value):
    if isinstance(value, (list, tuple)):
        return [metadata(item) for item in value]
    return (
        type(value).__name__,
        tuple(value.shape),
        tuple(value.stride()),
        value.storage_offset(),
        str(value.dtype).split(".")[-1],
        str(value.device),
        value.requires_grad,
    )


PROGRAMS = {
    "factory": lambda t, a, b: t.randn(2, 3),
    "zeros_dtype": lambda t, a, b: t.zeros(4, dtype=t.int64),
    "matmul": lambda t, a, b: a @ b,
    "transpose_slice": lambda t, a, b: a.t()[1:],
    "view": lambda t, a, b: a.view(6),
    "sum_dim": lambda t, a, b: a.sum(0),
    "broadcast_add": lambda t, a, b: a + t.ones(3),
    "mul_number": lambda t, a, b: a * 2.5,
    "promotion": lambda t, a, b: a + t.ones(2, 3, dtype=t.float64),
    "compare": lambda t, a, b: a > 0,
    "split": lambda t, a, b: t.split(a, 1),
    "cat": lambda t, a, b: t.cat([a, a], 1),
    "inplace": lambda t, a, b: a.add_(1),
    "expand_contiguous": lambda t, a, b: a[:, :1].expand(2, 3).contiguous(),
}


def run(lib, mode_cls, program):
    with mode_cls() as mode:
        a = mode.from_tensor(lib.ones(2, 3))
        b = mode.from_tensor(lib.ones(3, 4))
        return metadata(PROGRAMS[program](lib, a, b))


@needs_torch
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_fake_results_match_torch(program):
    assert run(ember, FakeTensorMode, program) == run(torch, TorchFakeTensorMode, program)


@needs_torch
def test_from_tensor_keeps_metadata_like_torch():
    def convert(lib, mode_cls):
        base = lib.ones(4, 6)
        views = [base, base.t(), base[1:, ::2], lib.tensor([1.0, 2.0], requires_grad=True)]
        mode = mode_cls()
        return [metadata(mode.from_tensor(v)) for v in views]

    assert convert(ember, FakeTensorMode) == convert(torch, TorchFakeTensorMode)


def test_inplace_returns_the_same_fake_tensor():
    with FakeTensorMode() as mode:
        a = mode.from_tensor(ember.ones(2, 3))
        assert a.add_(1) is a
        a.t_()
        assert tuple(a.shape) == (3, 2) and a.stride() == (1, 3)


def test_no_data_and_non_fake_inputs():
    mode = FakeTensorMode()
    fake = mode.from_tensor(ember.ones(2))
    real = ember.ones(2)
    with pytest.raises(RuntimeError, match="not supported for tensor subclasses"):
        fake.tolist()  # the Python key is refused first, as for every such subclass
    with mode:
        with pytest.raises(AssertionError, match="Please convert all Tensors to FakeTensors"):
            fake + real
    # outside the mode, a FakeTensor re-enters the mode that made it
    assert isinstance(fake * 2, FakeTensor)


def test_custom_op_fake_impl_runs_under_fake_mode():
    ns = f"efake{next(_names)}"
    seen = []

    @ember.library.custom_op(f"{ns}::rows", mutates_args=())
    def rows(x: ember.Tensor, n: int) -> ember.Tensor:
        seen.append("real")
        return x.new_zeros(n, x.shape[1])

    @rows.register_fake
    def _(x, n):
        seen.append("fake")
        return x.new_empty(n, x.shape[1])

    with FakeTensorMode() as mode:
        out = rows(mode.from_tensor(ember.ones(2, 5)), 7)
    assert isinstance(out, FakeTensor) and tuple(out.shape) == (7, 5)
    assert str(out.device) == "cpu" and seen == ["fake"]


@needs_torch
def test_repr_matches_torch():
    def reprs(lib, mode_cls):
        with mode_cls() as mode:
            return [
                repr(lib.ones(2, 3)),
                repr(mode.from_tensor(lib.tensor([1.0, 2.0], requires_grad=True))),
            ]

    assert reprs(ember, FakeTensorMode) == reprs(torch, TorchFakeTensorMode)
