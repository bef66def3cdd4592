"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp over autograd.grad.

Layer: autograd. Mirrors torch/autograd/functional.py: the user function runs
on fresh inputs that require grad (a detached copy, or a ``view_as`` where
``create_graph`` keeps the caller's graph), the products come from
``autograd.grad``, and the results lose their history unless ``create_graph``.
jvp and hvp use the double-backward trick (a backward over a backward whose
grad_outputs require grad), as PyTorch does. ``strict`` raises where an
output or a derivative does not depend on an input.

``vectorize=True`` runs autograd.grad with ``is_grads_batched`` and the
forward-mode strategy runs forward AD under vmap, as PyTorch does; they work
where those parts of ember do and raise their errors where not.
"""

from __future__ import annotations

from contextlib import nullcontext

from ember.aten._generated.python_functions import stack, zeros_like

from .api import grad as _grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _is_tensor(value) -> bool:
    from ember._tensor import Tensor

    return isinstance(value, Tensor)


def _as_tuple(value, arg_name: str, fn_name: str):
    """(was it a tuple, the tensors as a tuple), with PyTorch's TypeError for a non-tensor."""
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for i, item in enumerate(items):
        if not _is_tensor(item):
            where = f" value at index {i} has" if was_tuple else f" given {arg_name} has"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the{where} type {type(item)}."
            )
    return was_tuple, items


def _unpack(res, to_unpack):
    """Undo _as_tuple: one bool, or (outer, inner) for a tuple of tuples."""
    if isinstance(to_unpack, tuple):
        outer, inner = to_unpack
        if not inner:
            res = tuple(el[0] for el in res)
        if not outer:
            res = res[0]
        return res
    return res if to_unpack else res[0]


def _preprocess(tensors, create_graph: bool, need_graph: bool) -> tuple:
    """Always new tensor objects, so the function's captured tensors differ from its inputs."""
    out = []
    for t in tensors:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _postprocess(tensors, create_graph: bool) -> tuple:
    if create_graph:
        return tuple(tensors)
    if tensors and _is_tensor(tensors[0]):
        return tuple(t.detach() for t in tensors)
    return tuple(_postprocess(t, create_graph) for t in tensors)


def _validate_v(v, other, other_is_tuple: bool) -> None:
    if len(other) != len(v):
        if other_is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if other_is_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}."
            )


_INDEPENDENT = {
    "hessian": (
        "The hessian of the user-provided function with respect to input {i} is independent "
        "of the input. This is not allowed in strict mode. You should ensure that your "
        "function is thrice differentiable and that the hessian depends on the inputs."
    ),
    "jacobian": (
        "While computing the hessian, found that the jacobian of the user-provided function "
        "with respect to input {i} is independent of the input. This is not allowed in "
        "strict mode. You should ensure that your function is twice differentiable and that "
        "the jacobian depends on the inputs (this would be violated by a linear function for "
        "example)."
    ),
    "grad_inputs": (
        "The gradient with respect to input {i} is independent of the inputs of the "
        "user-provided function. This is not allowed in strict mode."
    ),
    "outputs": (
        "Output {i} of the user-provided function does not require gradients. The outputs "
        "must be computed in a differentiable manner from the input when running in strict "
        "mode."
    ),
}


def _check_requires_grad(tensors, kind: str, strict: bool) -> None:
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode."
            )
        if not t.requires_grad:
            raise RuntimeError(_INDEPENDENT[kind].format(i=i))


