"""The bitwise operators and the reflected arithmetic operators, against PyTorch 2.13.

`& | ^ ~ << >>`, their reflections and in-place forms, the torch.bitwise_*
functions and Tensor methods: values (C++ shift semantics included), dtypes,
errors, what a dispatch mode sees, and that the results never require grad.
Reflected operators with a tensor on both sides compute what PyTorch's do
(`t.__rsub__(u)` is `u - t`, `__rtruediv__` is `reciprocal() * other`).
"""

from __future__ import annotations

import operator
import warnings
from functools import partial

import numpy as np
import pytest
from autograd_support import op_recorder
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64", "float16"]
INTEGRAL = ["uint8", "int8", "int16", "int32", "int64"]


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, error


def _same(e_fn, t_fn):
    """The same error, or the same dtype, shape and values (returns torch's result)."""
    t, t_error = _outcome(t_fn)
    e, e_error = _outcome(e_fn)
    if t_error is not None or e_error is not None:
        assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
        assert str(e_error) == str(t_error)
        return None
    if not isinstance(t, torch.Tensor):
        assert e is NotImplemented if t is NotImplemented else e == t
        return t
    assert str(e.dtype).rpartition(".")[2] == str(t.dtype).rpartition(".")[2]
    assert tuple(e.shape) == tuple(t.shape)
    assert tuple(e.stride()) == tuple(t.stride())
    assert e.requires_grad == t.requires_grad
    if t.device.type != "meta":
        np.testing.assert_array_equal(e.detach().numpy(), t.detach().numpy())
    return t


def _both(call, *args):
    """`_same` of `call(ember, *args)` and `call(torch, *args)`."""
    return _same(lambda: call(ember, *args), lambda: call(torch, *args))


def _first(pair):
    return pair[0]


def _tensor(lib, dtype: str, values):
    return lib.tensor(values).to(getattr(lib, dtype))


SMALL = st.integers(-130, 300)
VALUES = st.lists(SMALL, min_size=1, max_size=6)

BINARY = {
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "lshift": operator.lshift,
    "rshift": operator.rshift,
}
FUNCTIONS = {
    "and": "bitwise_and",
    "or": "bitwise_or",
    "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
}


@settings(max_examples=80, deadline=None)
@given(
    name=st.sampled_from(sorted(BINARY)),
    a_dtype=st.sampled_from(DTYPES),
    b_dtype=st.sampled_from(DTYPES),
    values=VALUES,
    shifts=VALUES,
)
def test_binary_bitwise_operators_on_two_tensors(name, a_dtype, b_dtype, values, shifts):
    shifts = (shifts * len(values))[: len(values)]

    def operands(lib):
        return _tensor(lib, a_dtype, values), _tensor(lib, b_dtype, shifts)

    op, function = BINARY[name], FUNCTIONS[name]
    _same(lambda: op(*operands(ember)), lambda: op(*operands(torch)))
    _same(
        lambda: getattr(ember, function)(*operands(ember)),
        lambda: getattr(torch, function)(*operands(torch)),
    )
    _same(
        lambda: getattr(operands(ember)[0], function)(operands(ember)[1]),
        lambda: getattr(operands(torch)[0], function)(operands(torch)[1]),
    )


NUMBERS = st.one_of(st.booleans(), st.integers(-(2**40), 2**40), st.floats(-10, 10), SMALL)


@settings(max_examples=80, deadline=None)
@given(
    name=st.sampled_from(sorted(BINARY)),
    dtype=st.sampled_from(DTYPES),
    values=VALUES,
    number=NUMBERS,
)
def test_binary_bitwise_operators_with_a_python_number(name, dtype, values, number):
    op, function = BINARY[name], FUNCTIONS[name]
    for lib_call in (
        lambda lib: op(_tensor(lib, dtype, values), number),
        lambda lib: op(number, _tensor(lib, dtype, values)),
        lambda lib: getattr(lib, function)(_tensor(lib, dtype, values), number),
        lambda lib: getattr(lib, function)(number, _tensor(lib, dtype, values)),
        lambda lib: getattr(_tensor(lib, dtype, values), function)(number),
        lambda lib: getattr(_tensor(lib, dtype, values), function + "_")(number),
    ):
        _both(lib_call)


IN_PLACE = {
    "and": operator.iand,
    "or": operator.ior,
    "xor": operator.ixor,
    "lshift": operator.ilshift,
    "rshift": operator.irshift,
}


