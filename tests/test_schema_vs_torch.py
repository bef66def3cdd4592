"""Differential tests: ember's schema parser against torch._C.parse_schema."""

import re

import pytest
from oracle import HAVE_TORCH, TORCH_MISSING, needs_torch, torch

from ember._dispatch.schema import Argument, FunctionSchema
from ember._dispatch.schema_parser import parse_schema

ALIAS_SETS = re.compile(r"\(([a-z0-9*$|]+)(!?)")


def normalise_alias_order(text: str) -> str:
    """`a|b` prints in an unspecified order in PyTorch; compare sorted."""
    return ALIAS_SETS.sub(
        lambda m: "(" + "|".join(sorted(m.group(1).split("|"))) + m.group(2), text
    )


def torch_outcome(text: str):
    try:
        return "ok", torch._C.parse_schema(text)
    except Exception as error:  # noqa: BLE001 - any torch failure is an outcome
        return type(error).__name__, str(error)


def ember_outcome(text: str):
    """("ok", schema), or (the exception's type name, its message), as torch_outcome."""
    try:
        return "ok", parse_schema(text)
    except Exception as error:  # noqa: BLE001 - compared with torch's by type name
        return type(error).__name__, str(error)


def default_as_comparable(value):
    if isinstance(value, torch.device):
        return str(value)
    return value


def argument_differences(mine: Argument, theirs) -> list[str]:
    found = []
    checks = {
        "name": (mine.name, theirs.name),
        "type": (str(mine.type), str(theirs.type)),
        "real_type": (str(mine.real_type), str(theirs.real_type)),
        "has_default_value": (mine.has_default_value(), theirs.has_default_value()),
        "kwarg_only": (mine.kwarg_only, theirs.kwarg_only),
        "is_out": (mine.is_out, theirs.is_out),
        "is_write": (mine.is_write, theirs.is_write),
        "N": (mine.N, theirs.N),
    }
    default_mine = default_as_comparable(mine.default_value)
    default_theirs = default_as_comparable(theirs.default_value)
    if not (default_mine == default_theirs and type(default_mine) is type(default_theirs)):
        if str(default_mine) != str(default_theirs):
            checks["default_value"] = (default_mine, default_theirs)
    their_alias = theirs.alias_info
    if (mine.alias_info is None) != (their_alias is None):
        checks["alias_info"] = (mine.alias_info, their_alias)
    elif their_alias is not None:
        checks["before_set"] = (mine.alias_info.before_set, their_alias.before_set)
        checks["after_set"] = (mine.alias_info.after_set, their_alias.after_set)
        checks["alias.is_write"] = (mine.alias_info.is_write, their_alias.is_write)
    for what, (a, b) in checks.items():
        if a != b:
            found.append(f"{mine.name}.{what}: {a!r} != {b!r}")
    return found


def schema_differences(mine: FunctionSchema, theirs) -> list[str]:
    found = []
    if normalise_alias_order(str(mine)) != normalise_alias_order(str(theirs)):
        found.append(f"str: {mine} != {theirs}")
    for what in ("name", "overload_name", "is_mutable"):
        if getattr(mine, what) != getattr(theirs, what):
            found.append(f"{what}: {getattr(mine, what)!r} != {getattr(theirs, what)!r}")
    for kind in ("arguments", "returns"):
        ours, their = getattr(mine, kind), getattr(theirs, kind)
        if len(ours) != len(their):
            found.append(f"{kind}: {len(ours)} != {len(their)}")
            continue
        for a, b in zip(ours, their):
            found.extend(argument_differences(a, b))
    return found


# Read once, when the module is collected, before any test registers operators in
# torch (an `impl` without a `def` leaves an operator with no schema, and then
# `_jit_get_all_schemas` fails inside torch). Every schema is kept, those naming
# PyTorch's built-in TorchScript classes (`__torch__.torch.classes.*`) included.
_ALL_TORCH_SCHEMAS = [str(s) for s in torch._C._jit_get_all_schemas()] if HAVE_TORCH else []


def all_torch_schemas() -> list[str]:
    if not HAVE_TORCH:
        pytest.skip(TORCH_MISSING)
    return _ALL_TORCH_SCHEMAS


