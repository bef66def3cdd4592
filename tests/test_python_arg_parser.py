"""PythonArgParser: binding, conversions, and PyTorch's TypeError texts.

The differential cases call the real torch function with bad arguments and the
ember parser, built from the same signature strings, with the same arguments
(torch tensors replaced by a stub tensor class); the messages must agree once
``ember.`` is read as ``torch.``.
"""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember._c10 import dtypes
from ember._c10.device import device as ember_device
from ember.aten.python_arg_parser import PythonArgParser, should_allow_numbers_as_tensors


class Tensor:
    """A stub tensor: what the parser looks at (``_key_bits``, dtype, dim, item)."""

    __slots__ = ("_key_bits", "dtype", "shape", "value", "requires_grad")

    def __init__(self, shape=(2, 3), dtype=dtypes.float32, value=1, requires_grad=False):
        self._key_bits = 1
        self.shape, self.dtype, self.value = tuple(shape), dtype, value
        self.requires_grad = requires_grad

    def dim(self):
        return len(self.shape)

    def numel(self):
        return int(np.prod(self.shape))

    def item(self):
        return self.value

    def __index__(self):
        if self.numel() != 1 or self.dtype.is_floating_point or self.dtype.is_complex:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.value)


SIGS = {
    "add": [
        "add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None)",
        "add(Tensor input, Scalar alpha, Tensor other, *, Tensor out=None)|deprecated",
        "add(Tensor input, Scalar alpha, Tensor other)|deprecated",
    ],
    "mm": [
        "mm(Tensor input, Tensor mat2, *, Tensor? out=None)",
        "mm(Tensor input, Tensor mat2, ScalarType out_dtype, *, Tensor? out=None)",
    ],
    "sum": [
        "sum(Tensor input, *, ScalarType? dtype=None)",
        "sum(Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None)",
    ],
    "Tensor.sum": [
        "sum(*, ScalarType? dtype=None)",
        "sum(int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)",
    ],
    "Tensor.view": ["view(ScalarType dtype)", "view(SymInt[] size)"],
    "Tensor.expand": ["expand(SymInt[] size, *, bool implicit=False)"],
    "Tensor.permute": ["permute(int[] dims)"],
    "zeros": [
        "zeros(SymInt[] size, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool requires_grad=False)"
    ],
    "cat": ["cat(Tensor[] tensors, int dim=0, *, Tensor? out=None)"],
    "div": [
        "div(Tensor input, Tensor other, *, Tensor? out=None)",
        "div(Tensor input, Tensor other, *, str? rounding_mode, Tensor? out=None)",
        "div(Tensor input, Scalar other, *, str? rounding_mode)",
    ],
    "clamp": [
        "clamp(Tensor input, Tensor? min=None, Tensor? max=None, *, Tensor? out=None)",
        "clamp(Tensor input, Scalar? min=None, Scalar? max=None, *, Tensor? out=None)",
    ],
    "max": [
        "max(Tensor input, *, Tensor? out=None)",
        "max(Tensor input, Tensor other, *, Tensor? out=None)",
        "max(Tensor input, int dim, bool keepdim=False, *, Tensor[2]? out=None)",
    ],
    "where": [
        "where(Tensor condition)",
        "where(Tensor condition, Tensor input, Tensor other, *, Tensor? out=None)",
        "where(Tensor condition, Scalar self, Tensor other)",
        "where(Tensor condition, Tensor input, Scalar other)",
        "where(Tensor condition, Scalar self, Scalar other)",
    ],
    "transpose": ["transpose(Tensor input, int dim0, int dim1)"],
    "flip": ["flip(Tensor input, int[] dims)"],
    "dropout": ["dropout(Tensor input, float p, bool train)"],
    "full": [
        "full(int[] size, Scalar fill_value, *, Tensor? out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool requires_grad=False)"
    ],
    "randint": [
        "randint(SymInt high, SymInt[] size, *, Generator? generator, Tensor? out=None, "
        "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, "
        "bool requires_grad=False)",
        "randint(SymInt high, SymInt[] size, *, Tensor? out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool requires_grad=False)",
        "randint(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, Tensor? out=None, "
        "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, "
        "bool requires_grad=False)",
        "randint(SymInt low, SymInt high, SymInt[] size, *, Tensor? out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool requires_grad=False)",
    ],
}
PARSERS = {
    name: PythonArgParser(sigs, numbers_as_tensors=should_allow_numbers_as_tensors(name))
    for name, sigs in SIGS.items()
}

