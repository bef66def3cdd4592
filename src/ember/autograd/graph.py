"""The autograd graph: Node, edges, AccumulateGrad, and how outputs join the graph.

Layer: autograd. In: tensors produced by autograd kernels. Out: backward
nodes linked by `next_functions` edges. Mirrors torch/csrc/autograd/function.h
(Node, Edge, sequence numbers), input_metadata.h, functions/accumulate_grad.h
and VariableTypeUtils.h (set_history, collect_next_edges).

Note [Autograd metadata on tensors]
-----------------------------------
A tensor's autograd state lives on its TensorImpl: `_requires_grad` (True
for a leaf that asked for it and for every output given a grad_fn) and
`_grad_fn` in slots; `_output_nr` (which output of `_grad_fn` it was),
`_grad`, `_retains_grad` and `_backward_hooks` as class-level defaults that a
tensor overrides only when they change. A leaf that requires grad gets
one AccumulateGrad node, created on first use and cached on the tensor
(weakly held from the tensor side is not needed in Python: the graph holds
it). So `requires_grad` is one slot read on the hot path.
"""

from __future__ import annotations

import itertools

from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import key_bits
from ember._c10.thread_state import per_thread

from .accumulate import accumulate_grad
from .saved_tensor_hooks import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks
from .views import grad_fn_of

__all__ = [
    "Node",
    "AccumulateGrad",
    "InputMetadata",
    "gradient_edge",
    "collect_next_edges",
    "set_history",
    "any_requires_grad",
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
]

_sequence = itertools.count()
_PYTHON = key_bits(DispatchKey.Python)


class InputMetadata:
    """Shape, dtype and device a gradient flowing into a node must have; whether the tensor
    was a subclass with __torch_dispatch__ (its gradients may live on another device)."""

    __slots__ = ("shape", "dtype", "device", "_key_bits")
    is_nested = False
    was_default_constructed = False  # see custom_function.UndefinedInput

    def __init__(self, tensor) -> None:
        self.shape = tensor._sizes
        self.dtype = tensor.dtype
        self.device = tensor.device
        self._key_bits = tensor._key_bits  # a slot read: the class attribute costs more

    @property
    def is_tensor_subclass(self) -> bool:
        return bool(self._key_bits & _PYTHON)

    def __repr__(self) -> str:
        return f"InputMetadata({list(self.shape)}, {self.dtype}, {self.device})"


class Node:
    """A backward function: maps gradients of its forward outputs to gradients of its inputs."""

    _seq: int  # the sequence number (PyTorch's Python face reads it as _sequence_nr())
    # Hooks are rare: a node gets its own lists on the first registration.
    _pre_hooks: list | tuple = ()
    _hooks: list | tuple = ()
    _released = False

    def __init__(self) -> None:
        self._seq = next(_sequence)  # one C call: atomic under the GIL
        self._next_edges: tuple = ()
        self._input_metadata: list[InputMetadata] = []

    @property
    def metadata(self) -> dict:
        """A dict for the user's own annotations (made on first access)."""
        return self.__dict__.setdefault("_metadata", {})

    # -- what PyTorch's Python face shows ---------------------------------------
    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        return tuple((node, nr) if node is not None else (None, 0) for node, nr in self._next_edges)

    def _sequence_nr(self) -> int:
        return self._seq

    def register_hook(self, hook):
        """hook(grad_inputs, grad_outputs) -> new grad_inputs or None, after apply."""
        hooks = self.__dict__.setdefault("_hooks", [])
        hooks.append(hook)
        return _RemovableHandle(hooks, hook)

    def register_prehook(self, hook):
        """hook(grad_outputs) -> new grad_outputs or None, before apply."""
        hooks = self.__dict__.setdefault("_pre_hooks", [])
        hooks.append(hook)
        return _RemovableHandle(hooks, hook)

    def __call__(self, *grads):
        return self.apply(list(grads))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    # -- graph building -----------------------------------------------------------
    def set_next_edges(self, edges) -> None:
        self._next_edges = tuple(edges)

    def add_input_metadata(self, tensor) -> int:
        self._input_metadata.append(InputMetadata(tensor))
        return len(self._input_metadata) - 1

    def should_compute_output(self, index: int) -> bool:
        return self._next_edges[index][0] is not None

    def any_output_needed(self, start: int, count: int) -> bool:
        return any(self.should_compute_output(i) for i in range(start, start + count))

    @property
    def num_outputs(self) -> int:
        return len(self._next_edges)

    # -- running ------------------------------------------------------------------
    def apply(self, grads: list) -> tuple:  # pragma: no cover - every node overrides it
        raise NotImplementedError(f"{self.name()}.apply")

    def release_variables(self) -> None:
        """Free saved tensors after a backward pass that does not retain the graph."""
        self._released = True


class _RemovableHandle:
    __slots__ = ("_hooks", "_hook")

    def __init__(self, hooks: list, hook) -> None:
        self._hooks = hooks
        self._hook = hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class AccumulateGrad(Node):
    """The sink for a leaf that requires grad: adds incoming gradients into `.grad`."""

    def __init__(self, variable) -> None:
        super().__init__()
        # UINT64_MAX, as in PyTorch: a ready AccumulateGrad runs before any other node
        self._seq = 2**64 - 1
        self.variable = variable
        self._input_metadata = [InputMetadata(variable)]

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __lt__(self, other) -> bool:
        return False  # ties in the engine's ready queue: See Note [The ready queue]

    def apply(self, grads: list) -> tuple:
        grad = grads[0]
        grads[0] = None  # the engine's buffer lets go, so the gradient can be stolen
        accumulate_grad(self.variable, grad, stealable=True)
        return ()


def grad_accumulator(tensor) -> AccumulateGrad:
    node = tensor.__dict__.get("_grad_accumulator")
    if node is None:
        node = AccumulateGrad(tensor)
        tensor.__dict__["_grad_accumulator"] = node
    return node


def gradient_edge(tensor) -> tuple:
    """(node, input_nr) a gradient for `tensor` flows into; (None, 0) when it needs none."""
    if tensor is None or not tensor._requires_grad:
        return (None, 0)
    grad_fn = tensor._grad_fn if tensor._view_info is None else grad_fn_of(tensor)
    if grad_fn is not None:
        return (grad_fn, tensor._output_nr)
    return (grad_accumulator(tensor), 0)


def collect_next_edges(*tensors) -> list:
    edges = []
    for tensor in tensors:
        if isinstance(tensor, (list, tuple)):
            edges.extend(gradient_edge(t) for t in tensor)
        else:
            edges.append(gradient_edge(tensor))
    return edges


def any_requires_grad(*tensors) -> bool:
    """Record a node? Only with grad mode on and some input that requires grad."""
    if not per_thread.state.grad_mode:
        return False
    for tensor in tensors:
        if tensor is None:
            continue
        if isinstance(tensor, (list, tuple)):
            if any(t is not None and t._requires_grad for t in tensor):
                return True
        elif tensor._requires_grad:
            return True
    return False


def set_history(outputs, grad_fn: Node) -> None:
    """Make each differentiable output an output of `grad_fn` (in order)."""
    if not isinstance(outputs, (list, tuple)):
        outputs = (outputs,)
    for output in outputs:
        if output is None:
            continue
        if not (output.dtype.is_floating_point or output.dtype.is_complex):
            grad_fn.add_input_metadata(output)  # keeps output numbering; never differentiable
            continue
        output._output_nr = grad_fn.add_input_metadata(output)
        output._grad_fn = grad_fn
        output._requires_grad = True
