"""The overload sets of the Python bindings are PyTorch's, and so are their messages.

Each case runs one source under ember and under torch 2.13 (bad_arguments_support.check):
the same exception type and message, or equal results. The overloads a binding lists decide
the "received an invalid combination of arguments" text and which overload a call binds to,
so every overload torch 2.13 lists is listed (and, where it can run on the CPU, runs):
factory out= with check_out_type_matches, arange with complex bounds.
"""

from __future__ import annotations

import pytest
from bad_arguments_support import check  # noqa: E402

# -- factories: out= pairs with the overload whose arguments, less TensorOptions, match ----

FACTORY_CASES = [
    "torch.arange(None, None)",
    "torch.arange(1, 2, 3, 4)",
    "torch.arange(5, out=torch.empty(5))",
    "torch.arange(5, out=torch.empty(3))",
    "torch.arange(1, 5, out=torch.empty(0))",
    "torch.arange(1, 5, 2, out=torch.empty(5, dtype=torch.int64))",
    "torch.arange(5, out=torch.empty(5), dtype=torch.int64)",
    "torch.arange(5, out=torch.empty(5), dtype=torch.float32)",
    "torch.arange(5, out=torch.empty(5), device='meta')",
    "torch.arange(5, out=torch.empty(5), device='cpu', dtype=None)",
    "torch.arange(5, out=torch.empty(5), requires_grad=True)",
    "torch.arange(5, out=torch.empty(5, dtype=torch.complex64))",
    "torch.arange(5, out=torch.empty(5), bogus=1)",
    "torch.arange(5, out='a')",
    "torch.linspace(0, 1, 5, out=torch.empty(5))",
    "torch.linspace(0, 1, 5, out=torch.empty(5), dtype=torch.float64)",
    "torch.linspace(0, 1, 5, out=torch.empty(2, device='meta'), device='cpu')",
]


@pytest.mark.parametrize("source", FACTORY_CASES)
def test_factory_out_overloads(source):
    check(source)


# -- arange converts its bounds to double first (Scalar::to<double>) ------------------------

ARANGE_CASES = [
    "torch.arange(1j)",
    "torch.arange(3 + 0j)",
    "torch.arange(0, 1j)",
    "torch.arange(0, 1j, dtype=torch.float16)",
    "torch.arange(0, 1j, dtype=torch.int32)",
    "torch.arange(0, 1j, dtype=torch.complex64)",
    "torch.arange(0, 1j, dtype=torch.bool)",
    "torch.arange(0, 3, 1j)",
    "torch.arange(0, 3, 1 + 0j)",
    "torch.arange(2**40, 1j, dtype=torch.float16)",
    "torch.arange(1j, out=torch.empty(5))",
    "torch.arange(0, 1e300, dtype=torch.float16)",
    "torch.arange(0, 1e300, 1e299, dtype=torch.int32)",
    "torch.arange(0, 1e300, 1e299, dtype=torch.float32)",
]


@pytest.mark.parametrize("source", ARANGE_CASES)
def test_arange_bounds(source):
    check(source)
