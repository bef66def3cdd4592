"""Bad arguments get PyTorch's exception type and message, never an error from inside ember.

Each case runs the same source under ember and under torch 2.13 and compares the outcome:
both raise the same exception type with the same message (``ember`` read as ``torch``,
C++ back-traces cut: see bad_args_sweep.normalise), or both return equal tensors.
Sizes and Python ints are int64 as in torch (Note [Python ints are int64]); allocation
failures are torch's RuntimeError; the deprecated signatures, METH_NOARGS methods and
number-as-out of the generated bindings behave as torch's.
"""

from __future__ import annotations

import pytest
from bad_arguments_support import check  # noqa: E402

import ember

# -- Note [Python ints are int64] -------------------------------------------------------

INT64_CASES = [
    "torch.empty(2**63)",
    "torch.empty(2**64)",
    "torch.empty([2**63])",
    "torch.empty((1, 2**63))",
    "torch.empty(1, 2**63)",
    "torch.empty(-2**63 - 1)",
    "torch.zeros([1, 2**64])",
    "t.expand(2**63)",
    "t.expand(2, 2**63)",
    "t.view(2**63)",
    "t.reshape(2**63)",
    "t.reshape([1, 2**63])",
    "t.permute([2**63])",
    "t.sum(2**63)",
    "t.sum(dim=-2**63 - 1)",
    "t.sum([2**63])",
    "t.transpose(2**64, 0)",
    "t.transpose(-2**63 - 1, 0)",
    "t.unsqueeze(2**63)",
    "t.narrow(0, 2**63, 1)",
    "t.tril(diagonal=2**64)",
    "t.split(2**63)",
    "torch.eye(2**63)",
    "torch.eye(1, -2**63 - 1)",
    "torch.ones(2, device=2**63)",
    "t.add(1, alpha=-2**63 - 1)",
    "t.add(1, alpha=2**64)",
    "t.add(1, alpha=10**100)",
    "t.add(2**64)",
    "t.add(-2**63 - 1)",
    "torch.full((2,), 2**64)",
    "torch.full((2,), -2**63 - 1)",
    "ti.fill_(2**64)",
    "t.lt(10**100)",
    "torch.full_like(t, -2**63 - 1)",
    "torch.arange(10**100)",
    "torch.arange(2, 2, step=-2**63 - 1)",
    "torch.dropout(t, 10**400, True)",
    "t.view([6, True])",  # only the first element is type-checked
    "t.view(2, 3.0)",
    "torch.zeros((2, 2.5))",
    "torch.zeros(2.5)",
    "t.view(2.0)",
    # the value is refused only once the whole signature matches (FunctionSignature::parse
    # checks types; PythonArgs unpacks values)
    "t.transpose(2**63, 'a')",
    "t.transpose('a', 2**63)",
    "t.sum(2**63, 'x')",
    "t.add(2**64, foo=1)",
    "t.add(t, alpha=2**64, foo=1)",
    "torch.full((2,), 2**64, dtype='x')",
    "t.narrow(0, 2**63, 'a')",
    "torch.ones(2, device=-1, dtype='x')",
    "torch.add(2**64, 2**64)",
    # indexing unpacks its ints as int64 too
    "t[2**63]",
    "t[-2**63 - 1]",
    "t[0, 2**63]",
    "t[2**62]",
    "t[..., 2**64]",
    "t[2**63:]",
    "t[:, 2**70:]",
    "t.__setitem__(2**63, 1)",
    "t.__setitem__(0, 2**63)",
    "t[[2**63]]",
    "t[[0, 2**64]]",
    "t[[0, 1]]",
]


@pytest.mark.parametrize("source", INT64_CASES)
def test_python_ints_are_int64(source):
    check(source)


# -- the generated bindings -------------------------------------------------------------

