"""Operators PyTorch 2.13 refuses for complex (or, for losses, non-floating) inputs.

A complex tensor has no order, so the extremes, sorts and ordered comparisons
must raise PyTorch's exception with its message instead of ordering by NumPy's
lexicographic rule; losses that PyTorch computes only for floating inputs must
not compute integer ones. The checks sit in the CPU kernels, as PyTorch's: a
meta tensor goes through, as it does in PyTorch.
"""

import pytest
from ops_support import same_outcome


def _complex(lib, dtype):
    return lib.tensor([[1 + 1j, 2 - 1j], [0j, 3j]], dtype=getattr(lib, dtype))


REFUSED = {
    "amax": lambda lib, x: lib.amax(x),
    "amin(0)": lambda lib, x: lib.amin(x, 0),
    "max()": lambda lib, x: x.max(),
    "min()": lambda lib, x: x.min(),
    "max(0)": lambda lib, x: x.max(0),
    "min(1, keepdim)": lambda lib, x: x.min(1, keepdim=True),
    "max(a, b)": lambda lib, x: lib.max(x, x),
    "maximum": lambda lib, x: lib.maximum(x, x),
    "minimum": lambda lib, x: lib.minimum(x, x),
    "argmax": lambda lib, x: x.argmax(),
    "argmin(0)": lambda lib, x: x.argmin(0),
    "sort": lambda lib, x: x.sort(),
    "sort(descending, stable)": lambda lib, x: x.sort(stable=True, descending=True),
    "topk": lambda lib, x: x.topk(1),
    "clamp": lambda lib, x: x.clamp(0, 1),
    "clamp_(min)": lambda lib, x: x.clamp_(min=0),
    "clamp(tensors)": lambda lib, x: x.clamp(x, x),
    "lt": lambda lib, x: x < x,
    "gt(number)": lambda lib, x: x > 1,
    "le(real, complex)": lambda lib, x: lib.ones(2) <= x,
    "ge": lambda lib, x: lib.ge(x, x),
    "relu": lambda lib, x: lib.relu(x),
    "sign": lambda lib, x: x.sign(),
    "remainder": lambda lib, x: x % 2,
    "floor divide": lambda lib, x: x // 2,
    "mse_loss": lambda lib, x: lib.nn.functional.mse_loss(x, x),
    "nll_loss": lambda lib, x: lib.nn.functional.nll_loss(x, lib.tensor([0, 1])),
    "arange(1j)": lambda lib, x: lib.arange(1j),
    "arange(0, 2, 1j)": lambda lib, x: lib.arange(0, 2, 1j),
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_for_complex(name, dtype):
    same_outcome(lambda lib: REFUSED[name](lib, _complex(lib, dtype)))


@pytest.mark.parametrize("name", ["amax", "max()", "max(0)", "argmax", "sort", "topk", "mse_loss"])
def test_meta_tensors_go_through(name):
    same_outcome(
        lambda lib: REFUSED[name](lib, lib.empty(2, 2, dtype=lib.complex64, device="meta")),
        values=False,
    )


@pytest.mark.parametrize("dtype", ["int64", "bool", "uint8"])
def test_losses_refuse_non_floating_inputs(dtype):
    def losses(lib):
        x = lib.ones(2, 3, dtype=getattr(lib, dtype))
        return lib.nn.functional.nll_loss(x, lib.tensor([0, 1]))

    same_outcome(losses)
    same_outcome(
        lambda lib: lib.nn.functional.mse_loss(*[lib.ones(2, dtype=getattr(lib, dtype))] * 2)
    )
    same_outcome(
        lambda lib: lib.ops.aten.nll_loss_backward(
            lib.tensor(1.0), lib.ones(2, 3, dtype=getattr(lib, dtype)), lib.tensor([0, 1]),
            None, 1, -100, lib.tensor(1.0),
        )
    )  # fmt: skip
