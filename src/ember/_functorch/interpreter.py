"""The transforms' interpreters: what each functorch layer does with an operator call.

Layer: _functorch. Mirrors aten/src/ATen/functorch/Interpreter.h / Interpreter.cpp and
the TransformType / RandomnessType enums of torch._C._functorch. In: the layer TLS a
transform installs. Out: ``Interpreter``, the base every transform's interpreter
subclasses (See Note [The functorch layer stack] in ember/_functorch/__init__.py).
"""

from __future__ import annotations

import enum

from .._c10.dispatch_key import FUNCTIONALITY_NAMES, DispatchKey
from .._c10.dispatch_key_set import DispatchKeySet, keys_bits
from .._c10.thread_state import per_thread
from .._dispatch.dispatcher import OperatorHandle

_D = DispatchKey


class TransformType(enum.IntEnum):
    """torch._C._functorch.TransformType (fact A2 prints its members in this order)."""

    Torch = 0
    Grad = 2
    Jvp = 3
    Functionalize = 4
    Vmap = 1


class RandomnessType(enum.IntEnum):
    """torch._C._functorch.RandomnessType."""

    Error = 0
    Same = 1
    Different = 2


def _between_front_and_back() -> int:
    """Every functionality strictly above FuncTorchDynamicLayerBackMode up to and including
    FuncTorchDynamicLayerFrontMode, with every backend of the per-backend ones (so the set
    prints AutogradCPU, AutogradCUDA, ...), less FuncTorchVmapMode, which no layer excludes
    (facts A3, A4)."""
    back = FUNCTIONALITY_NAMES.index("FuncTorchDynamicLayerBackMode")
    front = FUNCTIONALITY_NAMES.index("FuncTorchDynamicLayerFrontMode")
    keys = []
    for name in FUNCTIONALITY_NAMES[back + 1 : front + 1]:
        if name == "AutogradFunctionality":
            keys.extend(k for k in _D if k.name.startswith("Autograd") and k.name != "Autograd")
        elif name != "FuncTorchVmapMode":
            keys.append(_D[name])
    return DispatchKeySet(keys).raw_repr()


BETWEEN_BITS = _between_front_and_back()
FRONT_BITS = keys_bits([_D.FuncTorchDynamicLayerFrontMode])
BACK_BITS = keys_bits([_D.FuncTorchDynamicLayerBackMode])
FRONT_BACK_BITS = FRONT_BITS | BACK_BITS
AUTOGRAD_LAYER_BITS = DispatchKeySet(
    [_D.ADInplaceOrView, _D.AutogradOther, _D.AutogradNestedTensor]
    + [k for k in _D if k.name.startswith("Autograd") and k.name not in ("Autograd",)]
).raw_repr()


class Interpreter:
    """One layer of the dynamic layer stack: a transform at a level.

    Subclasses set ``transform`` and ``layer_keys`` (the keys the layer keeps reachable
    while it runs: every other key between FrontMode and BackMode is excluded) and
    ``include_keys`` (added to the include set), and may override ``process``,
    ``send_to_next``, ``lift`` and ``lower``.
    """

    transform: TransformType = TransformType.Torch
    layer_keys: int = 0
    include_keys: int = 0

    def __init__(self, level: int) -> None:
        self.lvl = level
        self.is_alive = True
        self.saved_tls: list[tuple[int, int]] = []  # one per FrontMode call in flight

    # -- what torch._C._functorch's CInterpreter shows -----------------------------
    def key(self) -> TransformType:
        return self.transform

    def level(self) -> int:
        return self.lvl

    def name(self) -> str:
        return self.transform.name

    def __repr__(self) -> str:
        return f"{self.name()}Interpreter(level={self.lvl})"

    # -- the dispatch behaviour ----------------------------------------------------
    def enter_tls(self) -> None:
        """setup_dispatch_key_tls: exclude what lies between the DynamicLayer keys except
        this layer's own, and include ``include_keys``."""
        ts = per_thread.state
        ts.excluded = (ts.excluded | BETWEEN_BITS) & ~self.layer_keys
        ts.included = ts.included | self.include_keys

    def process(self, op: OperatorHandle, args: tuple):
        """Called by the FrontMode fallback with this layer's TLS installed: run ``op``
        at this level (the default re-calls it, so this layer's keys handle it)."""
        return op.call(*args)

    def send_to_next(self, op: OperatorHandle, args: tuple):
        """Called by the BackMode fallback after this layer was popped and the TLS saved at
        FrontMode restored: hand ``op`` to the layer below (lower this layer's wrappers
        in ``args`` first, lift the results after, where the transform has wrappers that
        BackMode must see through)."""
        return op.call(*args)

    def lift(self, tensor):
        """Wrap a plain value as a tensor of this level (the identity by default)."""
        return tensor

    def lower(self, tensor):
        """Unwrap a tensor of this level (the identity by default)."""
        return tensor
