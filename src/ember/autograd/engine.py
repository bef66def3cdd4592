"""The autograd engine: run a backward pass over the graph, dependency-counted.

Layer: autograd. In: root tensors with their gradients, and optionally the
inputs whose gradients are wanted. Out: gradients accumulated into leaves'
`.grad` (backward) or returned (grad). Mirrors torch/csrc/autograd/engine.cpp:
compute_dependencies, a ready queue ordered by sequence number (the node
created last runs first), InputBuffer accumulation, validate_outputs
(gradients summed back to the input's shape and cast to its dtype), hooks,
and freeing saved variables unless retain_graph.
"""

from __future__ import annotations

import heapq
import re

from ember._c10.tensor_impl import TensorImpl, shape_text
from ember._c10.thread_state import thread_state
from ember._c10.warning import torch_warn_once

from .formulas import sum_to
from .graph import AccumulateGrad, Node, gradient_edge
from .hooks import call_node_hooks, call_tensor_hooks
from .variable_type import GeneratedNode

_CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak."
)
_NOT_REQUIRING = "element {i} of tensors does not require grad and does not have a grad_fn"

# Note [The ready queue]
# ----------------------
# PyTorch's ready queue is a std::priority_queue ordered by sequence number alone (the
# node created last runs first). Every AccumulateGrad has the same number (UINT64_MAX),
# so among ready leaves the heap's own sifting decides, from the order they became
# ready. heapq sifts exactly as libstdc++'s push_heap / pop_heap do (with the order
# reversed for a min-heap) as long as ties compare equal: entries are (-seq, node), and
# AccumulateGrad's `__lt__` answers False, so a tie never falls through to anything else
# (such as id(), which would order leaves by memory address).


class GraphRoot(Node):
    """The node that feeds the root gradients into the graph."""

    def __init__(self, edges, grads) -> None:
        super().__init__()
        self.set_next_edges(edges)
        self._grads = grads

    def name(self) -> str:
        return "torch::autograd::GraphRoot"

    def apply(self, grads: list) -> tuple:
        return tuple(self._grads)


def _expandable(shape: tuple, target: tuple) -> bool:
    if len(shape) > len(target):
        return False
    for size, full in zip(reversed(shape), reversed(target)):
        if size != 1 and size != full:
            return False
    return True


def _counted(node: Node, grads):
    """The node's outputs as a list or tuple, one per edge (validate_outputs' count check)."""
    if grads.__class__ is not list and grads.__class__ is not tuple:
        grads = tuple(grads)
    if len(grads) != len(node._next_edges):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients (expected "
            f"{len(node._next_edges)}, got {len(grads)})"
        )
    return grads


def _conformed(node: Node | None, index: int, grad, metadata):
    """validate_outputs for one gradient whose shape, dtype or device is not the input's:
    summed back to the input's shape (when it broadcasts), cast to its dtype, and moved
    to its device when it is 0-dim. `node` None: a root gradient (no "Function" prefix)."""
    if grad._sizes != metadata.shape:
        if not _expandable(metadata.shape, grad._sizes):
            shape = shape_text(grad._sizes)
            expected = shape_text(metadata.shape)
            raise RuntimeError(
                _invalid(node, index, f"got {shape} but expected shape compatible with {expected}")
            )
        grad = sum_to(grad, metadata.shape)
    if grad.dtype is not metadata.dtype:
        grad = grad.to(metadata.dtype)
    if grad.device != metadata.device and not (
        metadata.is_tensor_subclass or grad._python_dispatch
    ):
        if grad._sizes:
            raise RuntimeError(
                _invalid(node, index, f"expected device {metadata.device} but got {grad.device}")
            )
        grad = grad.to(metadata.device)
    return grad


def _invalid(node: Node | None, index: int, what: str) -> str:
    message = f"invalid gradient at index {index} - {what}"
    return message if node is None else f"Function {node.name()} returned an {message}"


def _mismatch(grad, metadata) -> bool:
    return (
        grad._sizes != metadata.shape
        or grad.dtype is not metadata.dtype
        or grad.device is not metadata.device
    )


def _validate_roots(edges, grads) -> list:
    """validate_outputs on the root gradients, before anything runs (as Engine::execute)."""
    result = grads
    for index, ((target, nr), grad) in enumerate(zip(edges, grads)):
        if grad is None or target is None:
            continue
        metadata = target._input_metadata[nr]
        if _mismatch(grad, metadata):
            if result is grads:
                result = list(grads)  # copied only when a gradient changes
            result[index] = _conformed(None, index, grad, metadata)
    return result


