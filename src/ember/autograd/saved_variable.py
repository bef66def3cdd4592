"""SavedVariable: a tensor a backward node keeps, with the version it had when saved.

Layer: autograd. Mirrors torch/csrc/autograd/saved_variable.{h,cpp}: unpacking
after an in-place change raises PyTorch's version-counter error (facts §7.4);
unpacking after the graph was freed raises the "backward through the graph a
second time" error; inference tensors cannot be saved at all (facts §7.3).
"""

from __future__ import annotations

import re

from ember._c10.tensor_impl import shape_text

_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
_INFERENCE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)
_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its "
    "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)

_TYPE_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
    "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
    "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor",
    "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor",
}  # fmt: skip


def tensor_type_name(tensor) -> str:
    """`ember.FloatTensor`: PyTorch's legacy type string, with ember's module name."""
    return "ember." + _TYPE_NAMES.get(tensor.dtype.name, "Tensor")


def node_short_name(node) -> str:
    """`AddBackward0` -> `Add`, `MyFnBackward` -> `MyFn` (facts §7.4)."""
    return re.sub(r"Backward\d*$", "", node.name())


class SavedVariable:
    __slots__ = ("_tensor", "_version", "_is_output", "_output_nr", "_producer", "_freed",
                 "_was_leaf")  # fmt: skip

    def __init__(self, tensor, is_output: bool = False) -> None:
        self._freed = False
        if tensor is None:
            self._tensor = None
            return
        if tensor._is_inference:
            raise RuntimeError(_INFERENCE)
        self._tensor = tensor
        counter = tensor._version_counter  # tensor._version, without the property
        self._version = 0 if counter is None else counter.version
        self._is_output = is_output
        self._output_nr = tensor._output_nr
        self._was_leaf = tensor._grad_fn is None
        # An output keeps its producer (named only if an error needs it); an input is
        # named by its grad_fn at unpack.
        self._producer = tensor._grad_fn if is_output else None

    def unpack(self, node=None):
        if self._freed:
            raise RuntimeError(_FREED)
        tensor = self._tensor
        if tensor is None:
            return None
        counter = tensor._version_counter
        current = 0 if counter is None else counter.version
        if current != self._version:
            raise RuntimeError(self._version_error(tensor, node, current))
        return tensor

    def _version_error(self, tensor, node, current: int) -> str:
        shape = shape_text(tensor._sizes)
        where = ""
        producer = self._producer
        name = None if producer is None else node_short_name(producer)
        if name is None and not self._is_output and tensor._grad_fn is not None:
            name = node_short_name(tensor._grad_fn)
        if name is not None:
            where = f", which is output {self._output_nr} of {name},"
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{tensor_type_name(tensor)} {shape}]{where} is at version "
            f"{current}; expected version {self._version} instead. {_HINT}"
        )

    def release(self) -> None:
        self._freed = True
        self._tensor = None
        self._producer = None  # a saved output's producer is the node holding it: no cycle