# (function, "positional args, keyword args" as Python source over t, f32, i64)
ERROR_CASES = [
    ("add", "(t, 'a'), {}"),
    ("add", "(t, t), {'alpha': 'x'}"),
    ("add", "(t,), {}"),
    ("add", "(), {}"),
    ("add", "(t, t, 1), {}"),
    ("add", "(t, t, t, t), {}"),
    ("add", "(t, t), {'foo': 1}"),
    ("add", "(t, t), {'input': t}"),
    ("add", "(t, None), {}"),
    ("add", "(t, t), {'alpha': None}"),
    ("add", "(t, t), {'alpha': t}"),
    ("mm", "(t,), {}"),
    ("mm", "(), {}"),
    ("mm", "(t, t, t), {}"),
    ("mm", "(t, t, t, t, t), {}"),
    ("mm", "(t, 'x'), {}"),
    ("mm", "(t,), {'mat2': 1}"),
    ("mm", "(None, t), {}"),
    ("mm", "(t, t, 1, 2), {}"),
    ("mm", "(t,), {'mat2': t, 'mat3': t}"),
    ("mm", "(t, t), {'mat2': t}"),
    ("mm", "(t, t), {'bar': 1, 'foo': 2}"),
    ("mm", "(t, t), {'out': None, 'out_dtype': None}"),
    ("mm", "(t, t, 'a'), {'out': None}"),
    ("sum", "(t, 'x'), {}"),
    ("sum", "(t,), {'dim': 'x'}"),
    ("sum", "(t, 1, 2, 3, 4), {}"),
    ("sum", "(t, 1, 2, 3, 4, 5, 6), {}"),
    ("sum", "(t,), {'foo': 1}"),
    ("sum", "(t,), {'dtype': 1}"),
    ("sum", "(), {}"),
    ("sum", "(t, (1, 'a')), {}"),
    ("sum", "(t, [1.5]), {}"),
    ("sum", "(t, None, 'x'), {}"),
    ("sum", "(t, (1, 2), 'x'), {}"),
    ("sum", "(t,), {'dim': (0, 'a')}"),
    ("sum", "(t,), {'dim': 1, 'axis': 1}"),
    ("sum", "(t, 1), {'dim': 1}"),
    ("sum", "(), {'dim': 1}"),
    ("Tensor.sum", "('x',), {}"),
    ("Tensor.sum", "(1, 'a'), {}"),
    ("Tensor.view", "('a',), {}"),
    ("Tensor.view", "(2, 'a'), {}"),
    ("Tensor.view", "(), {}"),
    ("Tensor.view", "(2,), {'size': 3}"),
    ("Tensor.view", "(True,), {}"),
    ("Tensor.view", "(2.0, 3), {}"),
    ("Tensor.view", "((2, 3), 4), {}"),
    ("Tensor.view", "(2, None), {}"),
    ("Tensor.view", "(2, f32_0d), {}"),
    ("Tensor.view", "(2, 3), {'dtype': 1}"),
    ("Tensor.expand", "(2.5, 3), {}"),
    ("Tensor.expand", "(2, 3.5), {}"),
    ("Tensor.expand", "([2.5, 3],), {}"),
    ("Tensor.expand", "(2, 3), {'foo': 1}"),
    ("Tensor.permute", "(1.5, 0), {}"),
    ("Tensor.permute", "([1, 0], 1), {}"),
    ("zeros", "(2, 'a'), {}"),
    ("zeros", "('a',), {}"),
    ("zeros", "(2,), {'dtype': 'x'}"),
    ("zeros", "(2, 3), {'foo': 1}"),
    ("zeros", "(2,), {'device': 1.5}"),
    ("zeros", "((2, 3), 4), {}"),
    ("zeros", "(2, 3.5), {}"),
    ("zeros", "(True,), {}"),
    ("zeros", "((2, 3.5),), {}"),
    ("zeros", "([2.5, 3],), {}"),
    ("zeros", "(f32,), {}"),
    ("zeros", "(), {'size': 2}"),
    ("zeros", "(), {}"),
    ("zeros", "(2,), {'requires_grad': 1}"),
    ("zeros", "(2,), {'pin_memory': 1}"),
    ("zeros", "(2,), {'layout': 1}"),
    ("zeros", "(2,), {'dtype': np.float32}"),
    ("zeros", "(2, 3), {'dtype': f32, 'out': 1}"),
    ("zeros", "(2,), {'dtype': f32, 'foo': 1, 'bar': 2}"),
    ("cat", "(t,), {}"),
    ("cat", "([t, 1],), {}"),
    ("cat", "((t, None),), {}"),
    ("cat", "((t, t), 'x'), {}"),
    ("cat", "((t, t), 0, 5), {}"),
    ("cat", "(), {}"),
    ("cat", "([t], 0), {'out': None, 'bar': 1, 'foo': 2}"),
    ("div", "(t, t), {'rounding_mode': 1}"),
    ("clamp", "(t, 'a'), {}"),
    ("clamp", "(t,), {'min': 1, 'max': 'a'}"),
    ("max", "(t, 'a'), {}"),
    ("max", "(t, 1), {'out': 1}"),
    ("max", "(t, 1), {'out': (t,)}"),
    ("max", "(t, 1), {'out': [t, t, t]}"),
    ("max", "(t, 1, True, 1), {}"),
    ("max", "(t, 1, False), {'out': (t, t), 'foo': 1}"),
    ("where", "(t, 1, 'a'), {}"),
    ("transpose", "(t, 0), {}"),
    ("transpose", "(t, 0, 'a'), {}"),
    ("transpose", "(t, 0, True), {}"),
    ("transpose", "(t, 0, 1.0), {}"),
    ("flip", "(t, [1.5]), {}"),
    ("flip", "(t, 1), {}"),
    ("flip", "(t, (0, 'a')), {}"),
    ("dropout", "(t, '1', True), {}"),
    ("full", "((2,), 'a'), {}"),
    ("full", "(2, 1), {}"),
    ("full", "((2,), 1), {'dtype': 1}"),
    ("randint", "(2,), {}"),
    ("add", "(t, t, 1, (2, 3), [t]), {}"),
    ("add", "(t, t, 1, 2), {'foo': 1}"),
    ("add", "(t, t, 1), {'foo': 1, 'bar': (1,)}"),
    ("Tensor.view", "(), {'size': 2, 'foo': 1}"),
    ("where", "(t, (1, 2), [1.5]), {}"),
    ("where", "(t, t, t, t, t, t), {}"),
]

