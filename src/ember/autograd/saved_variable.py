"""SavedVariable: a tensor a backward node keeps, with the version it had when saved.

Layer: autograd. Mirrors torch/csrc/autograd/saved_variable.{h,cpp}: unpacking
after an in-place change raises PyTorch's version-counter error (facts §7.4);
unpacking after the graph was freed raises the "backward through the graph a
second time" error; inference tensors cannot be saved at all (facts §7.3).

Note [Saved outputs]
--------------------
An output that its own node saves (relu's result, log_softmax's) would make a
reference cycle: node -> saved tensor -> its grad_fn -> node. As PyTorch does,
ember saves the output's tensor_data() (same storage, geometry and version
counter, no autograd metadata) and its grad_fn weakly, and each unpack makes a
fresh tensor whose grad_fn is that node, so double backward still flows through
it. With a dispatch mode active, or for a subclass with __torch_dispatch__
(whose wrapper holds its state in Python attributes), both copies are made by an
aten.detach the mode or the subclass sees, as in PyTorch. Inputs, and outputs without a grad_fn, are saved as they are.

Note [Saved tensors through hooks]
----------------------------------
Under saved_tensors_hooks (saved_tensor_hooks.py) a SavedVariable keeps only what the
innermost pack hook returned, called with the tensor itself (an output too) under
no_grad, plus the tensor's autograd metadata: its grad_fn (weakly for an output, see
above), output number, requires_grad, and a leaf's AccumulateGrad. A pack hook may not
change its input in place (the version counter is compared). Unpacking calls the
unpack hook and makes a fresh tensor over its result carrying that metadata, so the
gradient of a double backward still reaches the saved tensor's node or leaf. The
version check is skipped: hooks may return anything equal to what was saved
(saved_variable.cpp). Releasing drops the packed value, so a second backward raises
the "backward through the graph a second time" error as without hooks.
"""

from __future__ import annotations

import re
import weakref

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import key_bits
from ember._c10.naming import prefix
from ember._c10.tensor_impl import TensorImpl, make_view, shape_text
from ember._c10.thread_state import per_thread
from ember.aten.native import at

from .graph import grad_accumulator
from .saved_tensor_hooks import hook_state, pushed_anywhere
from .views import grad_fn_of

_PYTHON = key_bits(DispatchKey.Python)

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
_PACK_IN_PLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook."
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
    return prefix() + "." + _TYPE_NAMES.get(tensor.dtype.name, "Tensor")


def node_short_name(node) -> str:
    """`AddBackward0` -> `Add`, `MyFnBackward` -> `MyFn` (facts §7.4)."""
    return re.sub(r"Backward\d*$", "", node.name())


def _detach_in_python(tensor) -> bool:
    """TensorImpl::shallow_copy_and_detach asks Python when a dispatch mode is active or the
    tensor itself carries the Python key (a subclass with __torch_dispatch__), unless this
    thread excludes the Python key."""
    ts = per_thread.state
    return bool((ts.included | tensor._key_bits) & _PYTHON and not ts.excluded & _PYTHON)


def tensor_data(tensor):
    """TensorImpl::shallow_copy_and_detach: the same storage, geometry and version counter,
    no autograd metadata. Where PyTorch asks Python to make it (a dispatch mode, or a
    subclass with __torch_dispatch__, which keeps its Python state that way), the mode or
    subclass sees an aten.detach; the copy keeps the original's version counter."""
    if _detach_in_python(tensor):
        result = at.detach(tensor)
        if not tensor._is_inference and result is not tensor:
            result._version_counter = tensor.version_counter()
        return result
    data = make_view(tensor, tensor._sizes, tensor._strides, tensor._storage_offset)
    if tensor._functorch is not None:  # TensorWrapper's copy is a wrapper of the same value
        data._functorch = tensor._functorch
    return data


class SavedVariable:
    """A tensor a node keeps for its backward. See Note [Saved outputs]."""

    __slots__ = ("_tensor", "_version", "_is_output", "_output_nr", "_producer", "_freed",
                 "_was_leaf", "_hooked")  # fmt: skip

    def __init__(self, tensor, is_output: bool = False) -> None:
        self._freed = False
        self._producer = None
        self._hooked = None
        if tensor is None:
            self._tensor = None
            return
        if tensor._is_inference:
            raise RuntimeError(_INFERENCE)
        if pushed_anywhere[0]:  # saved_tensors_hooks is on in some thread: in this one?
            hooks = hook_state.stack
            if hooks and not tensor._is_wrapped_number:
                self._pack(tensor, is_output, hooks[-1])
                return
        counter = tensor._version_counter  # tensor._version, without the property
        self._version = 0 if counter is None else counter.version
        self._is_output = is_output
        self._output_nr = tensor._output_nr
        grad_fn = tensor._grad_fn
        self._was_leaf = grad_fn is None
        if is_output and grad_fn is not None:
            self._tensor = tensor_data(tensor)
            self._producer = weakref.ref(grad_fn)
        else:
            self._tensor = tensor

    def _pack(self, tensor, is_output: bool, hooks) -> None:
        """See Note [Saved tensors through hooks]."""
        pack_hook, unpack_hook = hooks
        self._tensor = None
        self._is_output = is_output
        self._output_nr = tensor._output_nr
        counter = tensor._version_counter
        self._version = 0 if counter is None else counter.version
        grad_fn = tensor._grad_fn if tensor._view_info is None else grad_fn_of(tensor)
        self._was_leaf = grad_fn is None
        source = None
        if grad_fn is not None:
            source = weakref.ref(grad_fn) if is_output else grad_fn
        elif tensor._requires_grad:
            source = weakref.ref(grad_accumulator(tensor))
        ts = per_thread.state
        previous, ts.grad_mode = ts.grad_mode, False
        try:
            packed = pack_hook(tensor)
        finally:
            ts.grad_mode = previous
        counter = tensor._version_counter
        if (0 if counter is None else counter.version) != self._version:
            raise RuntimeError(_PACK_IN_PLACE)
        self._hooked = (unpack_hook, packed, source, bool(tensor.requires_grad))

    def _unpack_hooked(self):
        unpack_hook, packed, source, requires_grad = self._hooked
        data = unpack_hook(packed)
        if not isinstance(data, TensorImpl):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result "
                f"of type {type(data).__name__}"
            )
        result = tensor_data(data)
        node = source() if isinstance(source, weakref.ref) else source
        if self._was_leaf:
            result._requires_grad = requires_grad
            if node is not None:
                result.__dict__["_grad_accumulator"] = node
            return result
        result._grad_fn = node
        result._requires_grad = True
        if self._output_nr:
            result._output_nr = self._output_nr
        return result

    def unpack(self, node=None):
        if self._freed:
            raise RuntimeError(_FREED)
        if self._hooked is not None:
            return self._unpack_hooked()
        tensor = self._tensor
        if tensor is None:
            return None
        counter = tensor._version_counter
        current = 0 if counter is None else counter.version
        if current != self._version:
            raise RuntimeError(self._version_error(tensor, node, current))
        if self._producer is None:
            return tensor
        grad_fn = self._producer()  # alive: it is the node that holds this saved variable
        unpacked = tensor_data(tensor)
        unpacked._grad_fn = grad_fn
        unpacked._requires_grad = grad_fn is not None
        if self._output_nr:
            unpacked._output_nr = self._output_nr
        return unpacked

    def _version_error(self, tensor, node, current: int) -> str:
        shape = shape_text(tensor._sizes)
        where = ""
        producer = self._producer() if self._producer is not None else None
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
        self._producer = None
        self._hooked = None