def test_every_torch_schema_round_trips_with_the_same_accessors():
    texts = all_torch_schemas()
    assert len(texts) > 4000
    failures = []
    for text in texts:
        status, theirs = torch_outcome(text)
        if status != "ok":  # a type only a Python package registers (PyObject): torch's error
            if ember_outcome(text) != (status, theirs):
                failures.append(f"{text}: torch {status}: {theirs}; ember {ember_outcome(text)}")
            continue
        try:
            mine = parse_schema(text)
        except RuntimeError as error:
            failures.append(f"{text}: {error}")
            continue
        if normalise_alias_order(str(mine)) != normalise_alias_order(text):
            failures.append(f"{text}: printed {mine}")
            continue
        differences = schema_differences(mine, theirs)
        failures.extend(f"{text}: {d}" for d in differences)
    assert failures == [], "\n".join(failures[:20])


def test_reprinting_is_a_fixed_point():
    for text in all_torch_schemas()[:500]:
        once = str(parse_schema(text))
        assert str(parse_schema(once)) == once


def test_custom_class_types_are_rejected_like_unregistered_ones():
    text = "f(__torch__.torch.classes.nons.Nope x) -> int"
    with pytest.raises(RuntimeError) as error:
        parse_schema(text)
    assert str(error.value) == torch_outcome(text)[1]


VALID_CORPUS = [
    "f(int x) -> int",
    "f(x y) -> int",
    "f(int from) -> int",
    "f.from(int x) -> int",
    "f(t x) -> t",
    "f(int[2] x=[1,1]) -> int",
    "f(int[1] x=1) -> int",
    "f(SymInt[2] x=1) -> int",
    "f(float x=1e-5, float y=0.1, float z=1e20, float w=-0.0, float v=1e15, float u=1e19) -> int",
    "f(float x=0x1p3, float y=.5, float z=5., float w=123456789012.5) -> int",
    "f(float x=3j, complex c=1.5, complex d=-2j, int i=1j) -> int",
    "f(int x=0x10, int y=1.5, int z='a', int w=True, int v=None, int u=float) -> int",
    "f(ScalarType dt=float, ScalarType? l=long, Layout la=strided, MemoryFormat m=contiguous_format, int r=Mean) -> int",
    "f(Device d='cpu', Device e='cuda:1', Device f=\"meta\", Device g='cuda:300', Device? h='cpu') -> int",
    "f(str x='a\\'b', str y=\"a'b\", str z='a\\nb', str w='''abc''', str v='\\101', str u='a\"b') -> int",
    "f(str x='a\\tb\\\\', str y='\\a\\b\\f\\v') -> int",
    "f(Tensor(a!) x, Tensor(a -> *)[] y, Tensor?[] z, Tensor(b|c!)[] w, Tensor(d)? v) -> int",
    "f(Tensor(a)[][] x, Tensor! y, int(a) z, Tensor(a)[](b) w, Tensor(a!)[]? v) -> Tensor!",
    "f(int[1.5] x, int[4294967297] y, int[0] z=[], int[2] w=[1]) -> int",
    "f(bool[2] x=True, float[2] y=1, float[] z=[1, 2.5], complex[] c=[1j, 1.5]) -> int",
    "f(Storage s, Stream t, QScheme q, Generator? g=None, Any? a=None) -> int",
    "f(Dict(str, Tensor) d, (int, str) t, Union(int, str) u, Future(int) f) -> int",
    "f(Union(int, None) x, Await(int) y, RRef(int) z, Tensor?? w) -> int",
    "f(Quantizer x, ConstQuantizerPtr y, DeviceIndex z, Capsule c, AnyClassType a) -> int",
    "f(AnyEnumType e, NoneType n, None m, SymBool b, SymBool[] bl) -> SymBool",
    "f(*, int x) -> int",
    "f(*) -> int",
    "f(int x, *, int y, *, int z) -> int",
    "f(...) -> ...",
    "f(int x, ...) -> (int, ...)",
    "f() -> ()",
    "f() -> (int a, int b)",
    "f() -> (int a)",
    "f() -> ((str, t)[])",
    "f() -> ((int, int)?)",
    "f(int x) -> int[3] y",
    "f(Tensor(a -> b) x, Tensor(*) y, Tensor(a|a) z) -> int",
    "f(int x=1, int[] y, *, int z) -> int",
    "f(bool x=1, Tensor? y=1, int? z=1.5, float? w=1) -> int",
    "f(int x) -> int\n",
    "f(int x) -> int # comment",
    "f(\n int x) -> int",
    "\n\nf(int x) -> int",
    "  f(int x) -> int",
    "f(int x) -> int\n\\\n",
    "f(int x) \\\n-> int",
    "f(int x) -> int\n# c\n",
    "f(int x) -> int\n  ",
    "f(int x) -> (int, \n int)",
    "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "aten::topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    "f(str x='é') -> int",
    "f(Dict(SymInt, t) a, Dict(bool, t) b, Dict(Device, t) c, Dict(Any, t) d) -> int",
    "f(Dict(ScalarType, t) a, Dict(Tensor, t) b, Dict(complex, t) c) -> int",
    "f(int.foo x, a.b.c y, int . b z) -> int",
    "f(ScalarType? out_dtype=bool, ScalarType a=bfloat16, ScalarType b=uint8) -> int",
    "f(ScalarType? a=float8_e4m3fn, ScalarType b=int, ScalarType c=Mean) -> int",
    "f(__torch__.torch.classes.rnn.CellParamsBase a, __torch__.torch.classes.c10d.Work[] b, "
    "__torch__.torch.classes.c10d.ProcessGroup? c=None) -> __torch__.torch.classes.c10d.Work",
    "f(__torch__.torch.classes.quantized.LinearPackedParamsBase[](a!) x) -> Tensor",
]