OK_CASES = [
    ("add", "(t, t), {'alpha': i64_0d}"),
    ("add", "(t, t), {'alpha': np.float32(2)}"),
    ("add", "(1, t), {}"),
    ("sum", "(t,), {'axis': 1}"),
    ("Tensor.sum", "(), {'dim': (0,), 'keepdims': True}"),
    ("Tensor.view", "(np.int64(2), 3), {}"),
    ("Tensor.view", "(2, i64_0d), {}"),
    ("Tensor.view", "(), {'size': (6,)}"),
    ("zeros", "(2,), {'dtype': float}"),
    ("zeros", "(np.int64(2),), {}"),
    ("zeros", "(2, 3), {'pin_memory': None}"),
    ("transpose", "(t, np.int64(0), i64_0d), {}"),
    ("dropout", "(t, True, True), {}"),
    ("dropout", "(t, np.float32(0.5), True), {}"),
    ("dropout", "(t, f32_0d, True), {}"),
    ("cat", "(), {'tensors': (t,), 'dim': 0, 'out': None}"),
    ("div", "(t, t), {'rounding_mode': None}"),
]


def _ember_env():
    return {
        "t": Tensor(),
        "f32": dtypes.float32,
        "f32_0d": Tensor((), dtypes.float32, 2.0),
        "i64_0d": Tensor((), dtypes.int64, 1),
        "np": np,
    }


def _ember_call(name, source):
    args, kwargs = eval(source, _ember_env())
    return PARSERS[name].parse(args, kwargs, self=Tensor() if name.startswith("Tensor.") else None)


def _torch_call(torch, name, source):
    env = {
        "t": torch.ones(2, 3),
        "f32": torch.float32,
        "f32_0d": torch.tensor(2.0),
        "i64_0d": torch.tensor(1),
        "np": np,
    }
    args, kwargs = eval(source, env)
    if name.startswith("Tensor."):
        return getattr(env["t"], name.split(".")[1])(*args, **kwargs)
    return getattr(torch, name)(*args, **kwargs)


