"""A sweep of ember's public API with malformed arguments, compared with PyTorch 2.13.

Every public function, Tensor method, ``torch._C._nn`` function, ``torch.nn.functional``
function and hand-written constructor ember has is called with malformed arguments
built from its Python signatures (the same signature strings the argument parser
binds with): each parameter in turn given values of the wrong type, ints outside
int64, bad dtype / device / memory-format values; keywords that do not exist;
a parameter given twice; too many positional arguments; a missing one. Each call
runs under ember and under torch, and the outcomes are compared:

* both raised: the same exception type and the same message, once ``ember`` is read
  as ``torch``, C++ back-traces are cut and addresses masked (``normalise``);
* ember never raises an exception class torch does not (an AttributeError or a
  NumPy error from inside ember is an *internal* error);
* ember never accepts what torch refuses;
* after a call ember refused, nothing changed that torch leaves unchanged: the
  argument tensors' values, sizes, version counters and requires_grad, grad mode,
  inference mode, default dtype.

Run as a script for the figures (``python tests/bad_args_sweep.py [-v] [NAME...]``);
tests/test_bad_args_sweep.py samples the cases with hypothesis.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import signal
import sys
import warnings
from collections import Counter

import numpy as np

import ember
from ember._tensor_ctors import install as _install_conversions
from ember.aten._generated import python_functions, python_nn_functions, tensor_methods
from ember.aten.python_arg_convert import (
    BOOL,
    BOOL_LIST,
    DEVICE,
    DOUBLE,
    FLOAT_LIST,
    GENERATOR,
    INT64,
    INT_LIST,
    LAYOUT,
    MEMORY_FORMAT,
    SCALAR,
    SCALARTYPE,
    STRING,
    SYM_INT,
    SYM_INT_LIST,
    TENSOR,
    TENSOR_LIST,
)

_install_conversions(ember.Tensor)

# ---------------------------------------------------------------------------
# Argument recipes: one description, built in either library.


@dataclasses.dataclass(frozen=True)
class T:
    """A tensor recipe: values 0, 1, 2... of ``dtype``, reshaped to ``shape``."""

    shape: tuple = (2, 3)
    dtype: str = "float32"
    device: str = "cpu"
    requires_grad: bool = False

    def build(self, lib):
        if self.device == "meta":
            return lib.empty(self.shape, dtype=getattr(lib, self.dtype), device="meta")
        array = np.arange(int(np.prod(self.shape, dtype=np.int64))).reshape(self.shape)
        result = lib.tensor(array.astype(self.dtype).tolist(), dtype=getattr(lib, self.dtype))
        if self.requires_grad:
            result.requires_grad_(True)
        return result

    def __repr__(self) -> str:
        extra = "" if self.dtype == "float32" else f", {self.dtype}"
        extra += "" if self.device == "cpu" else f", {self.device}"
        extra += ", requires_grad" if self.requires_grad else ""
        return f"T({self.shape}{extra})"


@dataclasses.dataclass(frozen=True)
class Attr:
    """``lib.<name>``: a dtype, a layout, a memory format."""

    name: str

    def build(self, lib):
        found = getattr(lib, self.name, None)
        if found is None:
            raise Unbuildable(f"{lib.__name__} has no {self.name}")
        return found

    def __repr__(self) -> str:
        return f"torch.{self.name}"


@dataclasses.dataclass(frozen=True)
class Dev:
    """``lib.device(spec)``."""

    spec: str

    def build(self, lib):
        return lib.device(self.spec)

    def __repr__(self) -> str:
        return f"torch.device({self.spec!r})"


@dataclasses.dataclass(frozen=True)
class NP:
    """A NumPy array (the same object is handed to both libraries, copied)."""

    values: tuple
    dtype: str = "float32"

    def build(self, lib):
        return np.array(self.values, dtype=self.dtype)

    def __repr__(self) -> str:
        return f"np.array({list(self.values)}, {self.dtype})"


class Unbuildable(Exception):
    """A recipe names something one library lacks: the case is left out."""


class _Object:
    """An object of a type neither library knows."""

    def __repr__(self) -> str:
        return "<object>"


OBJECT = _Object()


def build(recipe, lib):
    if isinstance(recipe, (T, Attr, Dev, NP)):
        return recipe.build(lib)
    if isinstance(recipe, list):
        return [build(item, lib) for item in recipe]
    if isinstance(recipe, tuple):
        return tuple(build(item, lib) for item in recipe)
    if isinstance(recipe, dict):
        return {key: build(value, lib) for key, value in recipe.items()}
    return recipe


# ---------------------------------------------------------------------------
# Entry points: how to reach a name in a library, and the signatures to malform.


@dataclasses.dataclass(frozen=True)
class Param:
    name: str
    kind: int
    optional: bool = False
    keyword_only: bool = False
    size: int = 0


@dataclasses.dataclass(frozen=True)
class Entry:
    """A public callable: ``space`` is fn (``lib.X``), method (``Tensor.X``), nn
    (``lib._C._nn.X``) or F (``lib.nn.functional.X``)."""

    space: str
    name: str
    signatures: tuple  # of tuples of Param
    base: tuple = ()  # hand-written entries: the valid positional arguments
    self_recipe: T = T()

    def target(self, lib, self_value=None):
        if self.space == "fn":
            return getattr(lib, self.name)
        if self.space == "nn":
            return getattr(lib._C._nn, self.name)
        if self.space == "F":
            return getattr(lib.nn.functional, self.name)
        # through the class, as `t.abs(1)` calls it (a bound method would print its
        # name in CPython's refusals as `Tensor.abs`, the call `t.abs(1)` as `TensorBase.abs`)
        method = getattr(type(self_value), self.name)
        return lambda *args, **kwargs: method(self_value, *args, **kwargs)

    def label(self) -> str:
        prefix = {"fn": "torch.", "nn": "torch._C._nn.", "F": "F.", "method": "Tensor."}
        return prefix[self.space] + self.name


def _params(signature) -> tuple:
    return tuple(
        Param(p.name, p.kind, p.optional, p.keyword_only, p.size) for p in signature.params
    )


def _parser_entries(module, space: str, prefix: str) -> list[Entry]:
    entries = []
    for name in module.__all__:
        parser = getattr(module, f"{prefix}{name}", None)
        if parser is None:
            continue
        signatures = tuple(_params(s) for s in parser.signatures if not s.hidden)
        entries.append(Entry(space, name, signatures))
    return entries


def _hand_written() -> list[Entry]:
    """The entries written by hand in ember (and in torch's Python layer or C++ by hand)."""
    P = Param  # noqa: N806
    data = P("data", -1)
    dtype, device = P("dtype", SCALARTYPE, True, True), P("device", DEVICE, True, True)
    requires_grad = P("requires_grad", BOOL, True, True)
    tensor_sig = (data, dtype, device, requires_grad, P("pin_memory", BOOL, True, True))
    memory_format = P("memory_format", MEMORY_FORMAT, True, True)
    entries = [
        Entry("fn", "tensor", (tensor_sig,), base=([1.0, 2.0],)),
        Entry(
            "fn",
            "as_tensor",
            ((data, P("dtype", SCALARTYPE, True), P("device", DEVICE, True)),),
            base=([1.0, 2.0],),
        ),  # fmt: skip
        Entry("fn", "from_numpy", ((P("ndarray", -1),),), base=(NP((1.0, 2.0)),)),
        Entry("method", "new_tensor", ((data, dtype, device, requires_grad),), base=([1.0],)),
        Entry(
            "method",
            "to",
            (
                (
                    P("dtype", SCALARTYPE),
                    P("non_blocking", BOOL, True),
                    P("copy", BOOL, True),
                    memory_format,
                ),
            ),
            base=(Attr("float64"),),
        ),  # fmt: skip
        Entry("method", "type", ((P("dtype", SCALARTYPE, True), P("non_blocking", BOOL, True)),)),
        Entry("method", "cpu", ((memory_format,),)),
        Entry("method", "contiguous", ((memory_format,),)),
        Entry("method", "copy_", ((P("other", TENSOR), P("non_blocking", BOOL, True)),)),
        Entry("method", "item", ((),)),
        Entry("method", "tolist", ((),)),
        Entry("method", "numpy", ((P("force", BOOL, True, True),),)),
        Entry("method", "size", ((P("dim", INT64, True),),)),
        Entry("method", "stride", ((P("dim", INT64, True),),)),
        Entry("method", "dim", ((),)),
        Entry("method", "numel", ((),)),
        Entry("method", "requires_grad_", ((P("requires_grad", BOOL, True),),)),
        Entry(
            "method",
            "backward",
            (
                (
                    P("gradient", TENSOR, True),
                    P("retain_graph", BOOL, True),
                    P("create_graph", BOOL, True),
                ),
            ),
            self_recipe=T((2, 3), requires_grad=True),
        ),  # fmt: skip
    ]
    entries += [
        Entry("method", name, ((memory_format,),))
        for name in ("float", "double", "half", "long", "int", "short", "char", "byte", "bool")
    ]
    F = "F"  # noqa: N806
    t, long3 = P("input", TENSOR), T((3,), "int64")
    entries += [
        Entry(
            F,
            "linear",
            ((t, P("weight", TENSOR), P("bias", TENSOR, True)),),
            base=(T((2, 3)), T((4, 3))),
        ),  # fmt: skip
        Entry(F, "relu", ((t, P("inplace", BOOL, True)),), base=(T(),)),
        Entry(F, "gelu", ((t, P("approximate", STRING, True, True)),), base=(T(),)),
        Entry(
            F,
            "softmax",
            (
                (
                    t,
                    P("dim", INT64, True),
                    P("_stacklevel", INT64, True),
                    P("dtype", SCALARTYPE, True),
                ),
            ),
            base=(T(), 0),
        ),  # fmt: skip
        Entry(
            F,
            "log_softmax",
            (
                (
                    t,
                    P("dim", INT64, True),
                    P("_stacklevel", INT64, True),
                    P("dtype", SCALARTYPE, True),
                ),
            ),
            base=(T(), 0),
        ),  # fmt: skip
        Entry(
            F,
            "nll_loss",
            (
                (
                    t,
                    P("target", TENSOR),
                    P("weight", TENSOR, True),
                    P("size_average", BOOL, True),
                    P("ignore_index", INT64, True),
                    P("reduce", BOOL, True),
                    P("reduction", STRING, True),
                ),
            ),
            base=(T((3, 4)), long3),
        ),  # fmt: skip
        Entry(
            F,
            "cross_entropy",
            (
                (
                    t,
                    P("target", TENSOR),
                    P("weight", TENSOR, True),
                    P("size_average", BOOL, True),
                    P("ignore_index", INT64, True),
                    P("reduce", BOOL, True),
                    P("reduction", STRING, True),
                    P("label_smoothing", DOUBLE, True),
                ),
            ),
            base=(T((3, 4)), long3),
        ),  # fmt: skip
        Entry(
            F, "one_hot", ((P("tensor", TENSOR), P("num_classes", INT64, True)),), base=(long3,)
        ),  # fmt: skip
        Entry(
            F,
            "mse_loss",
            (
                (
                    t,
                    P("target", TENSOR),
                    P("size_average", BOOL, True),
                    P("reduce", BOOL, True),
                    P("reduction", STRING, True),
                    P("weight", TENSOR, True),
                ),
            ),
            base=(T(), T()),
        ),  # fmt: skip
        Entry(
            F,
            "dropout",
            ((t, P("p", DOUBLE, True), P("training", BOOL, True), P("inplace", BOOL, True)),),
            base=(T(),),
        ),  # fmt: skip
    ]
    return entries


_NOT_PUBLIC = {"numpy_T", "mT"}  # properties in torch (T / mT), not methods


def entries() -> list[Entry]:
    """Every entry point, generated and hand-written, that torch also has."""
    import torch

    found = _parser_entries(python_functions, "fn", "_parser_f_")
    found += _parser_entries(tensor_methods, "method", "_parser_m_")
    found += _parser_entries(python_nn_functions, "nn", "_parser_f_")
    found += _hand_written()
    result = []
    for entry in found:
        if entry.name in _NOT_PUBLIC:
            continue
        probe = {"fn": torch, "nn": torch._C._nn, "F": torch.nn.functional}.get(entry.space)
        if probe is None:
            probe = torch.Tensor
        if hasattr(probe, entry.name):
            result.append(entry)
    return result


# ---------------------------------------------------------------------------
# Valid values per parameter kind, and the malformed ones.

_GOOD_INT_LISTS = {"size": [2, 3], "shape": [2, 3], "stride": [3, 1], "dims": [0], "dim": [0]}


def good_value(param: Param):
    kind, name = param.kind, param.name
    if kind == TENSOR:
        return T((2, 3), "int64") if name in ("index", "target", "indices") else T()
    if kind == SCALAR:
        return 2
    if kind in (INT64, SYM_INT):
        return 0 if "dim" in name else 1
    if kind == DOUBLE:
        return 0.5
    if kind == BOOL:
        return False
    if kind == STRING:
        return "none"
    if kind == SCALARTYPE:
        return Attr("float64")
    if kind == LAYOUT:
        return Attr("strided")
    if kind == DEVICE:
        return "cpu"
    if kind == MEMORY_FORMAT:
        return Attr("contiguous_format")
    if kind == GENERATOR:
        return None
    if kind == TENSOR_LIST:
        return [T(), T()]
    if kind in (INT_LIST, SYM_INT_LIST):
        return list(_GOOD_INT_LISTS.get(name, [1] * max(param.size, 1)))
    if kind == FLOAT_LIST:
        return [0.5]
    if kind == BOOL_LIST:
        return [False] * max(param.size, 1)
    return [1.0, 2.0]


INT64_OUT = [2**63, -(2**63) - 1, 2**64]
COMMON_BAD = [None, "a", 2.5, [1, "a"], {"a": 1}, OBJECT, 2**63]
_BAD_BY_KIND = {
    TENSOR: [1, [T()], T(device="meta"), T((2, 3), "int64"), T((), "float32"), T((0,)),
             T((2, 3), requires_grad=True), T((3, 2))],
    SCALAR: [*INT64_OUT, 10**100, float("nan"), 1j, T((2,)), T(())],
    INT64: [*INT64_OUT, 2**62, -1, True, 1.0, "1", T((), "int64"), T((), "float32"), [1]],
    DOUBLE: [10**400, True, "0.5", 1j, T(())],
    BOOL: [1, 0, "True", T((), "bool")],
    STRING: [1, b"mean", "not-a-mode"],
    SCALARTYPE: ["float32", 5, float, Dev("cpu"), Attr("strided")],
    LAYOUT: ["strided", 1, Attr("float32")],
    DEVICE: ["cpx", "cuda:x", 1.5, -1, "meta", Attr("float32"), "cpu:1"],
    MEMORY_FORMAT: ["x", 1, Attr("channels_last"), Attr("float32")],
    GENERATOR: [1, "a"],
    TENSOR_LIST: [T(), [T(), 1], [T(), None], [], (T(), T(device="meta")), [T(), T((3,))]],
    INT_LIST: [[2**63], [1, 2**63], [2.5], (1, "a"), [-1], [2**62, 4], -2, 1.5, [T((), "int64")],
               [T((), "float32")]],
    FLOAT_LIST: [[1, "a"], 1, ["a"]],
    BOOL_LIST: [[1], 1, [True, 1]],
    -1: [[1, "a"], [[1], [2, 3]], [[1], 2], [2**63], [2**64], [1, None], "abc", OBJECT, None,
         {"a": 1}, [1, [2]], [True, "a"], NP(("a", "b"), "U1"), NP((1, 2), "uint16")],
}  # fmt: skip
_BAD_BY_KIND[SYM_INT] = _BAD_BY_KIND[INT64]
_BAD_BY_KIND[SYM_INT_LIST] = _BAD_BY_KIND[INT_LIST]


def bad_values(param: Param) -> list:
    values = list(_BAD_BY_KIND.get(param.kind, [])) + COMMON_BAD
    unique = []
    for value in values:
        if not any(_same_recipe(value, seen) for seen in unique):
            unique.append(value)
    return unique


def _same_recipe(a, b) -> bool:
    return type(a) is type(b) and repr(a) == repr(b)


# ---------------------------------------------------------------------------
# Cases


@dataclasses.dataclass(frozen=True)
class Case:
    entry: Entry
    args: tuple
    kwargs: tuple  # of (name, recipe) pairs
    what: str  # which malformation

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        head = f"{self.entry.self_recipe!r}." if self.entry.space == "method" else ""
        label = self.entry.label() if not head else self.entry.name
        return f"{head}{label}({', '.join(parts)})  # {self.what}"


def _base(entry: Entry, signature: tuple) -> list:
    if entry.base:
        return list(entry.base)
    return [good_value(p) for p in signature if not p.optional and not p.keyword_only]


def cases_for(entry: Entry) -> list[Case]:
    cases: list[Case] = []
    seen: set[str] = set()

    def add(args, kwargs, what):
        case = Case(entry, tuple(args), tuple(kwargs), what)
        key = repr(case)
        if key not in seen:
            seen.add(key)
            cases.append(case)

    for signature in entry.signatures:
        base = _base(entry, signature)
        positional = [p for p in signature if not p.keyword_only]
        for index, param in enumerate(positional[: len(base)]):
            for value in bad_values(param):
                args = list(base)
                args[index] = value
                add(args, (), f"bad {param.name}")
        for param in signature:
            if param in positional[: len(base)]:
                continue
            for value in bad_values(param):
                add(base, ((param.name, value),), f"bad {param.name}=")
        add(base, (("foo", 1),), "unknown keyword")
        if positional[: len(base)]:
            add(base, ((positional[0].name, base[0]),), "given twice")
        add([*base, *[1] * (len(positional) - len(base) + 1)], (), "too many")
        if base and not entry.base:
            add(base[:-1], (), "missing")
        add(base, (), "valid")
    return cases


def all_cases(names=()) -> list[Case]:
    chosen = [e for e in entries() if not names or e.name in names or e.label() in names]
    return [case for entry in chosen for case in cases_for(entry)]


# ---------------------------------------------------------------------------
# Running a case and comparing


_BACKTRACE = re.compile(
    r"\nException raised from [^\n]*\n(?:frame #[^\n]*\n|<omitting python frames>\n)*"
)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def normalise(message: str) -> str:
    """``ember`` read as ``torch``; C++ back-traces cut; addresses masked."""
    message = message.replace("ember", "torch")
    message = _BACKTRACE.sub("", message)
    return _ADDRESS.sub("0x?", message)


class CallTimeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float):
    def on_alarm(signum, frame):
        raise CallTimeout(f"took more than {seconds}s")

    if not hasattr(signal, "setitimer"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclasses.dataclass
class Outcome:
    error: BaseException | None
    result: object = None
    state_before: tuple = ()
    state_after: tuple = ()

    @property
    def kind(self) -> str:
        return "ok" if self.error is None else type(self.error).__name__

    @property
    def message(self) -> str:
        return "" if self.error is None else normalise(str(self.error))


def _tensors(obj):
    if hasattr(obj, "_key_bits") or type(obj).__name__ == "Tensor":
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _tensors(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _tensors(item)


def _snapshot(lib, objects) -> tuple:
    """What a refused call must leave as it found: the tensors and the thread state."""
    tensors = []
    for t in _tensors(objects):
        values = None
        if t.device.type == "cpu" and t.numel() <= 1 << 20:
            try:
                values = t.detach().clone().numpy().tobytes()  # t.numpy() would pin t
            except Exception as error:  # noqa: BLE001 (a shape NumPy cannot hold)
                values = type(error).__name__
        tensors.append((tuple(t.shape), t.stride(), t._version, t.requires_grad, values))
    modes = (lib.is_grad_enabled(), lib.is_inference_mode_enabled(), lib.get_default_dtype())
    return tuple(tensors), modes


def run(case: Case, lib, timeout: float = 10.0) -> Outcome | None:
    """The outcome of ``case`` in ``lib``; None when its arguments cannot be built there."""
    try:
        args, kwargs = build(case.args, lib), dict(build(case.kwargs, lib))
    except Unbuildable:
        return None
    self_value = case.entry.self_recipe.build(lib) if case.entry.space == "method" else None
    objects = (self_value, args, kwargs)
    before = _snapshot(lib, objects)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            function = case.entry.target(lib, self_value)
            with _time_limit(timeout):
                result = function(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 (what the sweep compares)
            return Outcome(error, None, before, _snapshot(lib, objects))
    return Outcome(None, result)


# Exception classes that only ever come from a bug inside ember when torch raises another.
INTERNAL = {"AttributeError", "KeyError", "IndexError", "ValueError", "NameError",
            "AssertionError", "UnboundLocalError", "RecursionError", "ZeroDivisionError",
            "OverflowError", "MemoryError", "CallTimeout", "NotImplementedError", "TypeError",
            "RuntimeError"}  # fmt: skip


@dataclasses.dataclass
class Verdict:
    case: Case
    torch: Outcome
    ember: Outcome

    @property
    def labels(self) -> list[str]:
        t, e = self.torch, self.ember
        labels = []
        if t.error is not None and e.error is None:
            labels.append("accepted")
        if t.error is None and e.error is not None:
            labels.append("refused")
        if t.error is not None and e.error is not None:
            if t.kind != e.kind:
                labels.append("type")
            elif t.message != e.message:
                labels.append("message")
        if e.error is not None and self.internal:
            labels.append("internal")
        if e.error is not None and e.state_before != e.state_after:
            if t.error is None or t.state_before == t.state_after:  # torch left it as it was
                labels.append("state")
        return labels

    @property
    def internal(self) -> bool:
        """ember raised a class torch did not, from NumPy or from ember's insides."""
        error = self.ember.error
        if error is None or type(error).__name__ == self.torch.kind:
            return False
        module = type(error).__module__
        if module.startswith("numpy") or isinstance(error, CallTimeout):
            return True
        return type(error).__name__ in INTERNAL - {"TypeError", "RuntimeError"}

    def describe(self) -> str:
        return (
            f"{self.case!r}\n    torch: {self.torch.kind}: {self.torch.message[:300]}"
            f"\n    ember: {self.ember.kind}: {self.ember.message[:300]}"
        )


def compare(case: Case) -> Verdict | None:
    """The two outcomes of ``case``; None when ember lacks something its arguments name."""
    import torch

    ember_outcome = run(case, ember)
    if ember_outcome is None:
        return None
    return Verdict(case, run(case, torch), ember_outcome)


def summary(verdicts: list[Verdict]) -> dict:
    bad = [v for v in verdicts if v.torch.error is not None or v.ember.error is not None]
    both = [v for v in bad if v.torch.error is not None and v.ember.error is not None]
    labels = Counter(label for v in verdicts for label in v.labels)
    same_type = sum(v.torch.kind == v.ember.kind for v in bad)
    same_message = sum(v.torch.kind == v.ember.kind and v.torch.message == v.ember.message
                       for v in bad)  # fmt: skip
    return {
        "cases": len(verdicts),
        "refused by either": len(bad),
        "refused by both": len(both),
        "same type %": round(100 * same_type / max(len(bad), 1), 1),
        "same message %": round(100 * same_message / max(len(bad), 1), 1),
        "disagreements": sum(bool(v.labels) for v in verdicts),
        **{label: labels[label] for label in
           ("accepted", "refused", "type", "message", "internal", "state")},
    }  # fmt: skip


def main(argv: list[str]) -> int:
    """``-v``: print each disagreement; ``--json FILE``: write them, one JSON object a line."""
    import json

    verbose = "-v" in argv
    dump = argv[argv.index("--json") + 1] if "--json" in argv else None
    names = [a for a in argv if not a.startswith("-") and a != dump]
    verdicts = [v for v in map(compare, all_cases(names)) if v is not None]
    if verbose:
        for verdict in verdicts:
            if verdict.labels:
                print(f"[{','.join(verdict.labels)}] {verdict.describe()}")
    if dump:
        with open(dump, "w") as f:
            for v in verdicts:
                if v.labels:
                    record = {
                        "labels": v.labels,
                        "case": repr(v.case),
                        "entry": v.case.entry.label(),
                    }
                    record |= {"torch": [v.torch.kind, v.torch.message]}
                    record |= {"ember": [v.ember.kind, v.ember.message]}
                    f.write(json.dumps(record) + "\n")
    for key, value in summary(verdicts).items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