@pytest.mark.parametrize("text", VALID_CORPUS)
def test_valid_corpus_matches_torch(text):
    status, theirs = torch_outcome(text)
    assert status == "ok", theirs
    mine = parse_schema(text)
    assert schema_differences(mine, theirs) == []


MALFORMED_CORPUS = [
    "aten::f(Tensor x, ) -> Tensor",
    "f(int x",
    "f(",
    "",
    "  ",
    "f",
    "f.g",
    "f(int x)",
    "f(int x) ->",
    "f(float x=inf) -> int",
    "f(float x=-inf) -> int",
    "f(float x=nan) -> int",
    "f.default(int x) -> int",
    "f.__x(int x) -> int",
    "f(int x=1, int z) -> int",
    "f(int x=1, Tensor(a!) z, *, int w) -> (Tensor(a|b) q)",
    "f(Dimname x) -> int",
    "f(int if) -> int",
    "f(int x)\n -> int",
    "  f(int x)\n  -> int",
    "f(int x) -> int g(int y) -> int",
    "f(int x) -> int\ng(int y)->int",
    "f(int x) -> int\n\tg",
    " f(int x) -> int\n g",
    "f(int x) -> int\n  \n x",
    "a\n b\n  c\n d",
    "f(int x) -> int\n\n\n\n\n\nz",
    "f(int x\n\n\n\n\n,,) -> int",
    "f(int x\n\n\n\n\n)) -> int\n\n\n\n\n\n\nyy",
    "f(int x) -> (int\n\n\n\n\n\n\n,,\n\n\n\n\n)",
    "f(float x=1e) -> int",
    "f(int x=[1,2]) -> int",
    "f(Scalar x=[1]) -> int",
    "f(Device x='foo') -> int",
    "f(Device x='cuda:x') -> int",
    "f(Device x=None) -> int",
    "f(Device x=cpu) -> int",
    "f(Device x='CPU') -> int",
    "f(Device x='cuda:01') -> int",
    "f(Device x='cuda:-1') -> int",
    "f(Device x='cuda:99999999999999') -> int",
    "f(Device x='') -> int",
    "f(Device x='cpu:') -> int",
    "f(Device x=':0') -> int",
    "f(str x='a\\x41') -> int",
    "f(str x='\\u0041') -> int",
    "f(str x='\\q') -> int",
    "f(str x='\\0') -> int",
    "f(Tensor?(a!) x) -> int",
    "f(int[] x=1) -> int",
    "f(int[] x=abc) -> int",
    "f(int[][] x=[[1]]) -> int",
    "f(str[] x=['a']) -> int",
    "f(int?[] x=[1]) -> int",
    "f(int[]? x=[1]) -> int",
    "f(int[2] x=None) -> int",
    "f(float[] x=[True]) -> int",
    "f(int[] x=[1.5]) -> int",
    "f(bool[] x=[1]) -> int",
    "f(int[] x=['a']) -> int",
    "f(Tensor x=1) -> int",
    "f(Any x=1) -> int",
    "f(t x=1) -> int",
    "f(int x=-True) -> int",
    "f(int x) -> int$",
    "f(int x`) -> int",
    "f(int x=1) -> int # type: int",
    "aten::f:g(int x)->int",
    "a::b::c(int x) -> int",
    "f(..., int x) -> int",
    "f(int x=1, ...) -> int",
    "f() -> (..., int)",
    "f(int x) -> int y=1",
    "f(Tensor(a|*|b) x) -> int",
    "f(Tensor(*|a) x) -> int",
    "f(Tensor(a -> *|b) x) -> int",
    "f(Tensor() x) -> int",
    "f(Tensor(a! -> b!) x) -> int",
    "f(Union(int) x) -> int",
    "f(Union(int, int) x) -> int",
    "f(_foo x) -> int",
    "f(Foo x) -> int",
    "f(__torch__.torch.classes.foo.Bar x) -> int",
    "f(__torch__.nottorch.classes.foo.Bar x) -> int",
    "f(__torch__.torch.classes.rnn.CellParamsBase(a) x) -> int",
    "f(__torch__.torch.classes.rnn.CellParamsBase x=None) -> int",
    "f(__torch__.torch.classes.rnn.CellParamsBase.X x) -> int",
    "f(__torch__.torch.classes.rnn x) -> int",
    "f(Dict(t, int) x) -> int",
    "f(Dict(Scalar, int) x) -> int",
    "f(Dict(int[], int) x) -> int",
    "f(Dict(Tensor?, int) x) -> int",
    "f(Dict(None, int) x) -> int",
    "f(Dict(fl1oat, t)(a!) l, float(b ->0x1pidx) -> ()",
    "f(bool a=False, Tensor(a!) out) -> Tensor!)",
    "f(int? x=bool) -> int",
    "f(ScalarType? x=xyz) -> int",
    "f(Scalar.Type x) -> int",
    "f(a.None x) -> int",
    "f(None.a x) -> int",
    "f(None? x) -> int",
    "f(Union(int, int, int) x) -> int",
]


