"""Tokens and error reports for the schema parser.

Layer `_dispatch`. In: schema text. Out: a stream of `Token`s, and
RuntimeErrors whose message carries the source line with a `~~~ <--- HERE`
caret line, byte for byte as PyTorch prints them; literal values (numbers as
std::stod/stoll read them, string escapes, device strings). Mirrors
torch/csrc/jit/frontend/lexer.h (the subset of TorchScript's lexer that
schemas use: indentation, comments, numbers, strings, keywords),
torch/csrc/jit/frontend/source_range.cpp (`SourceRange::highlight`),
parse_string_literal.h and c10/core/Device.cpp (the string constructor).

The source is handled as its UTF-8 bytes, each held in one `str` character
(latin-1), so that columns count bytes exactly as the C++ lexer does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ember._dispatch.schema import DeviceDefault

# Keyword and operator tokens: text -> kind name (the name PyTorch prints).
_MULTI_CHAR_TOKENS = {
    "def": "def", "<=>": "equivalent", "if": "if", "else": "else", "elif": "elif",
    "while": "while", "return": "return", "is": "is", "is not": "is not", "!=": "ne",
    "==": "eq", "<=": "le", ">=": "ge", "//": "floordiv", "True": "True", "False": "False",
    "None": "None", "and": "and", "or": "or", "not": "not", "<<": "<<", ">>": ">>",
    "+=": "+=", "-=": "-=", "*=": "*=", "/=": "/=", "%=": "%=", "|=": "|=", "&=": "&=",
    "^=": "^=", "<<=": "<<=", ">>=": ">>=", "**=": "**=", "global": "global", "for": "for",
    "in": "in", "not in": "not in", "**": "pow operator", "->": "arrow",
    "# type:": "type comment", "raise": "raise", "assert": "assert", "...": "dots",
    "break": "break", "continue": "continue", "del": "del", "pass": "pass",
    "class": "class", "import": "import", "with": "with", "as": "as",
    "Ellipsis": "Ellipsis", "NoneType": "NoneType",
}  # fmt: skip
_SINGLE_CHAR_TOKENS = "+-*/%@()[]:,={}><.?!&^|~"

# Token kinds used by the parser. Single-character tokens are the character.
EOF, IDENT, NUMBER, STRING = "eof", "ident", "number", "string_literal"
NEWLINE, INDENT, DEDENT = "newline", "indent", "dedent"
ARROW, DOTS, NONE, NONE_TYPE, TRUE, FALSE = "arrow", "dots", "None", "NoneType", "True", "False"
_WHITESPACE, _WHITESPACE_EOF = "whitespace", "whitespace_eof"

_PREFIXES = {text[:i] for text in _MULTI_CHAR_TOKENS for i in range(1, len(text) + 1)}
_PREFIXES.update(_SINGLE_CHAR_TOKENS)
_C_SPACE = " \t\n\v\f\r"
_HEX_FLOAT = re.compile(r"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?")
_DEC_FLOAT = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_CONTEXT_LINES = 3


def _is_alpha(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z")


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def strtod_prefix(text: str, start: int = 0) -> int:
    """Length of the number C's `strtod` reads at `start` (0: none)."""
    match = _HEX_FLOAT.match(text, start) or _DEC_FLOAT.match(text, start)
    return match.end() - start if match else 0


# A schema that PyTorch's parser rejects raises a plain RuntimeError, as torch's does (a
# subclass would show as another type); std::stod / std::stoll failures reach Python as
# ValueError (std::invalid_argument) and IndexError (std::out_of_range).
SchemaError = RuntimeError


@dataclass(frozen=True, slots=True)
class SourceRange:
    source: str  # the whole source, one character per byte
    start: int
    end: int

    def highlight(self) -> str:
        """The source lines around the range with a `~~~ <--- HERE` line."""
        text, start = self.source, self.start
        if self.end - start == len(text):
            return text
        range_end = min(len(text), self.end)
        if start > len(text):
            return ""
        begin_line = text.rfind("\n", 0, start) + 1
        end_line = text.find("\n", range_end)
        end_line = len(text) if end_line < 0 else end_line
        begin_context = begin_line
        newlines = 0
        while begin_context > 0:
            if text[begin_context - 1] == "\n":
                newlines += 1
            if newlines >= _CONTEXT_LINES:
                break
            begin_context -= 1
        end_context = end_line
        newlines = 0
        while end_context < len(text):
            if text[end_context] == "\n":
                newlines += 1
            if newlines >= _CONTEXT_LINES:
                break
            end_context += 1
        out = [text[begin_context:start]]
        line_start = line_end = start
        while line_start < range_end:
            line_end = text.find("\n", line_end)
            line_end = len(text) if line_end < 0 else line_end
            line = text[line_start : line_end + 1]
            out.append(line if line.endswith("\n") else line + "\n")
            row_begin = text.rfind("\n", 0, line_start) + 1
            row_end = line_start
            while row_end < range_end and text[row_end] != "\n":
                row_end += 1
            empty = 0
            for i in range(row_begin, row_end):
                if text[i] == " " or i < start:
                    empty += 1
                else:
                    break
            marked = row_end - row_begin - empty
            if marked > 0:
                more_lines = any(
                    text[i] not in "\n " for i in range(line_end, min(range_end + 1, len(text)))
                )
                tail = "\n" if more_lines and line_end != range_end else " <--- HERE\n"
                out.append(" " * empty + "~" * marked + tail)
            line_end += 1
            line_start = line_end
        if line_end <= len(text):
            ending = text[line_end:end_context]
            out.append(ending)
            if ending and not ending.endswith("\n"):
                out.append("\n")
        return "".join(out)