def _autograd_grad(
    outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None, batched=False
):
    """autograd.grad over the outputs that require grad (None for every input if none do)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return _grad(
        tuple(o for o, _ in kept),
        inputs,
        tuple(g for _, g in kept),
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
        is_grads_batched=batched,
    )


_ZERO_FILL = {
    "back": "The output of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. "
    "This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
    "{i} in the grad_jacobian. This is not allowed in strict mode as it prevents from using "
    "the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict: bool, create_graph: bool, stage: str) -> tuple:
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_FILL[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode when create_graph=True."
            )
        res.append(g)
    return tuple(res)


def _vector_v(v, against, against_is_tuple, create_graph, fn_name, none_message):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _preprocess(v, create_graph, need_graph=False)
        _validate_v(v, against, against_is_tuple)
        return v
    if len(against) != 1 or against[0].nelement() != 1:
        raise RuntimeError(none_message)
    return None


_V_NONE_INPUT = (
    "The vector v can only be None if the input to the user-provided function is a single "
    "Tensor with a single element."
)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J) with the function's outputs and the inputs' structure."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        v = _vector_v(
            v,
            outputs,
            outputs_tuple,
            create_graph,
            "vjp",
            "The vector v can only be None if the user-provided function returns a single "
            "Tensor with a single element.",
        )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _postprocess(outputs, create_graph)
    result = _postprocess(result, create_graph)
    return _unpack(outputs, outputs_tuple), _unpack(result, inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v) by the double-backward trick."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        v = _vector_v(v, inputs, inputs_tuple, create_graph, "jvp", _V_NONE_INPUT)
        outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jvp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True) if create_graph else nullcontext():
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _postprocess(outputs, create_graph)
    result = _postprocess(result, create_graph)
    return _unpack(outputs, outputs_tuple), _unpack(result, outputs_tuple)


def _jacobian_forward(func, inputs, strict, vectorize):
    if strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`strict=False` or `strategy="reverse-mode"`.'
        )
    _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`."
        )
    raise NotImplementedError(
        "torch.autograd.functional.jacobian(strategy='forward-mode', vectorize=True) runs "
        "forward AD under vmap; ember's autograd layer cannot call vmap (use "
        "torch.func.jacfwd)"
    )


def _jacobian_batched(outputs, inputs, create_graph):
    """vectorize=True: one autograd.grad with is_grads_batched over the standard basis."""
    numels = tuple(out.numel() for out in outputs)
    total = sum(numels)
    basis, start = [], 0
    for out, n in zip(outputs, numels):
        chunk = out.new_zeros(total, n)
        chunk.diagonal(start).fill_(1)
        start -= n
        basis.append(chunk)
    flat = tuple(out.reshape(-1) for out in outputs)
    vj = list(_autograd_grad(flat, inputs, tuple(basis), create_graph=create_graph, batched=True))
    for k, g in enumerate(vj):
        if g is None:
            vj[k] = zeros_like(inputs[k]).expand((total,) + tuple(inputs[k].shape))
    per_input = [
        [
            jac.view(tuple(out.shape) + tuple(inp.shape))
            for jac, out in zip(g.split(numels, 0), outputs)
        ]
        for g, inp in zip(vj, inputs)
    ]
    return tuple(tuple(col) for col in zip(*per_input))


_STRATEGY_HINT = (
    'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
    'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
    'prefer to use "reverse-mode".'
)


def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    """The Jacobian of func at inputs: one tensor per (output, input), of shape out + in."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(_STRATEGY_HINT)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        return _jacobian_forward(func, inputs, strict, vectorize)

    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize:
            if strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` "
                    "are not supported together. Please either set `strict=False` or "
                    "`vectorize=False`."
                )
            res = _jacobian_batched(outputs, inputs, create_graph)
            return _unpack(_postprocess(res, create_graph), (outputs_tuple, inputs_tuple))

        jac = []
        for i, out in enumerate(outputs):
            rows = tuple([] for _ in inputs)
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                vj = _autograd_grad(
                    (flat[j],), inputs, retain_graph=True, create_graph=create_graph
                )
                for k, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
                    if g is not None:
                        if strict and create_graph and not g.requires_grad:
                            raise RuntimeError(
                                "The jacobian of the user-provided function is independent of "
                                f"input {i}. This is not allowed in strict mode when "
                                "create_graph=True."
                            )
                        row.append(g)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode."
                            )
                        row.append(zeros_like(inp))
            jac.append(
                tuple(
                    stack(row, 0).view(tuple(out.size()) + tuple(inputs[k].size()))
                    for k, row in enumerate(rows)
                )
            )
        jac = _postprocess(tuple(jac), create_graph)
        return _unpack(jac, (outputs_tuple, inputs_tuple))


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """The Hessian of a scalar func: the jacobian of its jacobian."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        out = func(*inp)
        out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if out_tuple or not _is_tensor(out):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(single_output, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(
        jac_func,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _unpack(res, (inputs_tuple, inputs_tuple))


def _scalar_output(func, inputs, fn_name, strict):
    outputs_tuple, outputs = _as_tuple(
        func(*inputs), "outputs of the user-provided function", fn_name
    )
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple or not _is_tensor(outputs[0]):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )
    return outputs_tuple, outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar func."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        v = _vector_v(v, inputs, inputs_tuple, create_graph, "vhp", _V_NONE_INPUT)
        outputs_tuple, outputs = _scalar_output(func, inputs, "vhp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _postprocess(outputs, create_graph)
    result = _postprocess(result, create_graph)
    return _unpack(outputs, outputs_tuple), _unpack(result, inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar func, by the double-backward trick."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        v = _vector_v(v, inputs, inputs_tuple, create_graph, "hvp", _V_NONE_INPUT)
        outputs_tuple, outputs = _scalar_output(func, inputs, "hvp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _postprocess(outputs, create_graph)
    result = _postprocess(result, create_graph)
    return _unpack(outputs, outputs_tuple), _unpack(result, inputs_tuple)
