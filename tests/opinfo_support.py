"""PyTorch's operator database, run against ember: each OpInfo's samples in both libraries.

The test suite's differential test for breadth (tests/test_opinfo.py). `op_db` comes from the
installed torch at test time (torch.testing._internal.common_methods_invocations); nothing of it
is copied. For each entry this module finds ember's counterpart of `op.op`, converts every
sample (tensors with their dtype, shape, strides and requires_grad; dtypes, devices, sizes) to
ember, calls both, and compares:

- values, dtypes and shapes of every tensor in the result (torch.testing.assert_close with
  PyTorch's per-dtype tolerances), and strides where PyTorch's result is a view of an input;
- gradients of the float64 samples with respect to every input that requires grad;
- the error inputs: exception type and message.

Random operators are compared after seeding both libraries alike (ember has PyTorch's
mt19937 and its sampling formulas); operators whose values are undefined (`empty`) are
compared by dtype, shape and strides only.

Run as a script for a report (per entry, then the totals the issue asks for):

    python tests/opinfo_support.py [NAME ...] [--write]

`--write` rewrites tests/opinfo_expected_failures.txt from the run (every entry).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from oracle import torch

import ember

EXPECTED_FAILURES = Path(__file__).with_name("opinfo_expected_failures.txt")

# Samples per dtype, and the dtypes tried (where the entry supports them). Caps keep the whole
# database to a couple of minutes.
SAMPLES_PER_DTYPE = 3
VALUE_DTYPES = ("float32", "int64", "bool", "complex64")
GRAD_DTYPE = "float64"
ERROR_INPUTS = 6

# Values that are undefined (only dtype, shape and strides can be compared).
UNDEFINED_VALUES = {
    "empty",
    "empty_like",
    "empty_strided",
    "empty_permuted",
    "new_empty",
    "new_empty_strided",
    "resize_",
    "resize_as_",
}


# Sorting without stable=True: PyTorch does not define the order of equal elements, and its
# CPU kernels' order is an artefact of their algorithm. There the indices must pick the values
# torch returns (the values themselves must be equal); such samples are counted apart.
TIE_ORDER_UNDEFINED = {"sort", "argsort", "topk", "msort"}


class NoCounterpart(Exception):
    """ember has nothing under the name PyTorch's entry calls."""


# ---------------------------------------------------------------------------------------------
# Finding ember's counterpart of an entry's callable
# ---------------------------------------------------------------------------------------------

_MODULES = {
    "torch": "ember",
    "torch._C._VariableFunctions": "ember",
    "torch.functional": "ember",
    "torch._C._nn": "ember.nn.functional",
    "torch.nn.functional": "ember.nn.functional",
    "torch._C._linalg": "ember.linalg",
    "torch._C._fft": "ember.fft",
    "torch._C._special": "ember.special",
    "torch.special": "ember.special",
    "torch.signal.windows.windows": "ember.signal.windows",
    "torch.masked._ops": "ember.masked",
}
_PREFIXES = {"ember.linalg": "linalg_", "ember.fft": "fft_", "ember.special": "special_"}


def _module(name: str):
    obj = ember
    for part in name.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            raise NoCounterpart(name)
    return obj


def _wrapper_set_seed(op, *args, **kwargs):
    """The database's wrapper_set_seed for ember: seed 42, as torch's does, then call."""
    ember.manual_seed(42)
    return op(*args, **kwargs)


def _ember_global(name: str, value):
    """What a function of the test database sees under `name` when run against ember."""
    if value is torch:
        return ember
    if isinstance(value, types.FunctionType) and value.__name__ == "wrapper_set_seed":
        return _wrapper_set_seed
    if isinstance(value, types.FunctionType) and (value.__module__ or "").startswith(
        "torch.testing"
    ):
        return _rebound(value)
    if isinstance(value, types.ModuleType) and value.__name__.startswith("torch."):
        try:
            return _module("ember" + value.__name__[len("torch") :])
        except NoCounterpart:
            return value
    return value


