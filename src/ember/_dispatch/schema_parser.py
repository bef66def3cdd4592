"""The schema grammar: text -> FunctionSchema.

Layer `_dispatch`. In: `[ns::]name[.overload](args) -> returns`. Out: a
`FunctionSchema` (schema.py), or a RuntimeError with PyTorch's message and
caret line. Mirrors torch/csrc/jit/frontend/function_schema_parser.cpp,
schema_type_parser.cpp and FunctionSchema::checkSchema; tokens and literals
live in schema_lexer.py.
"""

from __future__ import annotations

from ember._dispatch import custom_classes
from ember._dispatch.schema import (
    NO_DEFAULT,
    AliasInfo,
    Argument,
    FunctionSchema,
    SchemaType,
)
from ember._dispatch.schema_lexer import (
    ARROW,
    DOTS,
    EOF,
    FALSE,
    IDENT,
    NEWLINE,
    NONE,
    NONE_TYPE,
    NUMBER,
    STRING,
    TRUE,
    Lexer,
    SchemaError,
    SourceRange,
    error_report,
    parse_device,
    parse_string_literal,
    stod,
    stoll,
    wrap_int,
)

__all__ = ["parse_schema", "parse_unnamed_schema"]

_BASE_TYPES = {
    "Generator": "Generator", "ScalarType": "ScalarType", "Layout": "Layout",
    "MemoryFormat": "MemoryFormat", "Storage": "Storage", "QScheme": "QScheme",
    "Quantizer": "Quantizer", "ConstQuantizerPtr": "int", "Device": "Device",
    "DeviceIndex": "int", "Stream": "Stream", "Scalar": "Scalar", "str": "str",
    "float": "float", "complex": "complex", "int": "int", "SymInt": "SymInt",
    "bool": "bool", "SymBool": "SymBool", "None": "None", "NoneType": "None", "Capsule": "Capsule",
    "Any": "Any", "AnyClassType": "AnyClassType", "AnyEnumType": "AnyEnumType",
}  # fmt: skip
# Enum names accepted as defaults, as their integer values.
_ENUM_DEFAULTS = {"float": 6, "complex": 9, "long": 4, "strided": 0, "Mean": 1,
                  "contiguous_format": 0}  # fmt: skip
# A ScalarType default may also name any torch dtype (`torch.<name>`).
_DTYPE_DEFAULTS = {
    "uint8": 0, "int8": 1, "int16": 2, "short": 2, "int32": 3, "int": 3, "int64": 4,
    "long": 4, "float16": 5, "half": 5, "float32": 6, "float": 6, "float64": 7, "double": 7,
    "complex32": 8, "chalf": 8, "complex64": 9, "cfloat": 9, "complex": 9, "complex128": 10,
    "cdouble": 10, "bool": 11, "qint8": 12, "quint8": 13, "qint32": 14, "bfloat16": 15,
    "quint4x2": 16, "quint2x4": 17, "bits1x8": 18, "bits2x4": 19, "bits4x2": 20, "bits8": 21,
    "bits16": 22, "float8_e5m2": 23, "float8_e4m3fn": 24, "float8_e5m2fnuz": 25,
    "float8_e4m3fnuz": 26, "uint16": 27, "uint32": 28, "uint64": 29, "uint1": 30, "bit": 30,
    "uint2": 31, "uint3": 32, "uint4": 33, "uint5": 34, "uint6": 35, "uint7": 36, "int1": 37,
    "int2": 38, "int3": 39, "int4": 40, "int5": 41, "int6": 42, "int7": 43,
    "float8_e8m0fnu": 44, "float4_e2m1fn_x2": 45,
}  # fmt: skip
_DICT_KEYS = frozenset({"int", "float", "complex", "Tensor", "Device", "str", "bool", "Any"})
_UNKNOWN_TYPE = (
    "unknown type specifier. Common valid schema types include Tensor, SymInt, int, "
    "float, bool, Scalar; for a full list, please see "
    "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/README.md#func "
)
_IVALUE_ASSERT = (
    '0 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/core/ivalue.h":{}, '
    "please report a bug to PyTorch. expected {}"
)
_SCHEMA_ASSERT = (
    '!seen_default_arg || arg.kwarg_only() INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/'
    'aten/src/ATen/core/function_schema.h":342, please report a bug to PyTorch. '
    "Non-default positional argument follows default argument. Parameter {} in {}"
)
_UNION_ASSERT = (
    'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/core/union_type.cpp"'
    ":210, please report a bug to PyTorch. After type unification was performed, the Union "
    "with the original types {{{}}} has the single type {}. Use the common supertype instead "
    "of creating a Uniontype"
)
_LIST_KINDS = {"int": int, "float": float, "complex": complex, "bool": bool}
_IVALUE_LINES = {"int": 663, "float": 544, "bool": 710, "complex": 568}