@pytest.mark.parametrize("name,source", ERROR_CASES)
def test_error_messages_match_pytorch(name, source):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as ours:
        _ember_call(name, source)
    with pytest.raises(TypeError) as theirs:
        _torch_call(torch, name, source)
    assert str(ours.value).replace("ember.", "torch.") == str(theirs.value)


@pytest.mark.parametrize("name,source", OK_CASES)
def test_accepted_where_pytorch_accepts(name, source):
    _ember_call(name, source)


def test_signature_printing():
    sigs = PARSERS["sum"].signatures
    assert str(sigs[1]) == (
        "(Tensor input, tuple of ints dim, bool keepdim = False, *, ember.dtype dtype = None, "
        "Tensor out = None)"
    )
    assert str(PARSERS["Tensor.sum"].signatures[0]) == "(*, ember.dtype dtype = None)"


def test_values_in_signature_order_with_defaults():
    t = Tensor()
    parse = PARSERS["sum"].parse
    assert parse((t,), {}) == (0, [t, None])
    assert parse((t, 1), {"keepdim": True}) == (1, [t, [1], True, None, None])
    assert parse((t, (0, 1)), None) == (1, [t, [0, 1], False, None, None])
    assert parse((t,), {"dim": 1, "dtype": dtypes.int64}) == (
        1,
        [t, [1], False, dtypes.int64, None],
    )
    assert PARSERS["add"].parse((t, 2.5), {}) == (0, [t, 2.5, 1, None])
    assert PARSERS["add"].parse((t, t), {"alpha": Tensor((), dtypes.int64, 3)})[1][2] == 3


def test_int_lists_varargs_and_sizes():
    view = PARSERS["Tensor.view"].parse
    assert view((2, 3), {}) == (1, [[2, 3]])
    assert view(((2, 3),), {}) == (1, [[2, 3]])
    assert view(([2, 3],), {}) == (1, [[2, 3]])
    assert view((dtypes.int32,), {}) == (0, [dtypes.int32])
    assert view((np.int64(2), Tensor((), dtypes.int64, 3)), {}) == (1, [[2, 3]])
    assert view((), {"size": (6,)}) == (1, [[6]])
    pool = PythonArgParser(["pool(Tensor input, int[2] kernel_size, int[2] stride=1)"])
    t = Tensor()
    assert pool.parse((t, 3), {}) == (0, [t, [3, 3], [1, 1]])
    assert pool.parse((t, (3, 2), [1, 2]), {}) == (0, [t, [3, 2], [1, 2]])
    zeros = PARSERS["zeros"].parse
    assert zeros((2, 3), {})[1][0] == [2, 3]
    assert zeros((), {"size": [4]})[1][0] == [4]


def test_factory_options():
    index, values = PARSERS["zeros"].parse(
        (2,), {"dtype": float, "device": "cpu", "requires_grad": True}
    )
    assert values[0] == [2]
    assert values[2] is dtypes.float64
    assert values[4] == ember_device("cpu")
    assert values[5] is False and values[6] is True


def test_tuple_out_and_tensor_lists():
    t = Tensor()
    assert PARSERS["max"].parse((t, 1), {"out": (t, t)}) == (2, [t, 1, False, [t, t]])
    assert PARSERS["cat"].parse(([t, t],), {}) == (0, [[t, t], 0, None])


def test_numbers_as_tensors():
    t = Tensor()
    assert PARSERS["add"].parse((1, t), {}) == (0, [1, t, 1, None])
    assert should_allow_numbers_as_tensors("mul_") and not should_allow_numbers_as_tensors(
        "maximum"
    )
    with pytest.raises(
        TypeError, match=r"mm\(\): argument 'mat2' \(position 2\) must be Tensor, not int"
    ):
        PARSERS["mm"].parse((t, 1), {})


def test_deprecated_signature_is_tried_last_and_warns(monkeypatch):
    from ember.aten import python_arg_parser

    monkeypatch.setattr(python_arg_parser, "_deprecation_warned", False)
    t = Tensor()
    with pytest.warns(UserWarning, match="This overload of add is deprecated"):
        assert PARSERS["add"].parse((t, 2, t), {}) == (1, [t, 2, t, None])