BINDING_CASES = [
    # the deprecated signatures (tools/autograd/deprecated.yaml)
    "torch.add(t, 2, t)",
    "t.add(2, t)",
    "t.clone().add_(2, t)",
    "torch.sub(t, 2, t)",
    "t.sub(2, t)",
    "t.clone().sub_(2, t)",
    "torch.add(t, 2, t, out=torch.empty(2, 3))",
    "torch.addmm(torch.ones(2, 2), torch.ones(2, 3), torch.ones(3, 2))",
    "torch.addmm(2, torch.ones(2, 2), 3, torch.ones(2, 3), torch.ones(3, 2))",
    "torch.addmm(2, torch.ones(2, 2), torch.ones(2, 3), torch.ones(3, 2))",
    "torch.ones(2, 2).addmm(2, 3, torch.ones(2, 3), torch.ones(3, 2))",
    "torch.ones(2, 2).addmm_(2, torch.ones(2, 3), torch.ones(3, 2))",
    "torch.add(t, 2, t, alpha=3)",
    # ... which make "missing" and "too many" the summary message, as in torch
    "torch.add(t)",
    "t.add()",
    "torch.sub(t)",
    "torch.add(t, t, 1, 2, 3)",
    # METH_NOARGS methods
    "t.abs(1)",
    "t.abs(foo=1)",
    "t.t(1)",
    "t.clone().sigmoid_(1, foo=2)",
    # requires_grad of a generated factory is bool? (None is False)
    "torch.empty(2, requires_grad=None).requires_grad",
    "torch.zeros(2, requires_grad=None, pin_memory=None)",
    "t.new_zeros(2, requires_grad=None)",
    "torch.eye(1, requires_grad=None)",
    "torch.zeros_like(t, requires_grad=None)",
    "torch.empty(2, requires_grad='x')",
    # a factory's requires_grad=True on an integer result: set_requires_grad's message
    "torch.zeros(2, dtype=torch.int64, requires_grad=True)",
    "torch.ones(2, dtype=torch.bool, requires_grad=True)",
    "torch.arange(3, requires_grad=True)",
    "torch.full((2,), 1, requires_grad=True)",
    "torch.randint(3, (2,), requires_grad=True)",
    "torch.zeros_like(ti, requires_grad=True)",
    "t.new_zeros(2, dtype=torch.int64, requires_grad=True)",
    "torch.eye(2, dtype=torch.int32, requires_grad=True)",
    "torch.zeros(2, dtype=torch.complex64, requires_grad=True).requires_grad",
    # tensors on two devices (a meta operand: torch's Python meta kernels check it)
    "torch.ones(2) + torch.ones(2, device='meta')",
    "torch.ones(2, device='meta') * torch.ones(2)",
    "torch.add(torch.ones(2), torch.ones(2, device='meta'))",
    "torch.ones(2, 2, device='meta').sub(torch.ones(2, 2))",
    "torch.ones(2) + torch.tensor(1.0, device='meta')",
    "(torch.ones(2, device='meta') + torch.tensor(1.0)).shape",
    # a number given for out= of an operator that takes numbers for tensors
    "torch.add(t, t, out=2.5)",
    "torch.add(t, t, out=1)",
    "torch.mul(t, t, out=True)",
]


@pytest.mark.parametrize("source", BINDING_CASES)
def test_generated_bindings(source):
    check(source)


# -- sizes and allocation (Note [Allocation errors]) ------------------------------------


def _overcommit_always() -> bool:
    try:
        with open("/proc/sys/vm/overcommit_memory") as f:
            return f.read().strip() == "1"
    except OSError:
        return False


# Each asks for 4 TiB or more: refused by the allocator on any machine that does not
# overcommit without limit (there, touching the pages would take the machine down).
ALLOCATION_CASES = [
    "torch.empty(2**40).shape",
    "torch.zeros(2**40)",
    "torch.ones(2**39, dtype=torch.float64)",
    "torch.full((2**40,), 1.0)",
    "torch.empty(2**42, dtype=torch.bool).shape",
    "torch.empty_like(torch.empty(2**40, device='meta'), device='cpu').shape",
    "torch.zeros(1).new_zeros(2**40)",
    "torch.zeros(1).new_empty(2**40).shape",
    "torch.ones_like(torch.empty(2**40, device='meta'), device='cpu')",
    "torch.arange(2**40)",
    "torch.arange(0, 2**40, 0.5)",
    "torch.linspace(0, 1, 2**40)",
    "torch.randn(2**40)",
    "torch.ones(1).expand(2**40).contiguous()",
    "torch.ones(1).expand(2**40) + 1",
    "torch.ones(1).expand(2**40).clone()",
    "torch.ones(2**20).outer(torch.ones(2**20))",
    "torch.ones(2).resize_(2**40)",
    "torch.empty_strided((2**40,), (1,)).shape",
]


