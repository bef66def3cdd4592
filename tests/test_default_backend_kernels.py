"""The structured operators' CompositeExplicitAutogradNonFunctional kernels.

Layer: tests (aten). torchgen gives every structured functional and in-place overload a
CompositeExplicitAutogradNonFunctional kernel (meta function, at::empty_strided, the out=
overload); it fills the table slots no backend kernel serves — Undefined, CUDA,
PrivateUse1 — as "[default backend kernel]". The tables are compared with torch's; the
kernels themselves are run and compared with torch's results; a call with no tensor
reaches the meta function's error, as in torch.
"""

from __future__ import annotations

import pytest
from oracle import torch

import ember
from ember.aten._generated import register_default_backend as default_backend

SLOTS = ("Undefined", "CUDA", "PrivateUse1", "SparseCsrCUDA")
OPS = [
    "aten::sin", "aten::sin_", "aten::add.Tensor", "aten::add_.Tensor", "aten::mm",
    "aten::cat", "aten::max.dim", "aten::sum.dim_IntList", "aten::div_.Tensor",
    "aten::sort.stable", "aten::cumsum", "aten::where.self", "aten::add.out",
]  # fmt: skip


def _slots(lib, op: str) -> dict:
    found = {}
    for line in lib._C._dispatch_dump_table(op).split("\n"):
        key = line.split(":")[0]
        if key in SLOTS:
            found[key] = line[line.rfind("[") :]
    return found


@pytest.mark.parametrize("op", OPS)
def test_the_default_backend_slots_match_torch(op):
    assert _slots(ember, op) == _slots(torch, op)


def test_a_structured_op_fills_undefined_with_its_default_backend_kernel():
    assert _slots(ember, "aten::sin")["Undefined"] == "[default backend kernel]"
    assert "Undefined" not in _slots(ember, "aten::sin.out")  # the out= overload has none


def _error(lib):
    try:
        lib.cat([])
    except Exception as error:  # noqa: BLE001 (the type is what is compared)
        return type(error).__name__, str(error)
    return None


def test_cat_of_no_tensors_reaches_the_meta_functions_error():
    assert (
        _error(ember)
        == _error(torch)
        == (
            "ValueError",
            "torch.cat(): expected a non-empty list of Tensors",
        )
    )


def _pair(values, dtype="float32"):
    return ember.tensor(values, dtype=getattr(ember, dtype)), torch.tensor(
        values, dtype=getattr(torch, dtype)
    )


def test_the_functional_kernel_computes_through_the_out_overload():
    (a, ta), (b, tb) = _pair([[1.0, -2.0], [3.5, 4.0]]), _pair([[0.5, 2.0], [1.0, -1.0]])
    result = default_backend.add_Tensor_default_backend(a, b, 2)
    assert result.tolist() == torch.add(ta, tb, alpha=2).tolist()
    values, indices = default_backend.max_dim_default_backend(a, 1, False)
    expected = torch.max(ta, 1)
    assert values.tolist() == expected.values.tolist()
    assert indices.tolist() == expected.indices.tolist() and indices.dtype is ember.int64
    product = default_backend.mm_default_backend(a, b)
    assert product.tolist() == torch.mm(ta, tb).tolist()


def test_the_inplace_kernel_writes_self_and_checks_it_first():
    a, ta = _pair([1.0, 2.0, 3.0])
    b, tb = _pair([10.0, 20.0, 30.0])
    out = default_backend.add__Tensor_default_backend(a, b, 1)
    assert out is a and a.tolist() == ta.add_(tb).tolist()
    small, _ = _pair([1.0])
    with pytest.raises(RuntimeError) as ours:
        default_backend.add__Tensor_default_backend(small, b, 1)
    with pytest.raises(RuntimeError) as theirs:
        torch.ones(1).add_(torch.ones(3))
    assert str(ours.value) == str(theirs.value)
    assert small.tolist() == [1.0]  # nothing written


def test_the_kernel_allocates_through_empty_strided():
    a, ta = _pair([[1.0, 2.0], [3.0, 4.0]])
    transposed = a.t()
    seen = []

    class Logging(ember.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Logging():
        result = default_backend.sin_default_backend(transposed)
    assert seen == ["aten.empty_strided.default", "aten.sin.out"]
    assert result.stride() == torch.sin(ta.t()).stride() == (1, 2)  # the meta's strides