@pytest.mark.parametrize("other", ["int8", "int64", "bool", "number", "float32"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64"])
@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_forms(name, dtype, other):
    def run(lib, method):
        x = _tensor(lib, dtype, [3, 0, 5, 1])
        y = 2 if other == "number" else _tensor(lib, other, [1, 3, 0, 1])
        version = x._version
        result = method(lib, x, y)
        assert result is x
        return x, x._version - version

    forms = [
        lambda lib, x, y: IN_PLACE[name](x, y),
        lambda lib, x, y: getattr(x, f"__i{name}__")(y),
        lambda lib, x, y: getattr(x, FUNCTIONS[name] + "_")(y),
    ]
    for form in forms:
        e, e_error = _outcome(partial(run, ember, form))
        t, t_error = _outcome(partial(run, torch, form))
        if t_error is not None or e_error is not None:
            assert (type(e_error).__name__, str(e_error)) == (type(t_error).__name__, str(t_error))
            continue
        _same(partial(_first, e), partial(_first, t))
        assert e[1] == t[1]  # the version counter moved as torch's


@pytest.mark.parametrize("out_dtype", ["int64", "int8", "bool", "float32"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_out_variants(name, out_dtype):
    function = FUNCTIONS[name]

    def run(lib, scalar):
        x = _tensor(lib, "int32", [3, 0, 5, 1])
        y = 2 if scalar else _tensor(lib, "int32", [1, 3, 0, 1])
        out = lib.zeros(4).to(getattr(lib, out_dtype))
        result = getattr(lib, function)(x, y, out=out)
        assert result is out
        return out

    for scalar in (False, True):
        _both(run, scalar)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bitwise_not_and_invert(dtype):
    values = [3, 0, -5, 1]
    for call in (
        lambda lib: ~_tensor(lib, dtype, values),
        lambda lib: lib.bitwise_not(_tensor(lib, dtype, values)),
        lambda lib: _tensor(lib, dtype, values).bitwise_not_(),
        lambda lib: lib.bitwise_not(_tensor(lib, dtype, values), out=lib.empty(4, dtype=lib.int64)),
    ):
        _both(call)


@pytest.mark.parametrize("name", ["and", "or", "xor"])
def test_logical_ops(name):
    def function(lib, a, b):
        return getattr(lib, f"logical_{name}")(
            _tensor(lib, a, [0, 1, 2, 0]), _tensor(lib, b, [0, 0, 3, 1])
        )

    def method(lib, a, b):
        return getattr(_tensor(lib, a, [0, 1, 2, 0]), f"logical_{name}_")(
            _tensor(lib, b, [0, 0, 3, 1])
        )

    for a, b in (("int64", "float32"), ("bool", "bool"), ("float32", "uint8")):
        _both(function, a, b)
        _both(method, a, b)


WRONG = [
    "a & 'x'",
    "'x' | a",
    "a << 'x'",
    "'x' >> a",
    "a.__and__('x')",
    "a.__and__(a, a)",
    "a.__rand__('x')",
    "a.__iand__('x')",
    "a.__ilshift__('x')",
    "a.__rlshift__('x')",
    "a.__rsub__('x')",
    "a.__rtruediv__('x')",
    "a.__rmatmul__('x')",
    "a.__radd__('x')",
    "~lib.ones(2)",
    "lib.bitwise_and('a', 1)",
    "lib.bitwise_and(1, 2)",
    "lib.bitwise_left_shift('a', a)",
    "a.bitwise_and('x')",
    "a.bitwise_left_shift_('x')",
    "lib.bitwise_not(1)",
    "lib.rsub('a', a)",
    "lib.reciprocal(1)",
    "lib.logical_xor(a, 1)",
    "lib.bitwise_and(1, a, out=lib.empty(2, dtype=lib.int64))",
    "a & lib.ones(3, dtype=lib.int64)",
    "a.__iand__(lib.ones(3, 2, dtype=lib.int64))",
    "lib.ones(2, dtype=lib.int32).__ilshift__(lib.ones(2, dtype=lib.int64))",
]


@pytest.mark.parametrize("call", WRONG)
def test_wrong_arguments(call):
    def run(lib):
        return eval(call, {"lib": lib, "a": lib.tensor([1, 2])})

    _same(lambda: run(ember), lambda: run(torch))


def test_dunder_names_are_methods_not_functions():
    for name in ("__and__", "__lshift__", "__iand__", "__ilshift__", "__rshift__"):
        assert hasattr(ember, name) == hasattr(torch, name) is False
        assert hasattr(ember.Tensor, name)
    for name in ("bitwise_and", "bitwise_not", "rsub", "reciprocal", "logical_xor"):
        assert hasattr(ember, name) and hasattr(torch, name)
    assert not hasattr(torch.Tensor, "rsub") and not hasattr(ember.Tensor, "rsub")


EXPRESSIONS = [
    "a & b", "a | b", "a ^ b", "~a", "a << b", "a >> b", "a & 1", "1 & a", "a << 1", "1 << a",
    "2 >> a", "a.__rand__(b)", "a.__rlshift__(b)", "a.__rrshift__(b)", "a.__iand__(b)",
    "a.__ior__(b)", "a.__ixor__(b)", "a.__ilshift__(b)", "a.__irshift__(b)", "a.__ilshift__(1)",
    "lib.bitwise_and(a, 1)", "lib.bitwise_and(1, a)", "lib.bitwise_left_shift(1, a)",
    "a.bitwise_not()", "lib.logical_xor(a, b)", "t.__radd__(u)", "t.__rsub__(u)",
    "t.__rmul__(u)", "t.__rmod__(u)", "t.__rpow__(u)", "t.__rtruediv__(u)",
    "t.__rfloordiv__(u)", "t.__rmatmul__(u)", "2 - t", "2 / t", "2 ** t", "2 % t", "2 // t",
    "2 + t", "2 * t", "lib.rsub(t, u)", "lib.rsub(t, 2)",
]  # fmt: skip


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_a_dispatch_mode_sees_the_operators_torch_dispatches(expression):
    def run(lib):
        names = {
            "lib": lib,
            "a": lib.tensor([1, 2, 3]),
            "b": lib.tensor([3, 3, 1]),
            "t": lib.ones(2),
            "u": lib.full((2,), 3.0),
        }
        recorder = op_recorder(lib)
        with recorder:
            result = eval(expression, names)
        return recorder.ops, result

    (e_ops, e), (t_ops, t) = run(ember), run(torch)
    assert e_ops == t_ops
    _same(lambda: e, lambda: t)


REFLECTED = ["__radd__", "__rsub__", "__rmul__", "__rmod__", "__rpow__", "__rtruediv__",
             "__rfloordiv__", "__rdiv__"]  # fmt: skip


@pytest.mark.parametrize("other", ["tensor", "int", "float", "int-tensor"])
@pytest.mark.parametrize("name", REFLECTED)
def test_reflected_operators_values_and_gradients(name, other):
    def run(lib):
        t = lib.tensor([1.5, 2.0, -3.0], requires_grad=True)
        u = {
            "tensor": lib.tensor([3.0, -1.0, 0.5], requires_grad=True),
            "int": 2,
            "float": 2.5,
            "int-tensor": lib.tensor([3, 1, 2]),
        }[other]
        result = getattr(t, name)(u)
        result.sum().backward()
        grads = [t.grad] + ([u.grad] if other == "tensor" else [])
        return result, type(result.grad_fn).__name__, grads

    e, t = _outcome(lambda: run(ember)), _outcome(lambda: run(torch))
    if t[1] is not None or e[1] is not None:
        assert (type(e[1]).__name__, str(e[1])) == (type(t[1]).__name__, str(t[1]))
        return
    (e_result, e_node, e_grads), (t_result, t_node, t_grads) = e[0], t[0]
    assert e_node == t_node
    for a, b in zip([e_result, *e_grads], [t_result, *t_grads]):
        assert str(a.dtype).rpartition(".")[2] == str(b.dtype).rpartition(".")[2]
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6)


def test_rmatmul_with_tensors():
    def rmatmul(lib, u, v):
        return lib.ones(u).__rmatmul__(lib.ones(v))

    for u, v in (((2,), (2,)), ((3,), (2, 3)), ((3, 2), (3,))):  # u.__rmatmul__(v) is v @ u
        _both(rmatmul, u, v)


def test_bitwise_results_never_require_grad():
    for lib in (ember, torch):
        x = lib.tensor([1, 2, 3])
        for result in (x & x, x | 1, ~x, x << 1, lib.bitwise_xor(x, x), lib.logical_xor(x, x)):
            assert result.requires_grad is False and result.grad_fn is None
        y = lib.ones(2, requires_grad=True)
        with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
            y & y


@pytest.mark.parametrize(
    "expression", ["m << m", "m << 1", "m & m", "m & 1", "~m", "lib.bitwise_and(1, m)", "m ^ m"]
)
def test_meta_tensors(expression):
    def run(lib):
        return eval(expression, {"lib": lib, "m": lib.ones(3, dtype=lib.int64, device="meta")})

    _same(lambda: run(ember), lambda: run(torch))


@pytest.mark.parametrize("dtype", INTEGRAL)
def test_shift_edges(dtype):
    """Negative shifts, shifts past the width, the sign bit, unsigned wrap-around."""
    values = [1, -1, 5, -128, 100, 7, 0, 127]
    shifts = [0, 1, 3, 7, 8, 65, -1, 63]

    def shift(lib, op, by):
        other = _tensor(lib, dtype, by) if isinstance(by, list) else by
        return op(_tensor(lib, dtype, values), other)

    for op in (operator.lshift, operator.rshift):
        _both(shift, op, shifts)
        for number in (-1, 0, 7, 8, 31, 32, 64, 70, 300):
            _both(shift, op, number)