class _EmberNamespace(dict):
    """A test module's globals as its functions see them against ember, converted on lookup."""

    def __init__(self, original: dict):
        super().__init__()
        self.original = original

    def __missing__(self, name):
        value = _ember_global(name, self.original[name])
        self[name] = value
        return value


_NAMESPACES: dict = {}
_REBOUND: dict = {}


def _rebound(fn):
    """A function of the test database whose globals (and closure) name ember for torch."""
    if id(fn) in _REBOUND:
        return _REBOUND[id(fn)][1]
    key = id(fn.__globals__)
    if key not in _NAMESPACES:
        _NAMESPACES[key] = (fn.__globals__, _EmberNamespace(fn.__globals__))
    namespace = _NAMESPACES[key][1]
    cells = None
    if fn.__closure__:
        cells = tuple(types.CellType(_ember_global("", c.cell_contents)) for c in fn.__closure__)
    clone = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, cells)
    _REBOUND[id(fn)] = (fn, clone)
    clone.__kwdefaults__ = fn.__kwdefaults__
    return clone


def counterpart(fn):
    """ember's callable for one of torch's (a builtin, a Python function, a method, an op)."""
    if isinstance(fn, functools.partial):
        return functools.partial(counterpart(fn.func), *to_ember(fn.args), **to_ember(fn.keywords))
    kind = type(fn).__name__
    if kind in ("method_descriptor", "wrapper_descriptor"):
        found = getattr(ember.Tensor, fn.__name__, None)
        if found is None:
            raise NoCounterpart(f"Tensor.{fn.__name__}")
        return found
    if kind in ("OpOverloadPacket", "OpOverload"):
        namespace, _, rest = str(fn).partition(".")
        obj = getattr(ember.ops, namespace, None)
        for part in rest.split("."):
            obj = getattr(obj, part, None)
        if obj is None:
            raise NoCounterpart(str(fn))
        return obj
    module = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__name__", None)
    if name is None:  # torch.cuda.jiterator's functions: CUDA only
        raise NoCounterpart(f"{module}.{type(fn).__name__}")
    if module == "torch._tensor":
        found = getattr(ember.Tensor, name, None)
        if found is None:
            raise NoCounterpart(f"Tensor.{name}")
        return found
    if module.startswith("torch.testing") or kind == "function" and module not in _MODULES:
        if not isinstance(fn, types.FunctionType):
            raise NoCounterpart(f"{module}.{name}")
        return _rebound(fn)
    target = _MODULES.get(module)
    if target is None:
        raise NoCounterpart(f"{module}.{name}")
    owner = _module(target)
    short = name
    prefix = _PREFIXES.get(target)
    if prefix and short.startswith(prefix):
        short = short[len(prefix) :]
    found = getattr(owner, short, None)
    if found is None and module == "torch._C._nn":  # F.logsigmoid is torch._C._nn.log_sigmoid
        found = getattr(ember._C._nn, short, None)
    if found is None:
        raise NoCounterpart(f"{target}.{short}")
    return found


# ---------------------------------------------------------------------------------------------
# Converting values between the libraries
# ---------------------------------------------------------------------------------------------


def _ember_dtype(dtype):
    return getattr(ember, str(dtype).removeprefix("torch."))


def _torch_dtype(dtype):
    return getattr(torch, str(dtype).removeprefix("torch.").removeprefix("ember."))


def _array(t) -> np.ndarray:
    """The elements of a torch tensor's storage it can reach, as NumPy, in storage order."""
    if t.dtype in (torch.bfloat16, torch.float16, torch.complex32):
        return _array(t.to(torch.float32 if not t.is_complex() else torch.complex64))
    return t.detach().resolve_conj().resolve_neg().numpy()


