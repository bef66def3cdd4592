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

from bad_args_cases import *  # noqa: F403 (the sweep's cases are its vocabulary)
from bad_args_cases import Case, Unbuildable, all_cases, build

import ember

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
