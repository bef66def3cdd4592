"""float16 / bfloat16 arithmetic with a CPU scalar against PyTorch 2.13 (Note
[Reduced-precision arithmetic with a CPU scalar]): add, mul and true div read the scalar
in float32; sub, add with an alpha, a scalar on the left, floor / trunc division and
remainder round it to the tensor's dtype first. Python numbers, 0-dim tensors of other
dtypes, in-place and out= forms."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

CALLS = {
    "x * s": lambda lib, x, s: x * s,
    "x + s": lambda lib, x, s: x + s,
    "x - s": lambda lib, x, s: x - s,
    "x / s": lambda lib, x, s: x / s,
    "s * x": lambda lib, x, s: s * x,
    "s / x": lambda lib, x, s: s / x,
    "add alpha": lambda lib, x, s: lib.add(x, s, alpha=3),
    "mul_": lambda lib, x, s: x.clone().mul_(s),
    "add_": lambda lib, x, s: x.clone().add_(s),
    "div_": lambda lib, x, s: x.clone().div_(s),
    "mul out": lambda lib, x, s: lib.mul(x, s, out=lib.empty_like(x)),
    "div floor": lambda lib, x, s: lib.div(x, s, rounding_mode="floor"),
    "remainder": lambda lib, x, s: lib.remainder(x, s),
    "mul(0-d, x)": lambda lib, x, s: lib.mul(lib.tensor(s), x),
}
TENSOR_CALLS = {
    "add alpha": lambda lib, x, y: lib.add(x, y, alpha=0.3),
    "sub alpha": lambda lib, x, y: lib.sub(x, y, alpha=2.7),
    "add_ alpha": lambda lib, x, y: x.clone().add_(y, alpha=-1.3),
    "add alpha broadcast": lambda lib, x, y: lib.add(x.reshape(37, 1), y[:5], alpha=0.7),
}
SCALARS = {
    "float": lambda lib, v: v,
    "int": lambda lib, v: int(v * 10) or 3,
    "0-d float32": lambda lib, v: lib.tensor(v),
    "0-d float64": lambda lib, v: lib.tensor(v, dtype=lib.float64),
    "0-d bfloat16": lambda lib, v: lib.tensor(v, dtype=lib.bfloat16),
}


def _run(lib, call, scalar, dtype, values, value):
    x = lib.from_numpy(np.asarray(values, dtype=np.float32)).to(getattr(lib, dtype))
    s = SCALARS[scalar](lib, value)
    if call == "mul(0-d, x)" and not isinstance(s, float):
        return None
    result = CALLS[call](lib, x, s)
    return str(result.dtype).split(".")[-1], result.float().numpy().tolist()


@pytest.mark.parametrize("scalar", list(SCALARS))
@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_arithmetic_with_a_cpu_scalar_rounds_as_torch(call, scalar, dtype):
    values = np.linspace(-7.3, 61.0, 37)
    assert _run(ember, call, scalar, dtype, values, 0.37) == _run(
        torch, call, scalar, dtype, values, 0.37
    )


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.floats(-1e3, 1e3, width=32), min_size=1, max_size=9),
    value=st.floats(-50, 50, width=32).filter(lambda v: abs(v) > 1e-3),
    call=st.sampled_from(["x * s", "x + s", "x / s", "x - s"]),
    dtype=st.sampled_from(["bfloat16", "float16"]),
)
def test_hypothesis_values_round_as_torch(values, value, call, dtype):
    assert _run(ember, call, "float", dtype, values, value) == _run(
        torch, call, "float", dtype, values, value
    )


@pytest.mark.parametrize("call", list(TENSOR_CALLS))
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_add_with_an_alpha_computes_alpha_times_other_in_float32(call, dtype):
    """add_kernel's `a + alpha * b` for the reduced types: in float32, rounded once."""

    def run(lib):
        values = np.linspace(-7.3, 61.0, 37).astype(np.float32)
        x = lib.from_numpy(values).to(getattr(lib, dtype))
        y = lib.from_numpy(values[::-1].copy() * 0.77).to(getattr(lib, dtype))
        return TENSOR_CALLS[call](lib, x, y).float().numpy().tolist()

    assert run(ember) == run(torch)
