"""The entry points of the bad-arguments sweep, with the Python signatures to malform.

Every generated binding (``ember.X``, ``Tensor.X``, ``ember._C._nn.X``) with its
parser's signatures, and the functions and methods written by hand (torch.tensor,
Tensor.to, torch.nn.functional...) with their signatures written out, that torch has too.
"""

from __future__ import annotations

import dataclasses

from bad_args_recipes import NP, Attr, T

from ember.aten._generated import python_functions, python_nn_functions, tensor_methods
from ember.aten.python_arg_convert import (
    BOOL,
    DEVICE,
    DOUBLE,
    INT64,
    MEMORY_FORMAT,
    SCALARTYPE,
    STRING,
    TENSOR,
)

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
# Entry points whose malformed calls crash PyTorch itself, so the sweep cannot run them there.
_CRASH_TORCH = {
    "_cummax_helper": "an internal helper that does not check its out tensors: torch aborts",
    "_cummin_helper": "an internal helper that does not check its out tensors: torch aborts",
    "_fft_r2c": "torch._fft_r2c(x, [2**62, 4], 1, False) segfaults PyTorch 2.13 (no dim check)",
}


def entries() -> list[Entry]:
    """Every entry point, generated and hand-written, that torch also has."""
    import torch

    found = _parser_entries(python_functions, "fn", "_parser_f_")
    found += _parser_entries(tensor_methods, "method", "_parser_m_")
    found += _parser_entries(python_nn_functions, "nn", "_parser_f_")
    found += _hand_written()
    result = []
    for entry in found:
        if entry.name in _NOT_PUBLIC or entry.name in _CRASH_TORCH:
            continue
        probe = {"fn": torch, "nn": torch._C._nn, "F": torch.nn.functional}.get(entry.space)
        if probe is None:
            probe = torch.Tensor
        if hasattr(probe, entry.name):
            result.append(entry)
    return result
