"""Run one corpus case under a library and compare two outcomes (the agreement harness).

A case is a small program text, run with ``torch`` (and ``F`` for
``torch.nn.functional``) bound to the library under test: real PyTorch once,
ember once. Its last statement, when an expression, is the case's value. The
outcome is either that value summarised (`summarise`: tensors by dtype, shape,
strides, offset, device, requires_grad, grad_fn name and values) or the
exception raised (type name, message). Messages are normalised as a
side-by-side diff of both libraries' output would read them: the word
``ember`` reads as ``torch``; addresses and ``registered at FILE:LINE`` are
blanked.
"""

from __future__ import annotations

import ast
import math
import opcode
import os
import re
import signal
import warnings
from dataclasses import dataclass, field

CASE_TIMEOUT_S = 10

_RAISE_OPS = {opcode.opmap["RAISE_VARARGS"], opcode.opmap["RERAISE"]}
_NUMERIC_LIBS = ("numpy", "ml_dtypes", "scipy")
# Built-in kinds that PyTorch's bindings never raise on purpose for bad input; IndexError,
# ValueError, TypeError, OverflowError and the like are raised on purpose by both libraries.
_NEVER_ON_PURPOSE = (
    AssertionError,
    AttributeError,
    KeyError,
    NameError,
    RecursionError,
    StopIteration,
    SystemError,
)
_UNCOMPARABLE = ("empty", "resize_", "rand", "dropout")
_MISSING_API = re.compile(
    r"^(module '[\w.]+'|'\w+' object|type object '\w+') has no attribute '\w+'$"
)


@dataclass(frozen=True)
class Case:
    """One corpus entry: a category (for grouping), a label and the program text."""

    category: str
    source: str
    name: str = ""

    @property
    def label(self) -> str:
        return self.name or self.source.replace("\n", "; ")

    @property
    def compares_values(self) -> bool:
        """False where values are garbage or random: uninitialised memory (empty, a growing
        resize_) and random draws (ember's generator is not PyTorch's Philox/MT stream)."""
        return not any(word in self.source for word in _UNCOMPARABLE)


@dataclass
class Outcome:
    """What a case did under one library."""

    raised: bool
    type_name: str = ""
    message: str = ""
    summary: object = None
    internal: bool = False  # see is_internal_error
    missing_api: bool = False
    origin: str = ""  # innermost raising frame, file:line (ember only)
    extra: dict = field(default_factory=dict)

    def short(self) -> str:
        if self.raised:
            return f"{self.type_name}: {self.message}"
        text = describe(self.summary)
        return text if len(text) <= 400 else text[:397] + "..."


def describe(summary) -> str:
    """A summary as a reader wants it: tensors with the fields that are not the default."""
    if isinstance(summary, tuple) and len(summary) == 2 and summary[0] == "Tensor":
        fields = dict(summary[1])
        parts = [repr(fields.get("values", "<no values>"))]
        parts += [f"dtype={fields['dtype']}", f"shape={list(fields['shape'])}"]
        if "stride" in fields:
            parts.append(f"stride={fields['stride']}")
        if fields.get("offset"):
            parts.append(f"offset={fields['offset']}")
        if fields["device"] != "cpu":
            parts.append(f"device={fields['device']}")
        if fields["requires_grad"]:
            parts.append("requires_grad=True")
        if fields["grad_fn"] is not None:
            parts.append(f"grad_fn={fields['grad_fn']}")
        if fields["type"] != "Tensor":
            parts.append(f"type={fields['type']}")
        return "tensor(" + ", ".join(parts) + ")"
    if isinstance(summary, tuple) and len(summary) == 2 and isinstance(summary[1], tuple):
        kind, items = summary
        if kind in ("tuple", "list", "Size") or all(isinstance(i, tuple) for i in items):
            inner = ", ".join(describe(item) for item in items)
            return f"{kind}({inner})"
    if isinstance(summary, tuple) and len(summary) == 2 and isinstance(summary[0], str):
        return f"{summary[0]}<{summary[1]}>"
    return repr(summary)


