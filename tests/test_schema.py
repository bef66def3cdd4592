"""FunctionSchema without the oracle: printing, accessors, and the calling
convention helpers (bind, python_kernel_args, dispatch_arguments).
Expected texts were taken from PyTorch 2.13; test_schema_vs_torch.py
re-checks them against torch when it is installed."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember._dispatch.schema import FunctionSchema
from ember._dispatch.schema_parser import parse_schema, parse_unnamed_schema


class FakeTensor:
    """Any object whose type has `_key_bits` takes part in dispatch."""

    _key_bits = 1

    def __repr__(self) -> str:
        return "FakeTensor()"


X = FakeTensor()
F_TEXT = 'fsargs::f(Tensor x, int y, float z=1.5, *, int w=3, str s="a") -> Tensor'
F = parse_schema("fsargs::f(Tensor x, int y, float z=1.5, *, int w=3, str s='a') -> Tensor")
PYBIND = (
    "Unable to cast Python instance of type <class '{}'> to C++ type '?' "
    "(#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)"
)


@pytest.mark.parametrize(
    "text, printed",
    [
        ("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", None),
        ("f(int[2] x=[1, 1]) -> int", "f(int[2] x=1) -> int"),
        ("f(int[1] dim=1) -> int", "f(int[1] dim=[1]) -> int"),
        ("f(SymInt[2] s=1) -> int", "f(SymInt[2] s=[1, 1]) -> int"),
        ("f(ScalarType dt=float, ScalarType b=long) -> int", "f(ScalarType dt=6, ScalarType b=4) -> int"),
        ("f(Layout l=strided, MemoryFormat m=contiguous_format) -> int", "f(Layout l=0, MemoryFormat m=0) -> int"),
        ("f(Device dev='cpu') -> int", "f(Device dev=cpu) -> int"),
        ("f(float a=1e-05, float b=0.1, float c=1e20, float d=-0.0, float e=1e10) -> int",
         "f(float a=1.0000000000000001e-05, float b=0.10000000000000001, float c=1e+20, float d=0., float e=10000000000.) -> int"),
        ("f(str s='a\\'b') -> int", "f(str s=\"a\\'b\") -> int"),
        ("f(int x=0x10) -> int", "f(int x=0) -> int"),
        ("f() -> (Tensor a)", "f() -> Tensor a"),
        ("f(Tensor(a -> *) self) -> Tensor(a)[]", None),
        ("f(Tensor! x) -> Tensor!", "f(Tensor($0! -> ) x) -> Tensor($1! -> )"),
        ("f(int x, ...) -> (int, ...)", None),
    ],
)  # fmt: skip
def test_printing(text, printed):
    assert str(parse_schema(text)) == (printed or text)


def test_accessors():
    schema = parse_schema(
        "aten::topk.values(Tensor self, SymInt k, int dim=-1, *, ScalarType? dtype=None, "
        "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"
    )
    assert schema.name == "aten::topk" and schema.overload_name == "values"
    assert schema.qualified_name == "aten::topk.values"
    assert schema.is_mutable
    self, k, dim, dtype, values, _ = schema.arguments
    assert (str(k.type), str(k.real_type)) == ("int", "int")
    assert (str(dtype.type), str(dtype.real_type)) == ("Optional[int]", "Optional[ScalarType]")
    assert dim.default_value == -1 and dim.has_default_value()
    assert not self.has_default_value() and self.default_value is None
    assert values.kwarg_only and values.is_out and values.is_write
    assert values.alias_info.before_set == {"a"} and values.alias_info.after_set == {"a"}
    assert schema.returns[0].name == "values" and not schema.returns[0].is_out
    assert parse_schema("f(int[2] x) -> int").arguments[0].N == 2
    wildcard = parse_schema("f(Tensor(a -> *) x) -> int").arguments[0].alias_info
    assert (wildcard.before_set, wildcard.after_set, wildcard.is_write) == ({"a"}, {"*"}, False)
    assert parse_schema("f(int[] x=[1, 2]) -> int").arguments[0].default_value == [1, 2]
    assert parse_schema("f(Scalar s) -> int").arguments[0].type.__str__() == "number"


def test_equality_hash_and_parse_alias():
    text = "ns::g.o(Tensor x, int[2] y=1) -> Tensor"
    assert parse_schema(text) == FunctionSchema.parse(text)
    assert hash(parse_schema(text)) == hash(parse_schema(text))
    assert parse_schema(text) != parse_schema("ns::g.o(Tensor x, int[2] y=2) -> Tensor")
    assert parse_schema("mm(Tensor a) -> Tensor").qualified_name == "mm"


def test_unnamed_schema():
    schema = parse_unnamed_schema("(Tensor x, *, SymInt y=3) -> Tensor[]")
    assert schema.name == "" and str(schema) == "(Tensor x, *, SymInt y=3) -> Tensor[]"
    with pytest.raises(RuntimeError, match="expected \\( but found 'ident'"):
        parse_unnamed_schema("f(Tensor x) -> Tensor")


@pytest.mark.parametrize(
    "text, message",
    [
        ("f(int x", "expected ) but found 'eof' here:\nf(int x"),
        ("f.default(int x) -> int", "default is not a legal overload name for aten operators"),
        ("f", "Tried to parse a function schema but only the operator name was given"),
        ("f(float x=inf) -> int",
         "\ninvalid numeric default value:\nf(float x=inf) -> int\n             ~ <--- HERE\n"),
        ("f(int x=1, int z) -> int",
         '!seen_default_arg || arg.kwarg_only() INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/'
         'aten/src/ATen/core/function_schema.h":342, please report a bug to PyTorch. Non-default '
         "positional argument follows default argument. Parameter z in f(int x=1, int z) -> int"),
        ("f(Dimname x) -> int",
         "\nunknown type specifier. Common valid schema types include Tensor, SymInt, int, float, "
         "bool, Scalar; for a full list, please see https://github.com/pytorch/pytorch/blob/main/"
         "aten/src/ATen/native/README.md#func :\nf(Dimname x) -> int\n  ~~~~~~~ <--- HERE\n"),
    ],
)  # fmt: skip
def test_parse_errors(text, message):
    with pytest.raises(RuntimeError) as error:
        parse_schema(text)
    assert type(error.value) is RuntimeError  # torch raises no subclass
    assert str(error.value) == message


def test_number_conversion_errors_are_torchs_plain_types():
    """std::stod's invalid_argument is a ValueError, out_of_range an IndexError."""
    with pytest.raises(ValueError) as error:
        parse_schema("f(complex x=1) -> int")
    assert type(error.value) is ValueError and str(error.value) == "stod"
    with pytest.raises(IndexError) as error:
        parse_schema("f(int x=99999999999999999999) -> int")
    assert type(error.value) is IndexError and str(error.value) == "stoll"


