"""A graph-capturing dispatch mode and opcheck's test_aot_dispatch_dynamic.

Layer: _library (imports autograd, _subclasses, utils._python_dispatch).
Mirrors what torch/testing/_internal/optests/aot_autograd.py checks with
AOTAutograd, without a compiler: forward and backward are traced once on
FakeTensors (their metadata must match the real run) and once under
``GraphCaptureMode``, which records each aten call below autograd as a node
(operator, arguments with tensors replaced by references to graph values).
In: an OpOverload and sample arguments. Out: nothing, or an AssertionError
saying whether outputs or gradients differ between eager and the replayed graph.

Note [Replaying a captured graph]
---------------------------------
Graph values are tensors: the flattened inputs (placeholders), and every
tensor an operator returned. A tensor that is neither (a constant made
outside any operator) is kept as it is. Replaying binds the placeholders to
new tensors and runs the nodes in order, so a backward that read input data
in Python (``.item()``, ``.tolist()``) and baked it into the trace gives
gradients that differ from eager on fresh inputs.
"""

from __future__ import annotations

from ember._tensor import Tensor
from ember.aten._generated.python_functions import randn
from ember.autograd.api import grad as autograd_grad
from ember.autograd.grad_mode import no_grad
from ember.utils._python_dispatch import TorchDispatchMode

__all__ = ["GraphCaptureMode", "Graph", "aot_dispatch_check"]

_OUTPUTS_MSG = (
    "Outputs of the operator are different in eager-mode PyTorch vs AOTDispatcher tracing. "
    "This means the operator will have incorrect output underneath torch.compile. This could "
    "be because the operator's implementation not traceable."
)
_GRADS_MSG = (
    "Gradients of the operator are different in eager-mode PyTorch vs AOTDispatcher. This "
    "means the operator will have incorrect gradients underneath torch.compile. This could be "
    "because the operator's backward is incorrectly registered or not traceable."
)


class _Ref:
    """A graph value: placeholder ``index`` or node output (``node``, ``path``)."""

    __slots__ = ("key",)

    def __init__(self, key) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"%{self.key}"


class Graph:
    """Placeholders, then (func, args, kwargs, out) nodes in execution order."""

    def __init__(self, placeholders: list) -> None:
        self.placeholders = placeholders
        self.nodes: list[tuple] = []
        self._values: dict[int, _Ref] = {id(t): _Ref(("in", i)) for i, t in enumerate(placeholders)}
        self._keep_alive: list = list(placeholders)

    def ref(self, value):
        """Arguments with graph tensors swapped for references (constants stay)."""
        if isinstance(value, Tensor):
            return self._values.get(id(value), value)
        if isinstance(value, (list, tuple)):
            return type(value)(self.ref(item) for item in value)
        return value

    def record(self, func, args, kwargs, out) -> None:
        index = len(self.nodes)
        self.nodes.append((func, self.ref(args), self.ref(kwargs), _shape_of(out)))
        for path, tensor in _tensors_with_paths(out):
            self._values[id(tensor)] = _Ref(("node", index, path))
            self._keep_alive.append(tensor)

    def output_refs(self, outputs):
        return self.ref(outputs)

    def replay(self, inputs: list, output_refs):
        """Run the nodes on new placeholder values; return ``output_refs`` resolved."""
        env: dict = {("in", i): value for i, value in enumerate(inputs)}

        def resolve(value):
            if isinstance(value, _Ref):
                return env[value.key]
            if isinstance(value, (list, tuple)):
                return type(value)(resolve(item) for item in value)
            if isinstance(value, dict):
                return {key: resolve(item) for key, item in value.items()}
            return value

        for index, (func, args, kwargs, _) in enumerate(self.nodes):
            out = func(*resolve(args), **resolve(kwargs))
            for path, tensor in _tensors_with_paths(out):
                env[("node", index, path)] = tensor
        return resolve(output_refs)


def _tensors_with_paths(value, path=()):
    if isinstance(value, Tensor):
        yield path, value
    elif isinstance(value, (list, tuple)):
        for position, item in enumerate(value):
            yield from _tensors_with_paths(item, (*path, position))


def _shape_of(value):
    return type(value).__name__


class GraphCaptureMode(TorchDispatchMode):
    """Records every operator call into ``self.graph`` while running it."""

    def __init__(self, placeholders: list) -> None:
        super().__init__()
        self.graph = Graph(placeholders)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        self.graph.record(func, args, kwargs, out)
        return out


# -- test_aot_dispatch_dynamic ---------------------------------------------------------------


def _flat_tensors(tree) -> list:
    if isinstance(tree, Tensor):
        return [tree]
    if isinstance(tree, (list, tuple)):
        return [t for item in tree for t in _flat_tensors(item)]
    if isinstance(tree, dict):
        return [t for item in tree.values() for t in _flat_tensors(item)]
    return []