# -- running ------------------------------------------------------------------


class _CaseTimeout(BaseException):
    """Raised by the alarm when a case runs past CASE_TIMEOUT_S (never caught by a case)."""


def _on_alarm(signum, frame):
    raise _CaseTimeout()


def compile_case(case: Case, index: int):
    """The case's statements and its final expression, compiled once for both libraries."""
    filename = f"<case {index}>"
    tree = ast.parse(case.source, filename=filename, mode="exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, filename, "exec")
    tail = compile(last, filename, "eval") if last is not None else None
    return body, tail


def run_case(compiled, library, functional, package_dir: str) -> Outcome:
    """Run a compiled case with ``torch`` bound to ``library``; summarise what happened."""
    body, tail = compiled
    namespace = {"torch": library, "F": functional}
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(CASE_TIMEOUT_S)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(body, namespace)
            value = eval(tail, namespace) if tail is not None else None
            summary = summarise(value, library)
    except _CaseTimeout:
        return Outcome(True, "Timeout", f"ran past {CASE_TIMEOUT_S} s")
    except Exception as error:  # the outcome under test
        return describe_error(error, package_dir)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        _release_libraries(namespace, library)
        _reset_state(library)
    return Outcome(False, summary=summary)


def _release_libraries(namespace: dict, library) -> None:
    """Deregister what the case's Library objects registered (a traceback may keep them alive)."""
    for value in list(namespace.values()):
        if isinstance(value, library.library.Library):
            try:
                value._destroy()
            except Exception:  # noqa: S110 (already destroyed, or never finished constructing)
                pass
    namespace.clear()


def _reset_state(library) -> None:
    """Undo what a case may have left switched on, so that cases stay independent."""
    library.set_grad_enabled(True)
    if library.get_default_dtype() != library.float32:
        library.set_default_dtype(library.float32)


def describe_error(error: BaseException, package_dir: str, user_code=("<case",)) -> Outcome:
    """The outcome of a raised error; ``user_code``: filename prefixes of the caller's own code."""
    message = normalise_message(str(error) if not isinstance(error, KeyError) else repr(error))
    outcome = Outcome(True, type(error).__name__, message)
    outcome.missing_api = isinstance(error, AttributeError) and bool(_MISSING_API.match(message))
    frame_file, line, explicit = _innermost(error)
    outcome.origin = f"{os.path.basename(frame_file)}:{line}"
    outcome.extra = {"file": frame_file, "explicit": explicit}
    outcome.internal = _looks_internal(error, frame_file, explicit, package_dir, user_code)
    return outcome


def _innermost(error: BaseException) -> tuple[str, int, bool]:
    """File, line and whether the innermost traceback frame raised with a raise statement."""
    tb = error.__traceback__
    if tb is None:
        return "", 0, False
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    explicit = code.co_code[tb.tb_lasti] in _RAISE_OPS
    return code.co_filename, tb.tb_lineno, explicit


def _looks_internal(error, frame_file: str, explicit: bool, package_dir: str, user_code) -> bool:
    """Whether the library raised this by accident rather than on purpose (see the runner).

    Accidental: an exception class of NumPy / ml_dtypes / SciPy; or an exception
    whose innermost frame is outside both the library's package and the case's
    own code (NumPy, the standard library); or one raised inside the package
    implicitly (by the interpreter or a C function, not by a raise statement);
    or one of `_NEVER_ON_PURPOSE` raised anywhere but in the case's own code.
    """
    if type(error).__module__.split(".")[0] in _NUMERIC_LIBS:
        return True
    if frame_file.startswith(tuple(user_code)):
        return False  # the case itself, or a kernel / hook / Function it defined
    if isinstance(error, _NEVER_ON_PURPOSE):
        return True
    if not frame_file.startswith(package_dir):
        return True
    return not explicit


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# c10::Error's what() carries the C++ backtrace when a Python-side ValueError is rethrown
# (e.g. the argument parser's "Overflow when unpacking long long"); the text before it is the message.
_CPP_BACKTRACE = re.compile(
    r"\nException raised from [^\n]*\(most recent call first\):\n(?:(?:frame #|<omitting)[^\n]*\n)*"
)
_LOCATION = re.compile(r"registered at \S+?:\d+")
_EMBER_WORD = re.compile(r"\bember\b")
# A file of the library itself, wherever it is installed (site-packages, a source checkout).
_PACKAGE_PATH = re.compile(r"(?:/[^\s'\"():]*)?/torch/")


def normalise_message(text: str) -> str:
    text = _CPP_BACKTRACE.sub("", text)
    text = _EMBER_WORD.sub("torch", text)
    text = _PACKAGE_PATH.sub("<torch>/", text)
    text = _ADDRESS.sub("0x?", text)
    text = _LOCATION.sub("registered at <loc>", text)
    return text.strip()


# -- summarising values -------------------------------------------------------


def summarise(value, library):
    """A library-independent picture of a value: equal pictures mean equal results."""
    if isinstance(value, library.Tensor):
        return _tensor_summary(value, library)
    if isinstance(value, bool | int | float | complex | str | type(None)):
        return value if not isinstance(value, str) else normalise_message(value)
    if isinstance(value, library.dtype | library.device):
        return (type(value).__name__, normalise_message(str(value)))
    if isinstance(value, library.Size):
        return ("Size", tuple(value))
    if isinstance(value, tuple | list):
        return (type(value).__name__, tuple(summarise(item, library) for item in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, summarise(v, library)) for k, v in value.items()))
    if callable(value) and not isinstance(value, type):
        return ("callable",)  # functions differ by qualname between any two implementations
    text = normalise_message(repr(value))
    if " object at 0x" in text:
        return (type(value).__name__,)  # a default repr: only the type says anything
    return (type(value).__name__, text)