def tensor_to_ember(t):
    if t.layout != torch.strided or t.is_quantized:
        raise NoCounterpart(f"layout {t.layout}")
    dtype = _ember_dtype(t.dtype)
    if t.device.type == "meta":  # no data to copy: the same geometry on ember's meta device
        e = ember.empty_strided(tuple(t.shape), t.stride(), dtype=dtype, device="meta")
        return e.requires_grad_(True) if t.requires_grad else e
    whole = t.storage_offset() == 0 and t.untyped_storage().nbytes() == t.numel() * t.element_size()
    if t.numel() == 0 or t.is_contiguous() and whole:
        data = ember.from_numpy(np.ascontiguousarray(_array(t.detach().contiguous())))
        e = data.to(dtype).reshape(tuple(t.shape))
    else:
        extent = t.untyped_storage().nbytes() // t.element_size()
        flat = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage(), 0, (extent,), (1,))
        base = ember.from_numpy(np.ascontiguousarray(_array(flat))).to(dtype)
        e = base.as_strided(tuple(t.shape), t.stride(), t.storage_offset())
    e = e.detach()
    if t.requires_grad:
        e.requires_grad_(True)
    return e


def to_ember(value):
    if isinstance(value, torch.Tensor):
        return tensor_to_ember(value)
    if isinstance(value, torch.dtype):
        return _ember_dtype(value)
    if isinstance(value, torch.device):
        return ember.device(str(value))
    if isinstance(value, torch.Size):
        return ember.Size(value)
    if isinstance(value, torch.memory_format):
        return getattr(ember, str(value).removeprefix("torch."))
    if isinstance(value, torch.layout):
        return getattr(ember, str(value).removeprefix("torch."))
    if isinstance(value, torch.Generator):
        raise NoCounterpart("generator argument")
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_ember(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(to_ember(v) for v in value)
    if isinstance(value, dict):
        return {k: to_ember(v) for k, v in value.items()}
    if isinstance(value, torch.nn.Module):
        return _module_to_ember(value)
    if (
        callable(value)
        and getattr(value, "__module__", "")
        and value.__module__.startswith("torch")
    ):
        return counterpart(value)
    return value


def _module_to_ember(module):
    """A parameterless torch.nn module (a sample's distance_function) as ember's: the class
    of the same name, with the same plain attributes."""
    cls = getattr(ember.nn, type(module).__name__, None)
    if cls is None or any(True for _ in module.parameters()) or any(True for _ in module.buffers()):
        raise NoCounterpart(f"{type(module).__module__}.{type(module).__name__}")
    converted = cls.__new__(cls)
    ember.nn.Module.__init__(converted)
    for name, attribute in vars(module).items():
        if not name.startswith("_"):
            setattr(converted, name, to_ember(attribute))
    return converted


def tensor_to_torch(e):
    dtype = _torch_dtype(e.dtype)
    e = e.detach().resolve_conj().resolve_neg()
    if e._is_zerotensor():  # torch's gradients hold ZeroTensors too (sgn's backward)
        return torch.zeros(tuple(e.shape), dtype=dtype)
    if e.dtype in (ember.bfloat16, ember.float16):
        return torch.from_numpy(e.detach().to(ember.float32).numpy().copy()).to(dtype)
    return torch.from_numpy(np.array(e.detach().numpy(), copy=True)).to(dtype)


def _leaves(value) -> list:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _leaves(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    return [value]


# ---------------------------------------------------------------------------------------------
# One entry
# ---------------------------------------------------------------------------------------------


@dataclass
class EntryResult:
    name: str
    has_counterpart: bool = True
    samples: int = 0
    value_equal: int = 0
    grads: int = 0
    grad_equal: int = 0
    errors: int = 0
    error_equal: int = 0
    problems: list = field(default_factory=list)
    tie_order: int = 0

    @property
    def passed(self) -> bool:
        return self.has_counterpart and not self.problems and self.samples > 0


def entry_name(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def _call(fn, sample, convert):
    args = (sample.input, *sample.args) if not convert else to_ember((sample.input, *sample.args))
    kwargs = sample.kwargs if not convert else to_ember(sample.kwargs)
    return fn(*args, **kwargs), args


def _outcome(fn, sample, convert, seed):
    """(result, inputs) or the exception; both libraries seeded alike."""
    torch.manual_seed(seed)
    ember.manual_seed(seed)
    try:
        return _call(fn, sample, convert), None
    except NoCounterpart:
        raise
    except Exception as exc:  # noqa: BLE001 (the outcome is compared, whatever it is)
        return None, exc


def _missing_attribute(exc) -> bool:
    text = str(exc)
    return isinstance(exc, AttributeError) and (
        "'ember" in text or "ember." in text or "'Tensor'" in text
    )


def _compare_values(name, expected, actual, undefined) -> str | None:
    exp, act = _leaves(expected), _leaves(actual)
    if len(exp) != len(act):
        return f"{len(act)} results, torch {len(exp)}"
    for want, got in zip(exp, act):
        if isinstance(want, torch.Tensor):
            if not isinstance(got, ember.Tensor):
                return f"{type(got).__name__} where torch returns a Tensor"
            if str(want.dtype).removeprefix("torch.") != str(got.dtype).removeprefix("ember."):
                return f"dtype {got.dtype}, torch {want.dtype}"
            if tuple(want.shape) != tuple(got.shape):
                return f"shape {tuple(got.shape)}, torch {tuple(want.shape)}"
            if want.layout != torch.strided or undefined:
                continue
            try:
                torch.testing.assert_close(
                    tensor_to_torch(got), want, equal_nan=True, check_stride=False
                )
            except AssertionError as exc:
                return "values: " + str(exc).splitlines()[0]
        elif isinstance(want, float) and isinstance(got, float):
            if not (
                math.isclose(want, got, rel_tol=1e-6, abs_tol=1e-9)
                or (math.isnan(want) and math.isnan(got))
            ):
                return f"{got!r}, torch {want!r}"
        elif isinstance(want, (torch.dtype, torch.device, torch.Size)):
            if str(want).removeprefix("torch.") != str(got).removeprefix("ember."):
                return f"{got!r}, torch {want!r}"
        elif want != got and not (isinstance(want, type(got)) and str(want) == str(got)):
            return f"{got!r}, torch {want!r}"
    return None


def _compare_tie_order(name, sample, want, got, ember_inputs) -> str | None:
    """Equal values, and indices of ember's that pick those values out of the input."""
    args, kwargs = sample.args, sample.kwargs
    if kwargs.get("stable"):
        return "indices differ with stable=True"
    if name == "topk":
        dim = args[1] if len(args) > 1 else kwargs.get("dim", -1)
    else:
        dim = args[0] if args and isinstance(args[0], int) else kwargs.get("dim", -1)
    source = ember_inputs[0]
    if name == "argsort":
        want_values = torch.sort(
            sample.input, dim, descending=kwargs.get("descending", False)
        ).values
        picked = source.gather(dim, got) if source.dim() else source
        return _compare_values(name, want_values, picked, False)
    if _compare_values(name, want[0], got[0], False):
        return _compare_values(name, want, got, False)
    picked = source.gather(dim, got[1]) if source.dim() else source
    return _compare_values(name, want[0], picked, False)


def _grad_inputs(inputs, lib):
    return [x for x in _leaves(inputs) if isinstance(x, lib.Tensor) and x.requires_grad]


def _grads(lib, result, inputs, cotangents):
    outs = [r for r in _leaves(result) if isinstance(r, lib.Tensor) and r.requires_grad]
    wrt = _grad_inputs(inputs, lib)
    if not outs or not wrt:
        return None
    return lib.autograd.grad(outs, wrt, cotangents(outs), allow_unused=True)


def as_torch_prints(message: str) -> str:
    """ember's message as a program whose ``import torch`` ember answers sees it: ember
    names its module ``ember`` (``ember.Size``, ``ember.dtype``) while the real torch is
    imported beside it, as it is here, and ``torch`` otherwise."""
    return re.sub(r"\bember\.", "torch.", message)


def _compare_errors(op, result: EntryResult, fn) -> None:
    try:
        error_inputs = list(itertools.islice(op.error_inputs("cpu"), ERROR_INPUTS))
    except Exception:  # noqa: BLE001 (an entry without error inputs)
        return
    for error_input in error_inputs:
        sample = error_input.sample_input
        _, torch_exc = _outcome(op.op, sample, False, 0)
        if torch_exc is None:
            continue
        try:
            _, ember_exc = _outcome(fn, sample, True, 0)
        except NoCounterpart:
            continue
        result.errors += 1
        if ember_exc is None:
            result.problems.append(
                f"error input: no error, torch {type(torch_exc).__name__}: {torch_exc}"
            )
        elif type(ember_exc).__name__ != type(torch_exc).__name__ or as_torch_prints(
            str(ember_exc)
        ) != str(torch_exc):
            result.problems.append(
                f"error input: {type(ember_exc).__name__}: {str(ember_exc)[:200]!r}, "
                f"torch {type(torch_exc).__name__}: {str(torch_exc)[:200]!r}"
            )
        else:
            result.error_equal += 1


def _dtypes(op) -> list:
    supported = {str(d).removeprefix("torch.") for d in op.supported_dtypes("cpu")}
    return [d for d in (*VALUE_DTYPES, GRAD_DTYPE) if d in supported and hasattr(ember, d)]


def run_entry(op) -> EntryResult:
    name = entry_name(op)
    result = EntryResult(name)
    try:
        fn = counterpart(op.op)
    except NoCounterpart as exc:
        result.has_counterpart = False
        result.problems.append(f"no counterpart: {exc}")
        return result
    undefined = op.name in UNDEFINED_VALUES
    for dtype_name in _dtypes(op):
        dtype = getattr(torch, dtype_name)
        with_grad = dtype_name == GRAD_DTYPE and op.supports_autograd
        torch.manual_seed(0)
        try:
            samples = list(
                itertools.islice(
                    op.sample_inputs("cpu", dtype, requires_grad=with_grad), SAMPLES_PER_DTYPE
                )
            )
        except Exception:  # noqa: BLE001 (torch's own sample generator failing: nothing to compare)
            continue
        for index, sample in enumerate(samples):
            label = f"{dtype_name} sample {index}"
            try:
                torch_out, torch_exc = _outcome(op.op, sample, False, index)
                ember_out, ember_exc = _outcome(fn, sample, True, index)
            except NoCounterpart as exc:
                result.problems.append(f"{label}: cannot convert ({exc})")
                continue
            if ember_exc is not None and _missing_attribute(ember_exc):
                result.has_counterpart = result.samples > 0
                result.problems.append(f"{label}: {type(ember_exc).__name__}: {ember_exc}")
                return result
            result.samples += 1
            if torch_exc is not None or ember_exc is not None:
                if torch_exc is None:
                    text = f"{type(ember_exc).__name__}: {str(ember_exc)[:300]}"
                    result.problems.append(f"{label}: {text}")
                elif ember_exc is None:
                    result.problems.append(
                        f"{label}: no error, torch {type(torch_exc).__name__}: {torch_exc}"
                    )
                elif (type(ember_exc).__name__, str(ember_exc)) == (
                    type(torch_exc).__name__,
                    str(torch_exc),
                ):
                    result.value_equal += 1
                else:
                    result.problems.append(
                        f"{label}: {type(ember_exc).__name__}: {ember_exc}, torch {torch_exc}"
                    )
                continue
            (want, torch_inputs), (got, ember_inputs) = torch_out, ember_out
            problem = _compare_values(name, want, got, undefined)
            if problem and op.name in TIE_ORDER_UNDEFINED:
                problem = _compare_tie_order(op.name, sample, want, got, ember_inputs)
                result.tie_order += problem is None
            if problem:
                result.problems.append(f"{label}: {problem}")
                continue
            result.value_equal += 1
            if with_grad:
                _compare_grads(result, label, want, torch_inputs, got, ember_inputs)
    _compare_errors(op, result, fn)
    return result


def _compare_grads(result, label, want, torch_inputs, got, ember_inputs) -> None:
    seeds = []

    def torch_cotangents(outs):
        generator = torch.Generator().manual_seed(7)
        seeds.extend(torch.randn(o.shape, dtype=o.dtype, generator=generator) for o in outs)
        return seeds

    try:
        expected = _grads(torch, want, torch_inputs, torch_cotangents)
    except Exception:  # noqa: BLE001 (torch cannot differentiate this sample: nothing to compare)
        return
    if expected is None:
        return
    result.grads += 1
    try:
        actual = _grads(ember, got, ember_inputs, lambda outs: [tensor_to_ember(s) for s in seeds])
    except Exception as exc:  # noqa: BLE001 (compared: torch differentiates this sample)
        result.problems.append(f"{label} grad: {type(exc).__name__}: {str(exc)[:300]}")
        return
    for want_grad, got_grad in zip(expected, actual or ()):
        if (want_grad is None) != (got_grad is None):
            result.problems.append(
                f"{label} grad: {got_grad is None and 'None' or 'a tensor'} where torch differs"
            )
            return
        if want_grad is not None:
            try:
                torch.testing.assert_close(tensor_to_torch(got_grad), want_grad, equal_nan=True)
            except AssertionError as exc:
                result.problems.append(f"{label} grad: " + str(exc).splitlines()[0])
                return
    result.grad_equal += 1


# ---------------------------------------------------------------------------------------------
# The whole database
# ---------------------------------------------------------------------------------------------


def op_db() -> list:
    from torch.testing._internal.common_methods_invocations import op_db as database

    return list(database)


def expected_failures() -> dict:
    """Entry name → the reason recorded when it was listed."""
    listed = {}
    for line in EXPECTED_FAILURES.read_text().splitlines():
        name, _, reason = line.partition("  # ")
        if name.strip() and not name.startswith("#"):
            listed[name.strip()] = reason.strip()
    return listed


def summary(results: list) -> str:
    with_counterpart = [r for r in results if r.has_counterpart]
    samples = sum(r.samples for r in with_counterpart)
    values = sum(r.value_equal for r in with_counterpart)
    grads = sum(r.grads for r in with_counterpart)
    grad_equal = sum(r.grad_equal for r in with_counterpart)
    errors = sum(r.errors for r in with_counterpart)
    error_equal = sum(r.error_equal for r in with_counterpart)

    def pct(a, b):
        return f"{100 * a / b:.1f}%" if b else "n/a"

    return (
        f"entries {len(results)}; with a counterpart {len(with_counterpart)}; "
        f"passing whole {sum(r.passed for r in results)}\n"
        f"samples value-equal {values}/{samples} ({pct(values, samples)}); "
        f"grad-equal {grad_equal}/{grads} ({pct(grad_equal, grads)}); "
        f"error-equal {error_equal}/{errors} ({pct(error_equal, errors)}); "
        f"value-equal up to the order of ties (unstable sorts) {sum(r.tie_order for r in results)}"
    )


def _main(argv: list) -> None:
    import warnings

    warnings.simplefilter("ignore")
    write = "--write" in argv
    names = [a for a in argv if not a.startswith("--")]
    entries = [op for op in op_db() if not names or entry_name(op) in names or op.name in names]
    results = []
    for op in entries:
        r = run_entry(op)
        results.append(r)
        status = "PASS" if r.passed else ("MISSING" if not r.has_counterpart else "FAIL")
        print(
            f"{status:8} {r.name}  ({r.value_equal}/{r.samples} values, {r.grad_equal}/{r.grads} grads, "
            f"{r.error_equal}/{r.errors} errors)"
        )
        for problem in r.problems[:3] if names or status == "FAIL" else ():
            print(f"         {problem[:400]}")
    print(summary(results))
    if write:
        lines = [
            "# OpInfo entries ember does not pass yet (tests/test_opinfo.py). Only shrinks:",
            "# an entry listed here that passes fails the test. Regenerate:",
            "#   python tests/opinfo_support.py --write",
        ]
        for r in results:
            if not r.passed:
                reason = (
                    "no counterpart"
                    if not r.has_counterpart
                    else (r.problems[0] if r.problems else "no samples")
                )
                lines.append(f"{r.name}  # {reason[:150]}")
        EXPECTED_FAILURES.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    _main(sys.argv[1:])
