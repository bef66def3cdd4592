"""Bad arguments get PyTorch's exception type and message, never an error from inside ember.

Each case runs the same source under ember and under torch 2.13 and compares the outcome:
both raise the same exception type with the same message (``ember`` read as ``torch``,
C++ back-traces cut: see bad_args_sweep.normalise), or both return equal tensors.
Sizes and Python ints are int64 as in torch (Note [Python ints are int64]); allocation
failures are torch's RuntimeError; the deprecated signatures, METH_NOARGS methods and
number-as-out of the generated bindings behave as torch's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

from bad_args_sweep import normalise  # noqa: E402


def _outcome(lib, source: str):
    env = {"torch": lib, "F": lib.nn.functional, "np": np, "UserObject": UserObject}
    env["t"] = lib.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    env["ti"] = lib.tensor([[0, 1, 2], [3, 4, 5]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return eval(source, env), None
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            return None, error


def _describe(value):
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        if value.device.type == "meta":
            return ("meta", tuple(value.shape), str(value.dtype).split(".")[-1])
        values = None
        if value.numel() <= 1000:  # repr: nan equals nan
            plain = value.detach()
            plain = plain.float() if str(plain.dtype).endswith("bfloat16") else plain
            values = repr(plain.tolist())
        return (tuple(value.shape), str(value.dtype).split(".")[-1], values)
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_describe(v) for v in value]
    if type(value).__module__.split(".")[0] in ("ember", "torch"):  # a dtype, a device, a Size
        return normalise(repr(value))
    return value


def check(source: str):
    """``source`` does the same under both libraries (see the module docstring)."""
    ours, our_error = _outcome(ember, source)
    theirs, their_error = _outcome(torch, source)
    if their_error is None and our_error is None:
        assert _describe(ours) == _describe(theirs), source
        return
    assert type(our_error).__name__ == type(their_error).__name__, (source, our_error, their_error)
    assert normalise(str(our_error)) == normalise(str(their_error)), source


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


# -- torch.tensor, as_tensor, from_numpy, Tensor.new_tensor (tensor_new.cpp) -------------

_ELEMENTS = ["'a'", "None", "[2]", "1j", "2**63", "2**64", "-2**63 - 1", "1e400", "float('nan')",
             "object()", "b'x'", "torch.tensor(1.)", "torch.tensor([1., 2.])", "np.float64(1.5)",
             "np.float32(1.5)", "np.True_", "np.array([1, 2])", "True", "{}", "(1,)", "300",
             "-1", "-1.5", "torch.tensor(True)"]  # fmt: skip
_DTYPES = ["None", "torch.bool", "torch.int64", "torch.int8", "torch.uint8", "torch.int32",
           "torch.float32", "torch.float16", "torch.bfloat16", "torch.complex64"]  # fmt: skip

CTOR_CASES = [f"torch.tensor([1, {e}], dtype={d})" for e in _ELEMENTS for d in _DTYPES] + [
    "torch.tensor('abc')",
    "torch.tensor('abc', dtype=torch.float32)",
    "torch.tensor(['ab'], dtype=torch.float32)",
    "torch.tensor([[1, 2], 'ab'], dtype=torch.float32)",
    "torch.tensor(None)",
    "torch.tensor(object())",
    "torch.tensor({})",
    "torch.tensor(b'ab')",
    "torch.tensor([])",
    "torch.tensor([[]])",
    "torch.tensor([[], [1]])",
    "torch.tensor([[], 'ab'])",
    "torch.tensor([[], 'ab'], dtype=torch.float32)",
    "torch.tensor([[1], []])",
    "torch.tensor([[1, 2], [3]])",
    "torch.tensor([[1], 2])",
    "torch.tensor([np.array(2.5)], dtype=torch.int64)",
    "torch.tensor([1.], dtype='float32')",
    "torch.tensor([1.], dtype=float)",
    "torch.tensor([1.], dtype=5)",
    "torch.tensor([1.], torch.float64)",
    "torch.tensor([1.], device=1.5)",
    "torch.tensor([1.], device='cpx')",
    "torch.tensor([1.], device='cuda:x')",
    "torch.tensor([1.], requires_grad=1)",
    "torch.tensor([1.], requires_grad=None)",
    "torch.tensor([1.], pin_memory=1)",
    "torch.tensor([1.], foo=1)",
    "torch.tensor()",
    "torch.tensor(data=[1.])",
    "torch.tensor([1], requires_grad=True)",
    "torch.tensor([1.], dtype=torch.int64, requires_grad=True)",
    "torch.tensor([1.], device=None, dtype=None)",
    "torch.tensor(range(3))",
    "torch.as_tensor([1.], torch.float64)",
    "torch.as_tensor([1.], dtype='x')",
    "torch.as_tensor([1.], foo=1)",
    "torch.as_tensor([1, 'a'])",
    "torch.as_tensor()",
    "torch.as_tensor([1.], device=1.5)",
    "torch.as_tensor(np.array([1, 2]), dtype='x')",
    "torch.as_tensor(np.array([1, 2]), dtype=torch.float64)",
    "torch.from_numpy([1])",
    "torch.from_numpy()",
    "torch.from_numpy(np.ones(2), 1)",
    "torch.from_numpy(ndarray=np.ones(2))",
    "torch.from_numpy(np.array(['a']))",
    "torch.from_numpy(np.ones(2)[::-1])",
    "torch.from_numpy(None)",
    "t.new_tensor([1, 'a'])",
    "t.new_tensor([1.], 'x')",
    "t.new_tensor([1.], dtype='x')",
    "t.new_tensor([1.], requires_grad=1)",
    "t.new_tensor()",
    "t.new_tensor([1.], foo=1)",
    "t.new_tensor('a')",
    "t.new_tensor([1.], device=1.5)",
    "ti.new_tensor([1.5], requires_grad=True)",
    "ti.new_tensor([1.5])",
]


@pytest.mark.parametrize("source", CTOR_CASES)
def test_tensor_constructors(source):
    check(source)


# -- torch.nn.functional: the bindings torch's Python calls, with its Python checks ------

T, L = "torch.ones(3, 4)", "torch.tensor([1, 2, 3])"
FUNCTIONAL_CASES = [
    "F.linear(1, torch.ones(2, 2))",
    "F.linear(torch.ones(2, 2), 1)",
    "F.linear(torch.ones(2, 2), torch.ones(2, 2), 1)",
    "F.linear(torch.ones(2, 2))",
    "F.linear(torch.ones(2, 2), torch.ones(2, 2), bias=None, foo=1)",
    "F.linear(torch.ones(2, 3), torch.ones(4, 3), torch.ones(4))",
    "F.gelu(1)",
    "F.gelu(t, approximate=None)",
    "F.gelu(t, approximate='x')",
    "F.gelu(t, 'tanh')",
    "F.one_hot(torch.tensor([1]), 2.5)",
    "F.one_hot(torch.tensor([1]), num_classes=torch.tensor(3))",
    "F.one_hot(t)",
    "F.relu(1)",
    "F.relu(t, inplace='a')",
    "F.softmax(1)",
    "F.softmax(1, 0)",
    "F.softmax(t, 'a')",
    "F.softmax(t, 0, dtype='float32')",
    "F.softmax(t, 0, dtype=2**63)",
    "F.log_softmax(t, 2**63)",
    "F.log_softmax(t, 0, dtype=torch.float64).dtype",
    f"F.cross_entropy({T}, torch.tensor(1))",
    "F.cross_entropy(torch.ones(4), torch.tensor(1))",
    f"F.cross_entropy({T}, 1)",
    f"F.cross_entropy(1, {L})",
    f"F.cross_entropy({T}, {L}, reduction=[1])",
    f"F.cross_entropy({T}, {L}, reduction={{'a': 1}})",
    f"F.cross_entropy({T}, {L}, reduction='x')",
    f"F.cross_entropy({T}, {L}, ignore_index=torch.tensor(1.0))",
    f"F.cross_entropy({T}, {L}, ignore_index=2**63)",
    f"F.cross_entropy({T}, {L}, label_smoothing='a')",
    f"F.cross_entropy({T}, {L}, weight=1)",
    f"F.nll_loss({T}, torch.tensor(1))",
    "F.nll_loss(1, 2)",
    f"F.nll_loss({T}, 2)",
    f"F.nll_loss({T}, {L}, weight='w')",
    f"F.nll_loss({T}, {L}, ignore_index=-2**63 - 1)",
    f"F.nll_loss({T}, {L}, reduction=None)",
    f"F.nll_loss({T}, {L}, size_average=False)",
    "F.mse_loss(t, 1)",
    "F.mse_loss(1, t)",
    "F.mse_loss(t, t, reduction=[1, 'a'])",
    "F.mse_loss(t, torch.ones(3))",
    "F.mse_loss(t, t, weight=torch.ones(3))",
    "F.mse_loss(t, t, weight=t, reduction='sum')",
    "F.dropout(t, 'a')",
    "F.dropout(1)",
    "F.dropout(t, training=2)",
    "F.dropout(t, 2.0)",
    "F.dropout(t, 0.5, False, 'x')",
]


@pytest.mark.parametrize("source", FUNCTIONAL_CASES)
def test_functional(source):
    check(source)


# -- Tensor methods torch writes by hand (python_variable_methods.cpp) -------------------

METHOD_CASES = [
    "t.size(1.5)",
    "t.size(dim=1.5)",
    "t.size(dim=True)",
    "t.size('1')",
    "t.size(foo=1)",
    "t.size(2**63)",
    "t.size(None)",
    "t.size(-1)",
    "t.size(5)",
    "t.stride('a')",
    "t.stride(dim=0)",
    "t.stride(1, 2)",
    "t.numpy(1)",
    "t.numpy(force=1)",
    "t.numpy(foo=1)",
    "t.numpy(force=True).shape",
    "t.item(1)",
    "t.item(foo=1)",
    "t.tolist(1)",
    "t.float(1)",
    "t.float(foo=1)",
    "t.float(memory_format='x')",
    "t.long(memory_format=2**63)",
    "t.double(memory_format=torch.contiguous_format)",
    "t.cpu(1)",
    "t.cpu(memory_format=1)",
    "t.cpu(memory_format=torch.float32)",
    "t.contiguous(1)",
    "t.contiguous(memory_format='x')",
    "t.contiguous(memory_format=1)",
    "t.contiguous(foo=1)",
    "t.contiguous(memory_format=torch.channels_last)",
    "t.type(1)",
    "t.type(5.5)",
    "t.type(foo=1)",
    "t.type(float)",
    "t.type(torch.float64, 1)",
    "t.type('torch.DoubleTensor', non_blocking=1)",
    "t.type('torch.Nope')",
    "t.type(torch.device('cpu'))",
    "t.type(2**63)",
    "t.type(torch.float64).dtype",
    "t.type() == t.type()",
    # NumPy sharing the memory makes the storage unresizable (tensor_to_numpy)
    "(t.numpy(), t.resize_(5))[1]",
    "(t.numpy(), t.resize_(2))[1]",
    "(t[1:].numpy(), t.resize_(9))[1]",
    "(np.asarray(t), t.resize_(9))[1]",
    "(t.tolist(), t.resize_(9))[1].shape",
    "torch.from_numpy(np.ones(2)).resize_(5)",
    "torch.from_numpy(np.ones(2)).resize_(1)",
    "(t.numpy(), torch.add(torch.ones(9), 1, out=t))[1]",
    "torch.tensor([1.0, 2.0]).resize_(5).shape",
]


@pytest.mark.parametrize("source", METHOD_CASES)
def test_hand_written_tensor_methods(source):
    check(source)


class UserObject:
    """A Python class: CPython names it by its bare name in TypeErrors."""


MORE_PARSER_CASES = [
    # a str parameter also takes bytes (THPUtils_checkString)
    "torch.div(t, t, rounding_mode=b'mean')",
    "torch.div(t, t, rounding_mode=b'floor')",
    "F.gelu(t, approximate=b'tanh')",
    "F.gelu(t, approximate=b'x')",
    "t.new_tensor(UserObject())",
    "torch.tensor([1.0, UserObject()])",
    "torch.add(t, UserObject())",
    "t.contiguous(memory_format=None)",
    # torchgen's default_expr: an empty-list default is printed, and accepted, as None
    "torch.amax(t, dim=None)",
    "torch.amax(t, None, True)",
    "t.roll(1, dims=None)",
    # Tensor.copy_ is THPVariable_copy_ (its argument is `other`), div_ keeps Scalar_mode
    "t.clone().copy_([t])",
    "t.clone().copy_(t, src=t)",
    "t.clone().copy_(t, 1, 1)",
    "t.clone().copy_(other=ti)",
    "t.clone().copy_(2.5)",
    "t.clone().div_(t, foo=1)",
    "t.clone().div_(2, rounding_mode='floor')",
    "torch.ones(2, device=-1)",
    "torch.ones(2, device=1)",
    "torch.ones(2, device=True)",
    "torch.ones(2, device=2**63)",
    "torch._softmax_backward_data(t, t, 0, torch.float32, out=t)",
    "torch._softmax_backward_data(t, t, 0, torch.float32, grad_input=torch.empty(2, 3)).shape",
    "t.new_tensor(np.array(['a', 'b']))",
    "torch.tensor(np.array(['a', 'b']), dtype=torch.float32)",
]


@pytest.mark.parametrize("source", MORE_PARSER_CASES)
def test_more_parser_cases(source):
    check(source)


@pytest.mark.parametrize("source", ["torch.randint(1, [2, 3], generator=1)",
                                    "torch.rand([2, 3], generator='a')"])  # fmt: skip
def test_a_generator_is_type_checked(source):
    """torch lists overloads ember lacks (out=), so only the head of the message is compared."""
    _, ours = _outcome(ember, source)
    _, theirs = _outcome(torch, source)
    assert type(ours) is type(theirs) is TypeError
    head = normalise(str(theirs)).split(", but expected")[0]
    assert normalise(str(ours)).split(", but expected")[0] == head