def test_dispatch_arguments():
    schema = parse_schema(
        "f(Tensor a, int b, Tensor? c, Tensor[] d, Tensor?[] e, *, Tensor(a!) out, int[] f) -> ()"
    )
    expected = ((0, False), (2, False), (3, True), (4, True), (5, False))
    assert schema.dispatch_arguments() == expected
    assert schema.dispatch_arguments() is schema.dispatch_arguments()


def test_bind_fills_defaults_and_keywords():
    assert F.bind((X, 2), {}) == [X, 2, 1.5, 3, "a"]
    assert F.bind((X,), {"y": 2, "s": "b"}) == [X, 2, 1.5, 3, "b"]
    assert F.bind((X, True, 2), {}) == [X, 1, 2.0, 3, "a"]
    full = parse_schema("f(int[2] p=1, int[] q=[], float[] r=[1, 2.5]) -> ()").bind((), {})
    assert full == [[1, 1], [], [1.0, 2.5]]
    full[1].append(5)  # defaults are fresh lists on each call
    assert parse_schema("f(int[] q=[]) -> ()").bind((), {}) == [[]]


def test_bind_type_checks():
    schema = parse_schema(
        "g(Tensor? x, int[] y, Scalar s, bool b, SymInt n, float f, str t, Tensor[] l, "
        "Tensor?[] o, int? oi, ScalarType? dt=None, int[2] p=1) -> Tensor"
    )
    good = (X, (1, 2), 1.5, 1, True, 1, "s", [X], [None, X], None)
    assert schema.bind(good, {"p": 3}) == [
        X, [1, 2], 1.5, True, 1, 1.0, "s", [X], [None, X], None, None, [3, 3]
    ]  # fmt: skip
    assert schema.bind(good, {"dt": object})[10] is object


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((X, 2, 1.5, 3), {},
         f"fsargs::f() takes 3 positional argument(s) but 4 was/were given.  Declaration: {F_TEXT}"),
        ((X,), {}, f"fsargs::f() is missing value for argument 'y'. Declaration: {F_TEXT}"),
        ((X, 2), {"q": 1},
         f"Unknown keyword argument 'q' for operator 'fsargs::f'. Schema: {F_TEXT}"),
        ((X, 2), {"y": 3},
         f"Argument 'y' specified both as positional and keyword argument. Schema: {F_TEXT}"),
        ((X, "str"), {},
         "fsargs::f() Expected a value of type 'int' for argument 'y' but instead found type "
         f"'str'.\nPosition: 1\nValue: 'str'\nDeclaration: {F_TEXT}\nCast error details: "
         + PYBIND.format("str")),
        ((X, 2.0), {},
         "fsargs::f() Expected a value of type 'int' for argument 'y' but instead found type "
         f"'float'.\nPosition: 1\nValue: 2.0\nDeclaration: {F_TEXT}\nCast error details: "
         + PYBIND.format("float")),
        ((X, 2), {"s": 3},
         "fsargs::f() Expected a value of type 'str' for argument 's' but instead found type "
         f"'int'.\nPosition: 4\nValue: 3\nDeclaration: {F_TEXT}\nCast error details: "
         + PYBIND.format("int")),
        ((1, 2), {},
         "fsargs::f() Expected a value of type 'Tensor' for argument 'x' but instead found type "
         f"'int'.\nPosition: 0\nValue: 1\nDeclaration: {F_TEXT}\nCast error details: "
         "Unable to cast 1 to Tensor"),
    ],
)  # fmt: skip
def test_bind_errors(args, kwargs, message):
    with pytest.raises(RuntimeError) as error:
        F.bind(args, kwargs)
    assert str(error.value) == message