@pytest.mark.skipif(_overcommit_always(), reason="the kernel overcommits memory without limit")
@pytest.mark.parametrize("source", ALLOCATION_CASES)
def test_allocation_failure_is_the_allocators_error(source):
    check(source)


SIZE_CASES = [
    "torch.empty(2**62)",
    "torch.empty(2**63 - 1)",
    "torch.empty(2**62, 4)",
    "torch.zeros(2**61, 4)",
    "torch.empty(2**62, 4, 0)",
    "t.new_zeros([2**62, 4])",
    "torch.empty(2**32, 2**32, device='meta')",
    "torch.empty(2**61, 4, device='meta')",
    "torch.ones(2**60, 4, device='meta')",
    "torch.empty(2**63 - 1, dtype=torch.bool, device='meta')",
    "torch.empty(2**63 - 1, 2, dtype=torch.bool, device='meta')",
    "torch.empty(2**62, 2, 0, device='meta')",
    "torch.empty_strided((2**62,), (2,))",
    "torch.empty_strided((2,), (2**62,))",
    "torch.empty_strided((2**62,), (2,), device='meta')",
    "torch.empty_strided((2**61,), (1,), device='meta')",
    "torch.arange(2**62)",
    "torch.randn(2**62)",
    "torch.rand(2**61, 4)",
    "torch.randint(5, (2**62,))",
    "torch.linspace(0, 1, 2**62)",
    "torch.eye(2**31, 2**31)",
    "torch.ones(1).expand(2**62)",
    "torch.ones(1).expand(2**62, 4)",
    "torch.ones(1).expand(-2)",
    "torch.ones(1).expand(2**62).contiguous()",
    "torch.ones(1).expand(2**62) + 1",
    "t.view(2**62)",
    "t.reshape(2**62, 4)",
    "torch.ones(2).resize_(2**61, 2)",
    "torch.ones(2).resize_(2**62, 4)",
    "torch.ones(2).resize_(-1)",
    "torch.ones(2)[1:].resize_(2**61 - 1, 2)",
    "torch.empty(-1)",
    "torch.empty(2, -3)",
    "torch.zeros(-1)",
    "torch.ones(-1)",
    "torch.full((-1,), 1.0)",
    "torch.rand(-1)",
    # scalars out of range for the dtype
    "ti.add(ti, alpha=2**63)",
    "ti.add(1, alpha=2**63)",
    "ti.add(ti, alpha=2**62)",
    "t.add(t, alpha=1e300)",
    "torch.ones(2, dtype=torch.half).add(1, alpha=1e10)",
    "torch.ones(2, dtype=torch.int8).add(1, alpha=300)",
    "torch.full((2,), 2**63, dtype=torch.int64)",
    "torch.full((2,), 2**63)",
    "torch.full((2,), 2**63 - 1)",
    "torch.full((2,), 300, dtype=torch.uint8)",
    "torch.full((2,), 1e300, dtype=torch.float32)",
    "torch.tensor([1], dtype=torch.int8).fill_(300)",
    "torch.tensor([1], dtype=torch.int8).add_(300)",
    "ti.fill_(2**63)",
    "t.fill_(2**63)",
    "torch.tensor([1.0]) + 2**64",
    "torch.tensor([1.0]) + 10**400",
    "torch.tensor([1.0]) - (-2**63 - 1)",
]


@pytest.mark.parametrize("source", SIZE_CASES)
def test_sizes_and_scalars_are_checked_as_torch_checks(source):
    check(source)


def test_a_failed_resize_changes_nothing():
    t = ember.ones(2)
    with pytest.raises(RuntimeError, match="can't allocate memory|overflowed"):
        t.resize_(2**61, 2)
    assert tuple(t.shape) == (2,) and t._version == 0 and t.tolist() == [1.0, 1.0]
