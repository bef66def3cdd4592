"""The OpInfo samples of torch.masked's 19 entries, across their lists, in every dtype ember has.

tests/test_opinfo.py runs three samples per dtype of each entry (float32, int64, bool,
complex64, float64); here samples strided through the whole list run in every supported
dtype (the integers, bool, complex, float16, bfloat16 too), up to 60 float64 samples
with gradients compared with torch's and 15 in each other dtype (all of them where a
known deviation of a plain operator is marked). Values, dtypes and shapes are compared as
tests/opinfo_support.py compares them (PyTorch's per-dtype tolerances), errors by type and
message.
"""

from __future__ import annotations

import math
import warnings

import opinfo_support as support
import pytest
from oracle import torch

try:
    ENTRIES = {op.name: op for op in support.op_db() if op.name.startswith("masked.")}
except ImportError:  # no oracle: the parametrisation below is empty, test_entries_present skips
    ENTRIES = {}

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32",
          "int64", "bool", "complex64", "complex128"]  # fmt: skip
# Samples per entry and dtype, evenly strided through the database's list (60 with
# gradients in float64, 15 in the other dtypes): the whole file stays near 30 seconds.
GRAD_CAP = 60
CAP = 15

# The plain operators' reduced-precision arithmetic, not torch.masked's: PyTorch's CPU
# log_softmax and logsumexp kernels round their float16/bfloat16 intermediates differently
# from ember's, and the masked functions only call them.
PLAIN_OPERATOR_NUMERICS = {
    ("masked.log_softmax", "float16"): "aten::_log_softmax's float16 rounding",
    ("masked.log_softmax", "bfloat16"): "aten::_log_softmax's bfloat16 rounding",
    ("masked.logsumexp", "float16"): "aten::logsumexp's float16 rounding",
    ("masked.logsumexp", "bfloat16"): "aten::logsumexp's bfloat16 rounding",
}


def _parameters():
    for name, op in sorted(ENTRIES.items()):
        supported = {str(d).removeprefix("torch.") for d in op.supported_dtypes("cpu")}
        for dtype in DTYPES:
            if dtype in supported:
                marks = ()
                if (name, dtype) in PLAIN_OPERATOR_NUMERICS:
                    reason = PLAIN_OPERATOR_NUMERICS[name, dtype]
                    marks = (pytest.mark.xfail(strict=True, reason=reason),)
                yield pytest.param(name, dtype, marks=marks, id=f"{name}-{dtype}")


def test_entries_present():
    if not ENTRIES:
        pytest.skip("the PyTorch oracle (its op_db) is not installed")
    assert len(ENTRIES) == 19


@pytest.mark.parametrize(("name", "dtype_name"), list(_parameters()))
def test_all_samples(name, dtype_name):
    op = ENTRIES[name]
    fn = support.counterpart(op.op)
    dtype = getattr(torch, dtype_name)
    with_grad = dtype_name == "float64"
    result = support.EntryResult(name)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=with_grad))
        if (name, dtype_name) not in PLAIN_OPERATOR_NUMERICS:
            cap = GRAD_CAP if with_grad else CAP
            samples = samples[:: math.ceil(len(samples) / cap)]
        for index, sample in enumerate(samples):
            label = f"{dtype_name} sample {index}"
            (want, torch_exc) = support._outcome(op.op, sample, False, index)
            (got, ember_exc) = support._outcome(fn, sample, True, index)
            result.samples += 1
            if torch_exc is not None or ember_exc is not None:
                assert type(ember_exc).__name__ == type(torch_exc).__name__, (
                    label,
                    ember_exc,
                    torch_exc,
                )
                assert str(ember_exc).replace("ember.", "torch.") == str(torch_exc), label
                continue
            problem = support._compare_values(name, want[0], got[0], False)
            assert problem is None, f"{label}: {problem}"
            if with_grad:
                support._compare_grads(result, label, want[0], want[1], got[0], got[1])
    assert result.samples > 0
    assert not result.problems, result.problems[:4]