def parse_schema(text: str) -> FunctionSchema:
    """Parse a named schema, as `torch._C.parse_schema` does."""
    return _Parser(text).parse(named=True)


def parse_name(text: str) -> str:
    """The operator name `ns::name[.overload]` as `torch::jit::parseName` reads `text`
    (blanks around it dropped; a malformed name is a parse error)."""
    parser = _Parser(text)
    name, overload = parser._parse_name()
    if parser.L.cur().kind == "(":
        raise SchemaError("Tried to parse an operator name but function schema was given")
    parser.L.next_if(NEWLINE)
    parser.L.expect(EOF)
    return f"{name}.{overload}" if overload else name


def parse_unnamed_schema(text: str) -> FunctionSchema:
    """Parse `(args) -> returns` (an inferred schema); the name is empty."""
    return _Parser(text).parse(named=False)


def _base(name: str) -> SchemaType:
    return SchemaType("base", name)


def _wrap_type(kind: str, element: SchemaType) -> SchemaType:
    if kind == "optional" and element.kind == "optional":
        return element  # `T??` is `T?`
    if kind == "optional" and element == _base("None"):
        raise _union_error([element, element], element)  # Optional is Union(T, None)
    return SchemaType(kind, "", (element,))


def _contain(container: AliasInfo | None, element: AliasInfo | None) -> AliasInfo | None:
    """A list's annotation holds its element's (schema_type_parser.cpp)."""
    if element is None:
        return container
    if container is None:
        container = AliasInfo(is_write=element.is_write)
    return AliasInfo(
        container.before, container.after, container.is_write, container.contained + (element,)
    )


def _union_error(types: list[SchemaType], single: SchemaType) -> SchemaError:
    first, *rest = (str(t) for t in types)
    original = first + " " + "".join(f"{name}, " for name in rest)
    return SchemaError(_UNION_ASSERT.format(original, single))


def _make_union(types: list[SchemaType]) -> SchemaType:
    flat: list[SchemaType] = []
    for member in types:
        for inner in member.elements if member.kind == "union" else (member,):
            if inner not in flat:
                flat.append(inner)
    if len(flat) == 1:
        raise _union_error(types, flat[0])
    none = _base("None")
    if len(flat) == 2 and none in flat:
        return _wrap_type("optional", flat[1 - flat.index(none)])
    return SchemaType("union", "", tuple(flat))