def _tensor_summary(tensor, library):
    fn = tensor.grad_fn
    picture = {
        "type": type(tensor).__name__,
        "dtype": str(tensor.dtype).replace("ember", "torch"),
        "shape": tuple(tensor.shape),
        "device": str(tensor.device),
        "requires_grad": tensor.requires_grad,
        "grad_fn": type(fn).__name__ if fn is not None else None,
    }
    if not getattr(tensor, "is_sparse", False):
        picture["stride"] = tuple(tensor.stride())
        picture["offset"] = tensor.storage_offset()
    if str(tensor.device) != "meta":
        picture["values"] = _plain(tensor.detach().tolist())
    return ("Tensor", tuple(sorted(picture.items())))


def _plain(values):
    if isinstance(values, list):
        return tuple(_plain(v) for v in values)
    return values


# -- comparing ----------------------------------------------------------------

_TOLERANCE = {"torch.float16": 1e-3, "torch.bfloat16": 8e-3, "torch.complex32": 1e-3}


def same_summary(a, b, values: bool = True) -> bool:
    """Equal pictures; tensor values within a few units in the last place of their dtype
    (not compared at all when ``values`` is false)."""
    if isinstance(a, tuple) and a and a[0] == "Tensor" and isinstance(b, tuple) and b[:1] == a[:1]:
        left, right = dict(a[1]), dict(b[1])
        if left.keys() != right.keys():
            return False
        tolerance = _TOLERANCE.get(left["dtype"], 1e-12 if "64" in left["dtype"] else 1e-6)
        for key in left:
            if key == "values":
                if values and not _close(left[key], right[key], tolerance):
                    return False
            elif left[key] != right[key]:
                return False
        return True
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same_summary(x, y, values) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return _close(a, b, 1e-6)
    return type(a) is type(b) and a == b


def _close(a, b, tolerance: float) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        if not (isinstance(a, tuple) and isinstance(b, tuple)) or len(a) != len(b):
            return False
        return all(_close(x, y, tolerance) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, complex):
        return _close(a.real, b.real, tolerance) and _close(a.imag, b.imag, tolerance)
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if a == 0.0 and b == 0.0:
            return math.copysign(1.0, a) == math.copysign(1.0, b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-30) or abs(a - b) <= tolerance
    return a == b