# Note [Undefined tensors in formulas]
# A __torch_dispatch__ handler may return None for an operator that returns a Tensor (PyTorch
# hands C++ an undefined tensor). A derivatives.yaml formula that goes on computing with it
# meets PyTorch's check of the next operator's arguments; ember's formulas are Python, where
# the same step is a method or an operator on None.
_NONE_OPERAND = re.compile(r"unsupported operand type\(s\) for .*: '(\w+)' and '(\w+)'")


def undefined_tensor_error(node, error) -> RuntimeError | None:
    """PyTorch's error for a generated formula that met None where a Tensor was due, or
    None when `error` is something else (Note [Undefined tensors in formulas])."""
    if not isinstance(node, GeneratedNode):
        return None
    text = str(error)
    position = None
    if text.startswith("'NoneType' object has no attribute") or text.startswith(
        "bad operand type for unary"
    ):
        position = 0
    else:
        match = _NONE_OPERAND.match(text)
        if match is not None and "NoneType" in match.groups():
            position = 0 if match.group(1) == "NoneType" else 1
    if position is None:
        return None
    name = ("self", "other")[position]
    return RuntimeError(
        "Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument "
        f"#{position} '{name}'"
    )


def _validate_outputs(node: Node, grads) -> list:
    """validate_outputs for a node with post hooks (they see the validated gradients)."""
    result = []
    for index, (grad, (target, nr)) in enumerate(zip(_counted(node, grads), node._next_edges)):
        if grad is None or target is None:
            result.append(None)
            continue
        metadata = target._input_metadata[nr]
        if _mismatch(grad, metadata):
            grad = _conformed(node, index, grad, metadata)
        result.append(grad)
    return result


def _dependencies(root: Node) -> dict[Node, int]:
    counts: dict[Node, int] = {}  # (its keys are the nodes seen: the root is nobody's child)
    stack = [root]
    while stack:
        node = stack.pop()
        for child, _ in node._next_edges:
            if child is None:
                continue
            count = counts.get(child)
            if count is None:
                counts[child] = 1
                stack.append(child)
            else:
                counts[child] = count + 1
    return counts


def _needed(root: Node, targets: set[Node]) -> set[Node]:
    """Nodes on some path from `root` to a node in `targets` (exec_info)."""
    needed: set[Node] = set()
    memo: dict[Node, bool] = {}
    order = [(root, False)]
    while order:
        node, done = order.pop()
        if done:
            memo[node] = node in targets or any(
                memo.get(child, False) for child, _ in node._next_edges if child is not None
            )
            if memo[node]:
                needed.add(node)
            continue
        if node in memo:
            continue
        memo[node] = False
        order.append((node, True))
        for child, _ in node._next_edges:
            if child is not None and child not in memo:
                order.append((child, False))
    return needed


def _call_pre_hooks(node: Node, inputs: list) -> list:
    """call_tensor_pre_hooks then call_pre_hooks: the tensor hooks of each input (also of
    an undefined one, which they see as None), retains_grad, then the node's pre-hooks."""
    tensor_hooks = node.__dict__.get("_tensor_pre_hooks")
    if tensor_hooks:
        for nr, hooks in tensor_hooks.items():
            inputs[nr] = call_tensor_hooks(hooks.values(), inputs[nr])
    retains = node.__dict__.get("_retains_grad_hooks")
    if retains:
        for nr, hook in retains.items():
            if inputs[nr] is not None:
                hook(inputs[nr])
    if node._pre_hooks:
        inputs = list(call_node_hooks(node._pre_hooks, tuple(inputs)))
    return inputs


def _should_run(node: Node, needed, capture: dict, accumulate: bool) -> bool:
    """exec_info: with `inputs`, run only what leads to them; grad() never accumulates."""
    if needed is not None and node not in needed:
        return False
    if isinstance(node, AccumulateGrad):
        if not accumulate:
            return False
        return needed is None or (node, 0) in capture
    return True