def test_bind_scalar_and_list_errors():
    schema = parse_schema("g(Scalar s, int[] y, Tensor[] l) -> ()")
    with pytest.raises(RuntimeError, match="Cast error details: Cannot cast None to number"):
        schema.bind((None, [1], [X]), {})
    with pytest.raises(RuntimeError, match="type 'List\\[int\\]' for argument 'y'"):
        schema.bind((1, [1.5], [X]), {})
    with pytest.raises(RuntimeError, match="type 'List\\[Tensor\\]' for argument 'l'"):
        schema.bind((1, [1], [X, None]), {})


def test_python_kernel_args_drop_defaults():
    # facts §8.6: f(x, 2, 1.5, z=3, s='a') arrives as (x,) with {}
    schema = parse_schema("f(Tensor x, int y=2, float f=1.5, *, int z=3, str s='a') -> Tensor")
    full = schema.bind((X, 2, 1.5), {"z": 3, "s": "a"})
    assert schema.python_kernel_args(full) == ((X,), {})
    full = schema.bind((X,), {"f": 2.5, "z": 4})
    assert schema.python_kernel_args(full) == ((X, 2, 2.5), {"z": 4})
    assert F.python_kernel_args(F.bind((X, 2), {"y": 2} if False else {})) == ((X, 2), {})
    out = parse_schema("f(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")
    assert out.python_kernel_args([X, X]) == ((X,), {"out": X})


REAL_SCHEMAS = [
    F_TEXT,
    "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0) -> Tensor",
    "aten::randn(SymInt[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "f(str s='a\\'b', complex c=1j, Dict(str, t) d, Union(int, str) u, ...) -> (Tensor a, ...)",
]
PIECES = list("()[]{},.:=?!*|-+#'\"\\ \n\t") + ["->", "...", "None", "1e", "0x", "j", "é"]


@settings(max_examples=1000, deadline=None)
@given(
    st.sampled_from(REAL_SCHEMAS),
    st.lists(
        st.tuples(st.integers(0, 200), st.sampled_from(["insert", "delete", "cut"]),
                  st.sampled_from(PIECES)),
        min_size=1, max_size=4,
    ),
)  # fmt: skip
def test_mutated_schemas_raise_only_parse_errors(text, edits):
    """RuntimeError, or torch's ValueError / IndexError for numbers stod/stoll refuse."""
    for position, action, piece in edits:
        if action == "insert":
            text = text[:position] + piece + text[position:]
        elif action == "delete":
            text = text[:position] + text[position + 3 :]
        else:
            text = text[:position]
    try:
        schema = parse_schema(text)
    except (RuntimeError, ValueError, IndexError):
        return
    printed = str(schema)
    # Three inputs print, as in torch, as text that does not parse back: `Tensor!` prints
    # as `Tensor($0! -> )`, a string default of a non-string type (`int s="a"`) prints
    # unquoted (`int s=a`), and an annotated list of lists (`Tensor(a)[][]`) prints as
    # `Tensor[]()[]`.
    mistyped = any(
        isinstance(a.default_value, str) and "str" not in str(a.type) for a in schema.arguments
    )
    # Non-ASCII bytes of a string default print as torch prints them, in octal computed on
    # a signed char (`é` prints as `\0)+\/.)`), which no parser reads back.
    non_ascii = any(
        isinstance(a.default_value, str) and not a.default_value.isascii() for a in schema.arguments
    )
    if "$" not in printed and "[]()" not in printed and not mistyped and not non_ascii:
        assert str(parse_schema(printed)) == printed


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_arbitrary_text_raises_only_parse_errors(text):
    try:
        parse_schema(text)
    except (RuntimeError, ValueError, IndexError):  # torch's three (see above)
        pass