def test_deprecated_signatures_warn_once_per_process_as_torch_does(monkeypatch):
    """TORCH_WARN_ONCE at one call site: the first deprecated call warns, none after it."""
    import warnings

    from ember.aten import python_arg_parser

    monkeypatch.setattr(python_arg_parser, "_deprecation_warned", False)
    t = Tensor()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        PARSERS["add"].parse((t, 2, t), {})
        PARSERS["add"].parse((t, 3, t), {})
        PythonArgParser(SIGS["add"]).parse((t, 2, t), {})
    assert [str(w.message).splitlines()[0] for w in caught] == [
        "This overload of add is deprecated:"
    ]


def test_malformed_signatures_are_rejected():
    with pytest.raises(ValueError, match="invalid type string"):
        PythonArgParser(["f(Quux x)"])
    with pytest.raises(ValueError, match="missing type"):
        PythonArgParser(["f(x)"])
    with pytest.raises(ValueError, match="default value for Tensor"):
        PythonArgParser(["f(Tensor x=1)"])


def test_fast_paths_agree_with_the_reference_loop():
    """The positional and keyword fast paths bind exactly as FunctionSignature::parse."""
    from itertools import product

    from ember.aten import python_arg_parser as pap

    t = Tensor()
    pool = [t, 1, 2.5, True, None, "a", (1, 2), [t, t], (1, "a"), dtypes.int64, np.int64(3)]
    keyword_pool = [
        {},
        {"dim": 1},
        {"keepdim": True},
        {"alpha": 2},
        {"out": None},
        {"dtype": dtypes.float32},
    ]
    keyword_pool += [{"axis": 0}, {"size": (2,)}, {"foo": 1}, {"input": t}, {"out": (t, t)}]
    for parser in PARSERS.values():
        for sig in parser.signatures:
            for count in range(4):
                values = pool if count < 3 else pool[:5]
                for args, kwargs in product(product(values, repeat=count), keyword_pool):
                    try:
                        expected = pap._bind(sig, args, kwargs, False)
                    except TypeError as error:
                        expected = str(error)
                    try:
                        if kwargs:
                            got = pap._kwargs_bind(sig, args, kwargs)
                        else:
                            got = sig.binders[count](args) if count <= sig.max_pos_args else None
                            if got is None and sig.intlist_first:
                                got = pap._varargs_bind(sig, args)
                    except TypeError as error:
                        got = str(error)
                    assert _same(got, expected), (sig, args, kwargs, got, expected)


def _same(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a).__name__ == "UnpackError":
        return type(b).__name__ == "UnpackError" and a.message == b.message
    return a is b or a == b


def _fast_bound_bindings():
    """(module, parser name, tail) of every generated binding that binds leading tensors
    without its parser (gen_python._leading_tensors)."""
    from ember.aten._generated import python_functions, python_nn_functions, tensor_methods

    found = []
    for module in (python_functions, python_nn_functions, tensor_methods):
        for name, tail in vars(module).items():
            if name.startswith("_tail_parser_"):
                found.append((module, name.removeprefix("_tail"), tail))
    return found


def test_bindings_that_skip_the_parser_bind_as_the_parser_would():
    bindings = _fast_bound_bindings()
    assert len(bindings) > 50  # mm, sub_, add, ... (a codegen change must not lose them)
    for module, parser_name, tail in bindings:
        parser = getattr(module, parser_name)
        signature, *deprecated = parser.signatures  # a deprecated one is tried after it
        assert all(s.deprecated for s in deprecated), parser_name
        count = len(signature.params) - len(tail)
        tensors = tuple(ember.ones(2) for _ in range(count))
        index, values = parser.parse(tensors, {})
        assert index == 0 and values == [*tensors, *tail], parser_name


def test_a_binding_that_skips_the_parser_still_parses_everything_else():
    a, b = ember.tensor([[1.0, 2.0], [3.0, 4.0]]), ember.tensor([[0.5, 0.0], [0.0, 2.0]])

    def same(x, y):
        return np.array_equal(x.numpy(), y.numpy())

    assert same(a.mm(b), a.mm(mat2=b))
    assert same(a.clone().sub_(b), a.clone().sub_(b, alpha=1))
    assert same(a.clone().sub_(b, alpha=2), a - 2 * b)
    assert same(a.clone().sub_(3), a - 3)  # a number for the tensor: the parser wraps it
    with pytest.raises(TypeError, match=r"mm\(\) takes 1 positional argument but 2 were given"):
        a.mm(b, b)
    with pytest.raises(TypeError, match="argument 'mat2' .* must be Tensor, not int"):
        a.mm(1)