def run_backward(
    roots,
    root_grads,
    *,
    keep_graph: bool,
    create_graph: bool,
    inputs=None,
    allow_unused: bool = False,
    accumulate: bool = True,
):
    """Execute the graph from `roots`; return captured gradients for `inputs` (if given)."""
    edges = []
    for i, tensor in enumerate(roots):
        edge = gradient_edge(tensor)
        if edge[0] is None:
            raise RuntimeError(_NOT_REQUIRING.format(i=i))
        edges.append(edge)
    root = GraphRoot(edges, _validate_roots(edges, root_grads))
    capture: dict[tuple, int] = {}
    needed = None
    if inputs is not None:
        targets = set()
        for position, tensor in enumerate(inputs):
            if not isinstance(tensor, TensorImpl):
                raise RuntimeError(
                    "all inputs have to be Tensors or GradientEdges, but got "
                    + type(tensor).__name__
                )
            if accumulate:  # backward(inputs=...) fills .grad of a non-leaf input too
                tensor.retain_grad()
            edge = gradient_edge(tensor)
            if edge[0] is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            capture.setdefault((edge[0], edge[1]), position)
            targets.add(edge[0])
        needed = _needed(root, targets)
    if accumulate and create_graph:  # Engine::execute, once per process (TORCH_WARN_ONCE)
        torch_warn_once(_CREATE_GRAPH_CYCLE, "torch/csrc/autograd/engine.cpp:1307")
    captured = [None] * (len(inputs) if inputs is not None else 0)
    dependencies = _dependencies(root)
    buffers: dict[Node, list] = {}
    ready = [(-root._seq, root)]  # See Note [The ready queue]
    ts = thread_state()
    previous_mode = ts.grad_mode
    ts.grad_mode = create_graph
    run_all = needed is None and accumulate
    try:
        while ready:
            node = heapq.heappop(ready)[1]
            inputs_of_node = buffers.pop(node, None)
            if inputs_of_node is None:
                inputs_of_node = [None] * len(node._input_metadata)
            found = node.__dict__
            if node._pre_hooks or "_tensor_pre_hooks" in found or "_retains_grad_hooks" in found:
                inputs_of_node = _call_pre_hooks(node, inputs_of_node)
            if capture:
                for nr, grad in enumerate(inputs_of_node):
                    position = capture.get((node, nr))
                    if position is not None:
                        captured[position] = grad
            edges = node._next_edges
            ran = run_all or _should_run(node, needed, capture, accumulate)
            hooked = ran and node._hooks
            try:
                if not ran:
                    outputs = [None] * len(edges)
                elif hooked:  # the post hooks see validated gradients, and have the last word
                    outputs = _validate_outputs(node, node.apply(inputs_of_node))
                    outputs = call_node_hooks(node._hooks, tuple(outputs), tuple(inputs_of_node))
                else:  # validate_outputs happens gradient by gradient, in the loop below
                    outputs = node.apply(inputs_of_node)
                    if not (
                        (outputs.__class__ is tuple or outputs.__class__ is list)
                        and len(outputs) == len(edges)
                    ):
                        outputs = _counted(node, outputs)  # (its check, or its conversion)
            except (AttributeError, TypeError) as error:
                undefined = undefined_tensor_error(node, error)
                if undefined is None:
                    raise
                raise undefined from None
            inputs_of_node = None
            for index, (child, nr) in enumerate(edges):
                if child is None:
                    continue
                grad = outputs[index]
                buffer = buffers.get(child)
                if buffer is None:
                    buffer = buffers[child] = [None] * len(child._input_metadata)
                if grad is not None:
                    metadata = child._input_metadata[nr]
                    mismatch = (
                        grad._sizes != metadata.shape
                        or grad.dtype is not metadata.dtype
                        or grad.device is not metadata.device
                    )
                    if mismatch and not hooked:
                        grad = _conformed(node, index, grad, metadata)
                    buffer[nr] = grad if buffer[nr] is None else buffer[nr] + grad
                remaining = dependencies[child] - 1
                dependencies[child] = remaining
                if remaining == 0:
                    heapq.heappush(ready, (-child._seq, child))
            # Only the input buffers may hold a gradient now: AccumulateGrad steals a
            # gradient nobody else references (see accumulate.py).
            outputs = grad = None
            if ran and not keep_graph:
                node.release_variables()  # after validation, which may raise (as PyTorch)
    finally:
        ts.grad_mode = previous_mode
    if inputs is not None and not allow_unused and not accumulate:
        for position, grad in enumerate(captured):
            if grad is None:
                raise RuntimeError(
                    f"The differentiated Tensor at index {position} appears to not have been "
                    "used in the graph. Set allow_unused=True if this is the desired behavior."
                )
    return captured
