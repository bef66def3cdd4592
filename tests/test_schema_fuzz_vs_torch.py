"""Differential fuzzing of the schema parser and of bind against PyTorch:
generated schemas, mutations of real ones, token soup, torch.library calls."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oracle import torch
from test_schema_vs_torch import (
    all_torch_schemas,
    ember_outcome,
    normalise_alias_order,
    schema_differences,
    torch_outcome,
)

from ember._dispatch.schema_parser import parse_schema

# -- hypothesis: valid schemas built from the grammar -------------------------

BASE = st.sampled_from(
    ["Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType", "Layout",
     "MemoryFormat", "Device", "Generator", "Storage", "Stream", "QScheme", "Any", "complex",
     "t", "SymBool"]
)  # fmt: skip
ALIAS = st.sampled_from(["", "(a)", "(a!)", "(b!)", "(a -> *)", "(*)", "(a|b)"])
NAME = st.sampled_from(["x", "self", "other", "out", "dim", "from", "a1", "_y"])


@st.composite
def argument_text(draw, is_return=False):
    base = draw(BASE)
    alias = draw(ALIAS) if base == "Tensor" else ""
    suffix = draw(st.sampled_from(["", "?", "[]", "[]?", "?[]", "[2]", "[1]?"]))
    if suffix.startswith("[") and suffix[1:2].isdigit():
        text = f"{base}{alias}{suffix}"
    else:
        text = f"{base}{alias}{suffix}"
    name = draw(NAME) if not is_return or draw(st.booleans()) else ""
    if not is_return and draw(st.booleans()):
        default = draw(default_for(base, suffix))
        if default is not None:
            return f"{text} {name}={default}"
    return f"{text} {name}".rstrip()


def default_for(base, suffix):
    numbers = st.one_of(
        st.integers(-(2**63), 2**63 - 1).map(str),
        st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    )
    if "?" in suffix and not suffix.endswith("[]"):
        return st.just("None")
    if suffix.startswith("[") and base in ("int", "SymInt", "float"):
        element = numbers if base == "float" else st.integers(-100, 100).map(str)
        as_list = st.lists(element, max_size=3).map(lambda v: "[" + ", ".join(v) + "]")
        if suffix[1:2].isdigit():
            return st.one_of(as_list, element)
        return as_list
    if suffix:
        return st.just(None)
    if base in ("int", "SymInt"):
        return st.integers(-(2**63), 2**63 - 1).map(str)
    if base == "float":
        return numbers
    if base == "bool":
        return st.sampled_from(["True", "False"])
    if base == "str":
        return st.text(alphabet="abc'\"\\ntx ", max_size=6).map(
            lambda s: "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"
        )
    if base == "Scalar":
        return st.one_of(numbers, st.sampled_from(["True", "None"]))
    if base in ("Tensor", "Generator"):
        return st.just("None")
    if base == "ScalarType":
        return st.sampled_from(["float", "long", "3"])
    if base == "Device":
        return st.sampled_from(["'cpu'", "'cuda:1'", "'meta'"])
    return st.just(None)


@st.composite
def schema_text(draw):
    arguments = draw(st.lists(argument_text(), max_size=5))
    star = draw(st.integers(0, len(arguments) + 1))
    if star <= len(arguments):
        arguments.insert(star, "*")
    returns = draw(st.lists(argument_text(is_return=True), max_size=3))
    if len(returns) == 1 and draw(st.booleans()):
        ret = returns[0]
    else:
        ret = "(" + ", ".join(returns) + ")"
    name = draw(st.sampled_from(["f", "aten::f", "ns::op.overload", "my_op.Tensor_out"]))
    return f"{name}({', '.join(arguments)}) -> {ret}"


@settings(max_examples=400, deadline=None)
@given(schema_text())
def test_generated_schemas_match_torch(text):
    status, theirs = torch_outcome(text)
    if status == "ok":
        assert schema_differences(parse_schema(text), theirs) == []
    else:
        error, mine = ember_outcome(text)
        assert error == status, theirs
        assert normalise_alias_order(mine) == normalise_alias_order(theirs)


# -- hypothesis: mutations of real schemas ------------------------------------

SAMPLE = [
    "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor",
    "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor",
    "aten::randn(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "aten::f(str s=\"a\\'b\", Device d='cuda:1', complex c=1j, ScalarType t=float) -> (Tensor a, Tensor(b!) b)",
]
PIECES = list("()[]{}<>,.:;=?!*|-+#'\"\\ \n\t") + [
    "->", "...", "Tensor", "int", "None", "True", "1", "1.5", "e", "0x", "j", "(a!)", "'\\x'",
    "if", "is not", "# type:", "é",
]  # fmt: skip


@st.composite
def mutated_schema(draw):
    text = draw(st.sampled_from(SAMPLE + all_torch_schemas()[:50]))
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "truncate", "replace"]))
        piece = draw(st.sampled_from(PIECES))
        if action == "insert":
            text = text[:position] + piece + text[position:]
        elif action == "delete":
            text = text[:position] + text[position + draw(st.integers(1, 5)) :]
        elif action == "truncate":
            text = text[:position]
        else:
            text = text[:position] + piece + text[position + len(piece) :]
    return text


@settings(max_examples=1000, deadline=None)
@given(mutated_schema())
def test_mutated_schemas_fail_like_torch(text):
    status, theirs = torch_outcome(text)
    try:
        mine = parse_schema(text)
    except (RuntimeError, ValueError, IndexError) as error:
        assert status != "ok", f"torch accepts: {theirs}"
        if "é" not in text:  # torch fails to decode its own error report there
            assert type(error).__name__ == status, (status, theirs)
            assert normalise_alias_order(str(error)) == normalise_alias_order(theirs)
        return
    assert status == "ok", f"torch rejects: {theirs}"
    assert schema_differences(mine, theirs) == []


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(codec="ascii"), max_size=40))
def test_arbitrary_text_fails_as_torch_fails(text):
    """Any ASCII text: parsed, or refused with torch's exception type and message (torch
    reads the text as a C string, so a NUL ends it)."""
    assume("\x00" not in text)
    status, theirs = torch_outcome(text)
    error, mine = ember_outcome(text)
    if status == "ok":
        assert error == "ok", mine
    else:
        assert (error, normalise_alias_order(mine)) == (status, normalise_alias_order(theirs))


# -- binding: the same call on a torch.library op and on ember's schema -------

BIND_SCHEMA = (
    "f(Tensor x, int y, float z=1.5, *, int w=3, str s='a', Scalar a=1, int[] l=[], "
    "int[2] p=1, bool b=False, Tensor? o=None) -> Tensor"
)


class FakeTensor:
    _key_bits = 1


@pytest.fixture(scope="module")
def torch_op():
    library = torch.library.Library("embschema", "DEF")
    library.define(BIND_SCHEMA)
    seen = []

    def kernel(*args, **kwargs):
        seen.append((args, kwargs))
        return args[0]

    library.impl("f", kernel, "CPU")
    yield torch.ops.embschema.f.default, seen
    library._destroy()


BIND_CALLS = [
    ((2,), {}),
    ((2, 1.5), {"w": 3, "s": "a"}),
    ((2, 2.5), {"w": 4}),
    ((), {"y": 2}),
    ((True, 2), {"b": 1, "l": (1, 2)}),
    ((2,), {"p": 3, "a": 2.5, "o": None}),
    ((2,), {"p": [1, 2], "s": "b"}),
    ((2, 1.5, 3), {}),
    ((), {}),
    ((2,), {"q": 1}),
    (("str",), {}),
    ((2.0,), {}),
    ((2, "a"), {}),
    ((2,), {"s": 3}),
    ((2,), {"y": 3}),
    ((2,), {"a": None}),
    ((2,), {"a": "x"}),
    ((2,), {"l": [1.5]}),
    ((2,), {"l": 1}),
]


@pytest.mark.parametrize("args, kwargs", BIND_CALLS)
def test_bind_and_python_kernel_args_match_torch(torch_op, args, kwargs):
    op, seen = torch_op
    schema = parse_schema("embschema::" + BIND_SCHEMA)
    real, fake = torch.zeros(1), FakeTensor()
    seen.clear()
    try:
        op(real, *args, **kwargs)
        theirs = None
    except RuntimeError as error:
        theirs = str(error)
    try:
        full = schema.bind((fake, *args), kwargs)
    except RuntimeError as error:
        assert str(error) == theirs
        return
    assert theirs is None
    mine_args, mine_kwargs = schema.python_kernel_args(full)
    ((their_args, their_kwargs),) = seen
    assert mine_args[0] is fake and their_args[0] is real
    assert mine_args[1:] == their_args[1:]
    assert mine_kwargs == their_kwargs


TOKEN_SOUP = [
    "f", "(", ")", "->", "int", "Tensor", "x", ",", "=", "1", "1.5", "'a'", '"b"', "[", "]",
    "?", "!", "*", "...", "|", "a", "\n", " ", "  ", "\t", "#c\n", "\\\n", "None", "True", "-",
    "0x1", "e5", "j", "::", ".", "ScalarType", "Device", "'cpu'", "int[2]", "(a!)", "'''x'''",
    "\\", "SymInt", "str", "float", "Dict(", "Union(", "Tensor(a)", "\r", "\v",
]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(TOKEN_SOUP), max_size=14), st.booleans())
def test_token_soup_behaves_like_torch(tokens, open_call):
    text = ("f(" if open_call else "") + "".join(tokens)
    status, theirs = torch_outcome(text)
    error, mine = ember_outcome(text)
    if status == "ok":
        assert error == "ok", mine
        assert schema_differences(mine, theirs) == []
    else:
        assert error == status, theirs
        assert normalise_alias_order(mine) == normalise_alias_order(theirs)
