"""clamp with a meta operand takes PyTorch's Meta kernel, which is the Python reference
torch._refs.clamp: no complex check, broadcast then device checks in the references' words,
the bounds promoting with `self`, and in-place / out= through out_wrapper (a resize, then a
safe-cast check).

Layer: tests (aten/meta/pointwise.py). Differential against torch: the exception's type and
message, or the result's dtype, shape, strides and device.
"""

from __future__ import annotations

import warnings

import pytest
from bad_args_sweep import normalise
from oracle import torch

import ember


def _operands(lib):
    meta = {"device": "meta"}
    return {
        "m": lib.ones(2, 3, **meta),
        "c": lib.ones(2, 3, dtype=lib.complex64, **meta),
        "c13": lib.ones(1, 3, dtype=lib.complex64, **meta),
        "i": lib.ones(2, 3, dtype=lib.int32, **meta),
        "b": lib.ones(2, 1, 3, dtype=lib.int32),
        "torch": lib,
    }


CASES = [
    "torch.clamp(c13, b)",  # the broadcast passes, then the devices differ
    "torch.clamp(c, None, b)",
    "torch.clamp(torch.ones(2, device='meta'), b)",  # the broadcast fails first
    "torch.clamp(torch.ones(3, dtype=torch.complex64), b.to('meta'))",
    "torch.clamp(torch.ones(2, 1, 3), torch.ones(3, device='meta'))",
    "torch.clamp(c, 0)",
    "torch.clamp(c, 0, 1)",
    "torch.clamp(c, torch.ones(3, device='meta'))",
    "torch.clamp(c, b.to('meta'))",
    "torch.clamp(m, torch.tensor(1.0, dtype=torch.float64))",  # a cpu scalar may join
    "torch.clamp(i, 0.5)",
    "torch.clamp(i, torch.tensor(1.5))",
    "torch.clamp(m.bool(), 0, 1)",
    "torch.clamp(m.t(), 0)",
    "torch.clamp(m, torch.ones(4, device='meta'))",
    "torch.clamp(m)",
    "torch.clamp(m, None, None)",
    "m.clamp(min=torch.ones(3))",
    "torch.clamp_(c, 0)",
    "i.clamp_(0.5)",
    "c.clamp_(torch.ones(3, device='meta'))",
    "m.clamp_(torch.ones(2, 1, 3, device='meta'))",  # self is resized, with a warning
    "torch.clamp(c, 0, out=torch.empty(0, device='meta', dtype=torch.complex64))",
    "torch.clamp(i, 0.5, out=torch.empty(0, device='meta', dtype=torch.int32))",
    "torch.clamp(torch.ones(2, 3), 0, out=torch.empty(0, device='meta'))",
]


def _outcome(lib, source):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = eval(source, _operands(lib))
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            return ("raised", type(error).__name__, normalise(str(error)))
    summary = (str(result.dtype).split(".")[-1], tuple(result.shape), result.stride())
    return ("returned", *summary, result.device.type, len(caught))


@pytest.mark.parametrize("source", CASES)
def test_clamp_on_meta_is_torchs_reference(source):
    assert _outcome(ember, source) == _outcome(torch, source)
