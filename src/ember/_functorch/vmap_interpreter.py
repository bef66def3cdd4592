"""The Vmap interpreter: the layer a vmap call pushes.

Layer: _functorch. Mirrors aten/src/ATen/functorch/VmapInterpreter.h / .cpp. While it
processes a call it keeps FuncTorchBatched (and BatchedNestedTensor) reachable and
includes FuncTorchVmapMode (fact A3); below it, the call goes on unchanged (the batching
rules have already unwrapped this level's BatchedTensors).
"""

from __future__ import annotations

from .._c10.dispatch_key import DispatchKey
from .._c10.dispatch_key_set import keys_bits
from .interpreter import Interpreter, RandomnessType, TransformType

_RANDOMNESS = {"error": RandomnessType.Error, "same": RandomnessType.Same,
               "different": RandomnessType.Different}  # fmt: skip


def randomness_type(randomness: str) -> RandomnessType:
    return _RANDOMNESS[randomness]


class VmapInterpreter(Interpreter):
    """A vmap level: its batch size and randomness."""

    transform = TransformType.Vmap
    layer_keys = keys_bits([DispatchKey.FuncTorchBatched, DispatchKey.BatchedNestedTensor])
    include_keys = keys_bits([DispatchKey.FuncTorchVmapMode])

    def __init__(self, level: int, batch_size: int, randomness: str) -> None:
        super().__init__(level)
        self.batch_size = batch_size
        self.randomness = randomness
        self.randomness_type = randomness_type(randomness)

    def __repr__(self) -> str:
        return (f"VmapInterpreter(level={self.lvl}, batch_size={self.batch_size}, "
                f"randomness={self.randomness})")  # fmt: skip