def _rebuild(tree, replacements: dict):
    if isinstance(tree, Tensor):
        return replacements[id(tree)]
    if isinstance(tree, (list, tuple)):
        return type(tree)(_rebuild(item, replacements) for item in tree)
    if isinstance(tree, dict):
        return {key: _rebuild(item, replacements) for key, item in tree.items()}
    return tree


def _forwards_backwards(op, args, kwargs):
    """Outputs of ``op`` on clones of the inputs, and d(sum |outputs|)/d(inputs needing grad)."""
    diff = [t for t in _flat_tensors((args, kwargs)) if t.requires_grad]
    cloned = _rebuild((args, kwargs), {id(t): t.clone() for t in _flat_tensors((args, kwargs))})
    out = op(*cloned[0], **cloned[1])
    total = 0
    for tensor in _flat_tensors(out):
        total = total + tensor.sum().abs()
    if not diff or not isinstance(total, Tensor) or not total.requires_grad:
        return out, ()
    return out, autograd_grad(total, diff, allow_unused=True)


def _assert_close(actual, expected, message: str, rtol, atol) -> None:
    import numpy as np

    actual_flat, expected_flat = _flat_or_none(actual), _flat_or_none(expected)
    if len(actual_flat) != len(expected_flat):
        raise AssertionError(message)
    for a, e in zip(actual_flat, expected_flat):
        if (a is None) != (e is None):
            raise AssertionError(message)
        if a is None:
            continue
        if a.shape != e.shape or a.dtype != e.dtype:
            raise AssertionError(message)
        tolerance = {} if rtol is None else {"rtol": rtol, "atol": atol}
        if not np.allclose(a.detach().numpy(), e.detach().numpy(), equal_nan=True, **tolerance):
            raise AssertionError(message)


def _flat_or_none(tree) -> list:
    if isinstance(tree, (list, tuple)):
        return [x for item in tree for x in _flat_or_none(item)]
    return [tree] if tree is None or isinstance(tree, Tensor) else []


def _fresh(tensor: Tensor) -> Tensor:
    """Same metadata and requires_grad, new random values for floating tensors."""
    result = tensor.detach().clone()
    if tensor.dtype.is_floating_point:
        with no_grad():
            result.copy_(randn(tuple(tensor.shape), dtype=tensor.dtype))
    result.requires_grad = tensor.requires_grad
    return result


def _metadata(tree) -> list:
    return [None if t is None else (tuple(t.shape), t.dtype) for t in _flat_or_none(tree)]


def _check_fake_trace(op, args, kwargs, real_out, real_grads) -> None:
    """Trace again on FakeTensors (as AOTAutograd does): metadata must match the real run."""
    from ember._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode(allow_non_fake_inputs=True) as fake_mode:  # constants may be real
        replacements = {id(t): fake_mode.from_tensor(t) for t in _flat_tensors((args, kwargs))}
        fake_args, fake_kwargs = _rebuild((args, kwargs), replacements)
        fake_out, fake_grads = _forwards_backwards(op, fake_args, fake_kwargs)
    if _metadata(fake_out) != _metadata(real_out):
        raise AssertionError(
            f"{_OUTPUTS_MSG} (traced output metadata {_metadata(fake_out)} != eager "
            f"{_metadata(real_out)})"
        )
    if _metadata(fake_grads) != _metadata(real_grads):
        raise AssertionError(
            f"{_GRADS_MSG} (traced gradient metadata {_metadata(fake_grads)} != eager "
            f"{_metadata(real_grads)})"
        )


def aot_dispatch_check(op, args, kwargs, *, rtol=None, atol=None, **_):
    """Trace forward + backward, replay on the same and on fresh inputs, compare with eager."""
    inputs = _flat_tensors((args, kwargs))
    if any(t.device.type == "meta" or getattr(t, "_python_dispatch", False) for t in inputs):
        return
    with GraphCaptureMode(inputs) as mode:
        traced_out, traced_grads = _forwards_backwards(op, args, kwargs)
    _check_fake_trace(op, args, kwargs, traced_out, traced_grads)
    graph = mode.graph
    output_refs = graph.output_refs((traced_out, tuple(traced_grads)))
    for attempt in ("same", "fresh"):
        new_inputs = [t if attempt == "same" else _fresh(t) for t in inputs]
        new_args, new_kwargs = _rebuild((args, kwargs), dict(zip(map(id, inputs), new_inputs)))
        eager_out, eager_grads = _forwards_backwards(op, new_args, new_kwargs)
        replay_out, replay_grads = graph.replay([t.detach() for t in new_inputs], output_refs)
        _assert_close(replay_out, eager_out, _OUTPUTS_MSG, rtol, atol)
        _assert_close(replay_grads, tuple(eager_grads), _GRADS_MSG, rtol, atol)