def to_text(source_bytes: str) -> str:
    """Back from one-character-per-byte to ordinary text."""
    return source_bytes.encode("latin-1").decode("utf-8", errors="replace")


def error_report(message: str, where: SourceRange) -> SchemaError:
    """torch::jit::ErrorReport: newline, message, colon, highlighted source."""
    return SchemaError(to_text(f"\n{message}:\n{where.highlight()}"))


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    range: SourceRange

    @property
    def text(self) -> str:
        return self.range.source[self.range.start : self.range.end]


class Lexer:
    """TorchScript's lexer, as far as schemas reach (see module docstring)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.pos = 0
        self.nesting = 0
        self.queue: list[Token] = []
        first_indent = self._lex_raw(whitespace_token=True)
        self.indent_stack = [first_indent.range.end - first_indent.range.start]
        self._lex()

    # -- the parser's interface ------------------------------------------------
    def cur(self) -> Token:
        return self.queue[0]

    def lookahead(self) -> Token:
        if len(self.queue) < 2:
            self._lex()
        return self.queue[1]

    def next(self) -> Token:
        token = self.queue.pop(0)
        if not self.queue:
            self._lex()
        return token

    def next_if(self, kind: str) -> bool:
        if self.queue[0].kind != kind:
            return False
        self.next()
        return True

    def expect(self, kind: str) -> Token:
        if self.queue[0].kind != kind:
            self.expected(kind, self.queue[0])
        return self.next()

    def expected(self, what: str, token: Token) -> None:
        text = f"expected {what} but found '{token.kind}' here:\n{token.range.highlight()}"
        raise SchemaError(to_text(text))

    # -- tokenizing -----------------------------------------------------------
    def _lex(self) -> None:
        token = self._lex_raw()
        kind = token.kind
        if kind in "([{" and len(kind) == 1:
            self.nesting += 1
        elif kind in ")]}" and len(kind) == 1:
            self.nesting -= 1
        elif kind in (_WHITESPACE, _WHITESPACE_EOF):
            if kind == _WHITESPACE_EOF:
                depth = self.indent_stack[0]
            else:
                depth = token.range.end - token.range.start
            if depth > self.indent_stack[-1]:
                self.indent_stack.append(depth)
                token = Token(INDENT, token.range)
            elif depth == self.indent_stack[-1]:
                token = Token(NEWLINE, token.range)
            else:
                self.queue.append(Token(NEWLINE, token.range))
                while self.indent_stack[-1] != depth:
                    self.indent_stack.pop()
                    self.queue.append(Token(DEDENT, token.range))
                    if not self.indent_stack:
                        message = f"invalid indent level {depth}:\n{token.range.highlight()}"
                        raise SchemaError(to_text(message))
                return
        self.queue.append(token)

    def _lex_raw(self, whitespace_token: bool = False) -> Token:
        kind, start, end = self._match(self.pos, self.nesting > 0, whitespace_token)
        if kind is None:
            # PyTorch names the character where lexing began, before blanks.
            bad = Token(self.source[self.pos], SourceRange(self.source, start, start + 1))
            self.expected("a valid token", bad)
        self.pos = end
        return Token(kind, SourceRange(self.source, start, end))

    def _match(self, pos: int, continuation: bool, whitespace_token: bool):
        text, size = self.source, len(self.source)
        while True:
            start = pos
            while pos < size and text[pos] in _C_SPACE and text[pos] != "\n":
                pos += 1
            if pos < size:
                ch = text[pos]
                if ch == "#" and not text.startswith("# type:", pos):
                    while pos < size and text[pos] != "\n":
                        pos += 1
                    continue
                if ch == "\\" and text.startswith("\\\n", pos) and not whitespace_token:
                    pos += 2
                    whitespace_token = False
                    continue
                if ch == "\n":
                    pos += 1
                    whitespace_token = not continuation
                    continue
            break
        if whitespace_token:
            return (_WHITESPACE_EOF if pos >= size else _WHITESPACE), start, pos
        if pos >= size:
            return EOF, pos, pos
        start = pos
        first = text[pos]
        if not (first in "+-" or _is_alpha(first)):
            length = strtod_prefix(text, pos)
            if length:
                if text.startswith("j", pos + length):
                    length += 1
                return NUMBER, start, start + length
        length = self._string_length(pos)
        if length:
            return STRING, start, start + length
        return self._match_word(start)

    def _string_length(self, start: int) -> int:
        text = self.source
        quote = text[start]
        if quote not in "'\"":
            return 0
        quote_len = 3 if text.startswith(quote * 3, start) else 1
        closing = quote * quote_len
        end = start + quote_len
        while end < len(text) and not text.startswith(closing, end):
            if text[end] == "\n" and quote_len != 3:
                return 0
            if text[end] == "\\":
                end += 1
            end += 1
        return end - start + quote_len if end < len(text) else 0

    def _match_word(self, start: int):
        """Longest identifier or keyword/operator token; a token wins a tie."""
        text = self.source
        kind, end = None, start
        ident = True
        i = start
        while i < len(text):
            ch = text[i]
            ident = ident and (_is_alpha(ch) or ch == "_" or (i > start and _is_digit(ch)))
            prefix = text[start : i + 1]
            in_trie = prefix in _PREFIXES
            if not ident and not in_trie:
                break
            if ident:
                kind, end = IDENT, i + 1
            if in_trie:
                token_kind = _MULTI_CHAR_TOKENS.get(prefix)
                if token_kind is None and len(prefix) == 1 and prefix in _SINGLE_CHAR_TOKENS:
                    token_kind = prefix
                if token_kind is not None:
                    kind, end = token_kind, i + 1
            i += 1
        return kind, start, end


# -- literals: numbers, strings, devices (std::stod/stoll, c10::Device) ----------

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                 "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu",
                 "mtia", "privateuseone")  # fmt: skip
_SIGNED_DIGITS = re.compile(r"[ \t\n\v\f\r]*[+-]?[0-9]+")
_SIGN = re.compile(r"[ \t\n\v\f\r]*[+-]?")
_MIN_NORMAL = 2.2250738585072014e-308


def stod(text: str) -> float:
    """std::stod: the longest number prefix; ValueError/IndexError as torch."""
    sign = _SIGN.match(text)
    start = sign.end()
    length = strtod_prefix(text, start)
    if not length:
        raise ValueError("stod")
    digits = text[start : start + length]
    negative = text[sign.start() : start].strip() == "-"
    if digits[:2].lower() == "0x":
        value = float.fromhex(digits)
        mantissa = re.split("[pP]", digits[2:])[0]
    else:
        value = float(digits)
        mantissa = re.split("[eE]", digits)[0]
    nonzero = any(ch not in "0." for ch in mantissa)
    if value in (float("inf"), float("-inf")) or (nonzero and abs(value) < _MIN_NORMAL):
        raise IndexError("stod")
    return -value if negative else value


def stoll(text: str) -> int:
    match = _SIGNED_DIGITS.match(text)
    if not match:
        raise ValueError("stoll")
    value = int(match.group())
    if not -(2**63) <= value < 2**63:
        raise IndexError("stoll")
    return value


def wrap_int(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def parse_device(text: str) -> DeviceDefault:
    """c10::Device(std::string): `type[:index]`, PyTorch's messages."""
    if not text:
        raise SchemaError("Device string must not be empty")
    match = re.fullmatch(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?", text)
    if match is None:
        raise SchemaError(f"Invalid device string: '{text}'")
    name, index_text = match.groups()
    index = -1
    if index_text is not None:
        if int(index_text) >= 2**31:
            raise SchemaError(
                f"Could not parse device index '{index_text}' in device string '{text}'"
            )
        index = wrap_int(int(index_text), 8)
    if name not in _DEVICE_TYPES:
        raise SchemaError(
            f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
            f"string: {name}"
        )
    return DeviceDefault(name, index)


def parse_string_literal(where: SourceRange, literal: str) -> str:
    """Strip the quotes and decode escapes (parse_string_literal.h)."""
    quote_len = 3 if literal.startswith(literal[0] * 3) else 1
    text = literal[quote_len : len(literal) - quote_len]
    simple = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "v": "\v", "t": "\t"}
    pos = text.find("\\")
    while pos != -1:
        escaped = text[pos + 1]
        value, erase = escaped, 2
        if escaped in "\\'\"\n":
            pass
        elif escaped in simple:
            value = simple[escaped]
        elif escaped == "x":
            raise error_report("unsupported hex specifier", where)
        elif escaped in "uU":
            raise error_report("unsupported unicode specifier", where)
        else:
            octal = text[pos + 1 : pos + 4]
            if pos + 3 >= len(text) or not re.fullmatch("[0-7]{3}", octal) or int(octal, 8) > 255:
                raise error_report(" ill formed octal specifier", where)
            value, erase = chr(int(octal, 8)), 4
        text = text[:pos] + value + text[pos + erase :]
        pos = text.find("\\", pos + 1)
    return text.encode("latin-1").decode("utf-8", errors="surrogateescape")