class _Parser:
    def __init__(self, text: str) -> None:
        self.source = text.encode("utf-8", errors="surrogatepass").decode("latin-1")
        self.L = Lexer(self.source)
        self.next_alias_id = 0

    # -- declaration -----------------------------------------------------------
    def parse(self, named: bool) -> FunctionSchema:
        L = self.L
        name, overload = self._parse_name() if named else ("", "")
        schema = None
        if not named or L.cur().kind == "(":
            schema = self._parse_signature(name, overload)
        L.next_if(NEWLINE)
        L.expect(EOF)
        if schema is None:
            raise SchemaError(
                "Tried to parse a function schema but only the operator name was given"
            )
        return schema

    def _parse_name(self) -> tuple[str, str]:
        L = self.L
        name = L.expect(IDENT).text
        if L.next_if(":"):
            L.expect(":")
            name = name + "::" + L.expect(IDENT).text
        overload = ""
        if L.next_if("."):
            overload = L.expect(IDENT).text
        if overload == "default" or overload.startswith("__"):
            raise SchemaError(f"{overload} is not a legal overload name for aten operators")
        return name, overload

    def _parse_signature(self, name: str, overload: str) -> FunctionSchema:
        L = self.L
        arguments: list[Argument] = []
        returns: list[Argument] = []
        state = {"kwarg_only": False, "vararg": False, "varret": False}

        def argument() -> None:
            if state["vararg"]:
                raise error_report(
                    "... must be the last element of the argument list", L.cur().range
                )
            if L.next_if("*"):
                state["kwarg_only"] = True
            elif L.next_if(DOTS):
                state["vararg"] = True
            else:
                arguments.append(self._parse_argument(False, state["kwarg_only"]))

        def return_() -> None:
            if state["varret"]:
                raise error_report("... must be the last element of the return list", L.cur().range)
            if L.next_if(DOTS):
                state["varret"] = True
            else:
                returns.append(self._parse_argument(True, False))

        self._parse_list("(", ",", ")", argument)
        if state["vararg"] and any(arg.has_default_value() for arg in arguments):
            message = "schemas with vararg (...) can't have default value args"
            raise error_report(message, L.cur().range)
        L.expect(ARROW)
        if L.next_if(DOTS):
            state["varret"] = True
        elif L.cur().kind == "(":
            self._parse_list("(", ",", ")", return_)
        else:
            returns.append(self._parse_argument(True, False))
        schema = FunctionSchema(
            name, overload, tuple(arguments), tuple(returns), state["vararg"], state["varret"]
        )
        self._check_defaults(schema)  # in FunctionSchema's constructor, before EOF
        return schema

    def _parse_list(self, begin: str | None, sep: str, end: str | None, callback) -> None:
        L = self.L
        if begin is not None:
            L.expect(begin)
        if L.cur().kind != end:
            callback()
            while L.next_if(sep):
                callback()
        if end is not None:
            L.expect(end)

    @staticmethod
    def _check_defaults(schema: FunctionSchema) -> None:
        """FunctionSchema::checkSchema (lists are exempt, for old schemas)."""
        seen_default = False
        for arg in schema.arguments:
            if arg.has_default_value():
                seen_default = True
            elif arg.type.kind != "list" and seen_default and not arg.kwarg_only:
                raise SchemaError(_SCHEMA_ASSERT.format(arg.name, schema))

    # -- arguments -------------------------------------------------------------
    def _parse_argument(self, is_return: bool, kwarg_only: bool) -> Argument:
        L = self.L
        real, alias = self._parse_type_and_alias()
        size = None
        if L.next_if("["):
            real = _wrap_type("list", real)
            size = wrap_int(stoll(L.expect(NUMBER).text), 32)
            L.expect("]")
            alias = _contain(self._parse_alias_annotation(), alias)
            if L.next_if("?"):
                real = _wrap_type("optional", real)
        fake = real.fake()
        default = NO_DEFAULT
        if is_return:
            name = L.next().text if L.cur().kind == IDENT else ""
        else:
            name = L.expect(IDENT).text
            if L.next_if("="):
                enums = _ENUM_DEFAULTS
                if real.unwrap_optional() == _base("ScalarType"):
                    enums = {**_ENUM_DEFAULTS, **_DTYPE_DEFAULTS}
                default = self._parse_default(fake, size, enums)
        kwarg_only = not is_return and kwarg_only
        return Argument(name, fake, real, size, default, kwarg_only, alias)

    def _parse_type(self) -> SchemaType:
        return self._parse_type_and_alias()[0].fake()

    def _parse_type_and_alias(self) -> tuple[SchemaType, AliasInfo | None]:
        L = self.L
        token = L.cur()
        word = token.text if token.kind == IDENT else None
        alias = None
        if token.kind == "(":
            members: list[SchemaType] = []
            self._parse_list("(", ",", ")", lambda: members.append(self._parse_type()))
            result = SchemaType("tuple", "", tuple(members))
        elif word in ("Future", "Await", "RRef"):
            L.next()
            L.expect("(")
            result = _wrap_type(word.lower(), self._parse_type())
            L.expect(")")
        elif word == "Tensor":
            L.next()
            result = _base("Tensor")
            alias = self._parse_alias_annotation()
        elif word == "Dict":
            L.next()
            L.expect("(")
            key = self._parse_type()
            L.expect(",")
            value = self._parse_type()
            L.expect(")")
            alias = self._parse_alias_annotation()
            if key.kind != "base" or key.name not in _DICT_KEYS:
                raise SchemaError(
                    f"Cannot create dict for key type '{key.schema_str()}', only int, float, "
                    "complex, Tensor, device and string keys are supported"
                )
            result = SchemaType("dict", "", (key, value))
        elif word == "Union":
            L.next()
            L.expect("(")
            members = [self._parse_type()]
            while L.cur().kind != ")":
                L.expect(",")
                members.append(self._parse_type())
            L.expect(")")
            alias = self._parse_alias_annotation()
            result = _make_union(members)
        elif word == "__torch__":
            result = self._parse_custom_class()
        else:
            result = self._parse_base_type()
            alias = self._parse_alias_annotation()
        while True:
            if L.cur().kind == "[" and L.lookahead().kind == "]":
                L.next()
                L.next()
                result = _wrap_type("list", result)
                alias = _contain(self._parse_alias_annotation(), alias)
            elif L.next_if("?"):
                result = _wrap_type("optional", result)
            else:
                return result, alias

    def _parse_custom_class(self) -> SchemaType:
        L = self.L
        L.next()
        L.expect(".")
        for expected in ("torch", "classes"):
            token = L.expect(IDENT)
            if token.text != expected:
                message = f"Expected classes namespace but got {token.text}"
                raise error_report(message, token.range)
            L.expect(".")
        namespace = L.expect(IDENT).text
        L.expect(".")
        cls = L.expect(IDENT)
        if custom_classes.is_registered(namespace, cls.text):
            return SchemaType("base", custom_classes.qualified_class_name(namespace, cls.text))
        message = (
            f"Unknown custom class type {namespace}.{cls.text}. Please ensure it is registered."
        )
        raise error_report(message, cls.range)

    def _parse_base_type(self) -> SchemaType:
        L = self.L
        token = L.cur()
        if not L.next_if(NONE) and not L.next_if(NONE_TYPE):
            L.expect(IDENT)
        text = token.text
        while L.cur().kind == "." and L.lookahead().kind == IDENT:  # dotted: `a.b`
            L.next()
            text += "." + L.next().text
        if text in _BASE_TYPES:
            return _base(_BASE_TYPES[text])
        if text and "a" <= text[0] <= "z":
            return SchemaType("var", text)
        raise error_report(_UNKNOWN_TYPE, token.range)

    def _parse_alias_annotation(self) -> AliasInfo | None:
        L = self.L
        if L.next_if("("):
            before = self._parse_alias_sets()
            is_write = L.next_if("!")
            after = self._parse_alias_sets() if L.next_if(ARROW) else list(before)
            L.expect(")")
            return AliasInfo(tuple(sorted(set(before))), tuple(sorted(set(after))), is_write)
        if L.next_if("!"):
            name = f"${self.next_alias_id}"
            self.next_alias_id += 1
            return AliasInfo((name,), (), True)
        return None

    def _parse_alias_sets(self) -> list[str]:
        L = self.L
        sets: list[str] = []

        def one_set() -> None:
            if L.next_if("*"):
                sets.append("*")
            elif "*" not in sets:
                sets.append(L.expect(IDENT).text)

        self._parse_list(None, "|", None, one_set)
        return sets

    # -- defaults --------------------------------------------------------------
    def _parse_default(self, fake: SchemaType, size: int | None, enums: dict) -> object:
        L = self.L
        where = L.cur().range
        kind = fake.name if fake.kind == "base" else fake.kind
        if kind in ("Tensor", "Generator", "Quantizer"):
            L.expect(NONE)
            return None
        if kind in ("str", "optional", "Scalar", "int", "bool", "float", "complex"):
            return self._parse_constant(kind, enums)
        if kind == "Device":
            token = L.expect(STRING)
            return parse_device(parse_string_literal(token.range, token.text))
        if kind == "list":
            element = fake.element
            element_kind = element.name if element.kind == "base" else element.kind
            if L.cur().kind == IDENT:
                L.expect(NONE)
            if size is not None and L.cur().kind != "[":
                value = self._parse_constant(element_kind)
                return self._to_list(element_kind, where, [value] * size)
            bracket = L.expect("[")
            values = []
            if L.cur().kind != "]":
                values.append(self._parse_constant(element_kind))
                while L.next_if(","):
                    values.append(self._parse_constant(element_kind))
            L.expect("]")
            return self._to_list(element_kind, bracket.range, values)
        raise error_report("unexpected type, file a bug report", where)

    def _parse_constant(self, kind: str, enums: dict = _ENUM_DEFAULTS) -> object:
        L = self.L
        token = L.cur()
        if token.kind in (TRUE, FALSE, NONE):
            L.next()
            return {TRUE: True, FALSE: False, NONE: None}[token.kind]
        if token.kind == STRING:
            L.next()
            return parse_string_literal(token.range, token.text)
        if token.kind == IDENT:
            L.next()
            if token.text in enums:
                return enums[token.text]
            raise error_report("invalid numeric default value", L.cur().range)
        number = "-" + L.expect(NUMBER).text if L.next_if("-") else L.expect(NUMBER).text
        if kind == "complex" or "j" in number:
            return complex(0.0, stod(number[:-1]))
        if kind == "float" or "." in number or "e" in number:
            return stod(number)
        return stoll(number)

    @staticmethod
    def _to_list(kind: str, where: SourceRange, values: list) -> tuple:
        python_type = _LIST_KINDS.get(kind)
        if python_type is None:
            raise error_report("lists are only supported for float, int and complex types", where)
        for value in values:
            if type(value) is not python_type:
                raise SchemaError(
                    _IVALUE_ASSERT.format(_IVALUE_LINES[kind], kind.replace("float", "double"))
                )
        return tuple(values)