@pytest.mark.parametrize("text", MALFORMED_CORPUS)
def test_malformed_corpus_messages_equal_torchs(text):
    status, theirs = torch_outcome(text)
    assert status == "RuntimeError", (status, theirs)
    error, mine = ember_outcome(text)
    assert error == status
    assert normalise_alias_order(mine) == normalise_alias_order(theirs)


@pytest.mark.parametrize(
    "text, torch_type",
    [
        ("f(float x=1e400) -> int", IndexError),
        ("f(float x=1e-400) -> int", IndexError),
        ("f(float x=1e-310) -> int", IndexError),
        ("f(int x=99999999999999999999) -> int", IndexError),
        ("f(complex x=1) -> int", ValueError),
    ],
)
def test_number_conversion_failures_are_torchs_type(text, torch_type):
    status, theirs = torch_outcome(text)
    assert status == torch_type.__name__
    assert ember_outcome(text) == (status, theirs)


_DTYPE_NAMES = (
    [name for name in dir(torch) if isinstance(getattr(torch, name), torch.dtype)]
    if HAVE_TORCH
    else [pytest.param("float32", marks=needs_torch)]
)


@pytest.mark.parametrize("name", _DTYPE_NAMES)
def test_every_dtype_name_is_a_scalar_type_default(name):
    text = f"f(ScalarType? x={name}, ScalarType y={name}) -> int"
    status, theirs = torch_outcome(text)
    assert status == "ok"
    assert schema_differences(parse_schema(text), theirs) == []
