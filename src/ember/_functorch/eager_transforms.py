"""torch.func's autograd transforms: grad, grad_and_value, vjp, jacrev (and jvp, jacfwd, hessian).

Layer: _functorch. Mirrors torch/_functorch/eager_transforms.py and apis.py. Each
reverse-mode transform pushes a Grad layer (grad_interpreter), wraps its
arguments as GradTrackingTensors of that level, makes the differentiated ones
require grad, runs the function, calls autograd.grad (create_graph=True) on the
wrappers, and unwraps the results: a result requires grad only where the caller's
own tensors did (the level below recorded it). jacrev is vmap over vjp's vjp_fn
with the standard basis as cotangents, in chunks of ``chunk_size``.
"""

from __future__ import annotations

import functools
from contextlib import nullcontext

from .._c10.thread_state import per_thread
from .._tensor import Tensor
from ..aten._generated.python_functions import cat, zeros_like
from ..autograd import forward_ad
from ..autograd.api import grad as _autograd_grad_api
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..autograd.variable import functorch_tls
from ..utils._pytree import tree_flatten, tree_map, tree_map_, tree_unflatten, treespec_pprint
from .dynamic_layer import top
from .grad_interpreter import grad_increment_nesting, jvp_increment_nesting
from .tensor_wrapper import make_tensor_wrapper, unwrap_for_grad
from .vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jacrev", "jvp", "jacfwd", "hessian"]


# -- argnums ---------------------------------------------------------------------------


def _validate_argnum(argnum, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def slice_argnums(args: tuple, argnums, as_tuple: bool = True):
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        i = _validate_argnum(argnums, len(args))
        return (args[i],) if as_tuple else args[i]
    argnums = tuple(_validate_argnum(a, len(args)) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(args[i] for i in argnums)


# -- wrapping at a level ---------------------------------------------------------------


def wrap_all(tree, level: int):
    interp = top()
    return tree_map(
        lambda t: make_tensor_wrapper(t, level, interp) if isinstance(t, Tensor) else t, tree
    )


def _create_differentiable(tree):
    def make(x):
        if isinstance(x, Tensor):
            functorch_tls.inplace_requires_grad_allowed = True  # enable_inplace_requires_grad
            try:
                return x.requires_grad_()
            finally:
                functorch_tls.inplace_requires_grad_allowed = saved
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")

    saved = functorch_tls.inplace_requires_grad_allowed
    return tree_map(make, tree)


def undo_create_differentiable(tree, level: int):
    def unwrap(x):
        if isinstance(x, Tensor):
            return unwrap_for_grad(x, level)
        if isinstance(x, tuple):
            return tree_map(unwrap, tuple(x))
        raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")

    return tree_map(unwrap, tree)


def _grads(outputs, inputs, grad_outputs=None, retain_graph=False, create_graph=True):
    """autograd.grad over the outputs that require grad; zeros where an input is unused."""
    if grad_outputs is None:
        diff = tuple(o for o in outputs if o.requires_grad)
    else:
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
        diff = tuple(o for o, _ in pairs)
        grad_outputs = tuple(g for _, g in pairs)
    if not diff:
        return tuple(zeros_like(i) for i in inputs)
    res = _autograd_grad_api(diff, inputs, grad_outputs, retain_graph=retain_graph,
                             create_graph=create_graph, allow_unused=True)  # fmt: skip
    return tuple(zeros_like(i) if g is None else g for g, i in zip(res, inputs))


# -- grad / grad_and_value -------------------------------------------------------------

_GV = "grad_and_value(f)(*args): "


def grad_and_value_impl(func, argnums, has_aux: bool, args: tuple, kwargs: dict):
    with grad_increment_nesting() as level, enable_grad():
        args = wrap_all(args, level)
        kwargs = wrap_all(kwargs, level)
        diff_args = slice_argnums(args, argnums, as_tuple=False)
        tree_map_(_create_differentiable, diff_args)
        output = func(*args, **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(
                    _GV + "output of function f should be a tuple: (output, aux) if has_aux is True"
                )
            output, aux = output
        if not isinstance(output, Tensor):
            raise RuntimeError(_GV + f"Expected f(*args) to return a Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError(
                _GV + "Expected f(*args) to return a scalar Tensor, got tensor with "
                f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
            )
        flat_diff, spec = tree_flatten(diff_args)
        flat_grads = _grads((output,), flat_diff, create_graph=True)
        grad_input = undo_create_differentiable(tree_unflatten(list(flat_grads), spec), level)
        output = undo_create_differentiable(output, level)
        if has_aux:
            aux = undo_create_differentiable(aux, level)
            return grad_input, (output, aux)
        return grad_input, output


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """torch.func.grad_and_value: (gradient w.r.t. argnums, value)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return grad_and_value_impl(func, argnums, has_aux, args, kwargs)

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """torch.func.grad: the gradient of a scalar function w.r.t. argnums."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = grad_and_value_impl(func, argnums, has_aux, args, kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


# -- vjp -------------------------------------------------------------------------------


def _check_outputs(flat_out, api: str) -> None:
    if len(flat_out) == 0:
        raise RuntimeError(
            f"{api}: Expected f to be a function that has non-empty output (got output = "
            f"{flat_out})"
        )
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(
                f"{api}: expected f(*primals) to return only tensors, got unsupported type "
                f"{type(o)}"
            )


def vjp_with_argnums(func, *primals, argnums=None, has_aux: bool = False):
    with grad_increment_nesting() as level:
        with enable_grad():
            primals = wrap_all(primals, level)
            if argnums is None:
                diff_primals = _create_differentiable(primals)
            else:
                diff_primals = slice_argnums(primals, argnums, as_tuple=False)
                tree_map_(_create_differentiable, diff_primals)
            primals_out = func(*primals)
            aux = None
            if has_aux:
                if not (isinstance(primals_out, tuple) and len(primals_out) == 2):
                    raise RuntimeError(
                        "vjp(f, *primals): output of function f should be a tuple: (output, "
                        "aux) if has_aux is True"
                    )
                primals_out, aux = primals_out
                aux = undo_create_differentiable(aux, level)
            flat_out, out_spec = tree_flatten(primals_out)
            _check_outputs(flat_out, "vjp(f, *primals)")
            flat_diff, primals_spec = tree_flatten(diff_primals)
            results = undo_create_differentiable(primals_out, level)
            for o in flat_out:
                if not (o.is_floating_point() or o.is_complex()):
                    raise RuntimeError(
                        "vjp(f, ...): All outputs of f must be floating-point or complex "
                        f"Tensors, got Tensor with dtype {o.dtype}"
                    )

        def vjp_fn(cotangents, retain_graph=True, create_graph=None):
            if create_graph is None:
                create_graph = is_grad_enabled()
            flat_cot, cot_spec = tree_flatten(cotangents)
            if out_spec != cot_spec:
                raise RuntimeError(
                    "Expected pytree structure of cotangents to be the same as pytree "
                    "structure of outputs to the function. cotangents: "
                    f"{treespec_pprint(cot_spec)}, primal output: {treespec_pprint(out_spec)}"
                )
            res = _grads(flat_out, flat_diff, flat_cot, retain_graph=retain_graph,
                         create_graph=create_graph)  # fmt: skip
            return tree_unflatten(list(res), primals_spec)

    if has_aux:
        return results, vjp_fn, aux
    return results, vjp_fn


def vjp(func, *primals, has_aux: bool = False):
    """torch.func.vjp: (func(*primals), vjp_fn[, aux])."""
    return vjp_with_argnums(func, *primals, has_aux=has_aux)


# -- jacrev ----------------------------------------------------------------------------


def error_if_complex(name: str, args, is_input: bool) -> None:
    flat, _ = tree_flatten(args)
    for idx, a in enumerate(flat):
        if isinstance(a, Tensor) and a.dtype.is_complex:
            kind = "inputs" if is_input else "outputs"
            raise RuntimeError(
                f"{name}: Expected all {kind} to be real but received complex tensor at "
                f"flattened input idx: {idx}"
            )


def _chunk_sizes(total: int, chunk_size):
    if chunk_size and chunk_size < total:
        sizes = [chunk_size] * (total // chunk_size)
        if total % chunk_size:
            sizes.append(total % chunk_size)
        return chunk_size, sizes
    return total, [total]


def chunked_standard_basis(tensors, numels, chunk_size=None):
    """One tuple per chunk: for each tensor, rows of the identity over all the numels."""
    total = sum(numels)
    chunk_size, sizes = _chunk_sizes(total, chunk_size)
    starts, s = [], 0
    for n in numels:
        starts.append(s)
        s -= n
    for idx, rows in enumerate(sizes):
        chunks = tuple(t.new_zeros(rows, n) for t, n in zip(tensors, numels))
        for chunk, start in zip(chunks, starts):
            chunk.diagonal(start + idx * chunk_size).fill_(1)
        yield tuple(c.view(rows, *t.shape) for c, t in zip(chunks, tensors))


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """torch.func.jacrev: the Jacobian by vmap over vjp_fn, the basis rows as cotangents."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        error_if_complex("jacrev", args, is_input=True)
        out = vjp_with_argnums(func, *args, argnums=argnums, has_aux=has_aux)
        output, vjp_fn = out[0], out[1]
        flat_output, output_spec = tree_flatten(output)
        error_if_complex("jacrev", flat_output, is_input=False)
        numels = tuple(o.numel() for o in flat_output)
        primals = slice_argnums(args, argnums)
        flat_primals, primals_spec = tree_flatten(primals)
        chunked = []
        for basis_chunk in chunked_standard_basis(flat_output, numels, chunk_size):
            if chunk_size == 1:
                basis_chunk = tuple(t.squeeze(0) for t in basis_chunk)
            basis = tree_unflatten(list(basis_chunk), output_spec)
            res = vjp_fn(basis) if chunk_size == 1 else vmap(vjp_fn)(basis)
            flat_res, _ = tree_flatten(res)
            if chunk_size == 1:
                flat_res = [t.unsqueeze(0) for t in flat_res]
            chunked.append(flat_res)
        if len(chunked) == 1:
            per_input = chunked[0]
        elif _preallocate_and_copy:  # the chunks copied into one zero tensor per primal
            per_input = [p.new_zeros(sum(numels), *p.shape) for p in flat_primals]
            for idx, chunk in enumerate(chunked):
                for r, dest in zip(chunk, per_input):
                    dest[idx * chunk_size : (idx + 1) * chunk_size].copy_(r)
        else:
            per_input = [cat([c[i] for c in chunked], 0) for i in range(len(flat_primals))]
        per_input = [r.split(list(numels), 0) for r in per_input]
        in_out = [
            tuple(s.view(tuple(o.shape) + tuple(p.shape)) for s, o in zip(splits, flat_output))
            for splits, p in zip(per_input, flat_primals)
        ]
        out_in = tuple(tree_unflatten(list(col), primals_spec) for col in zip(*in_out))
        if isinstance(argnums, int):
            out_in = tuple(x[0] for x in out_in)
        result = tree_unflatten(list(out_in), output_spec)
        return (result, out[2]) if has_aux else result

    return wrapper


# -- jvp / jacfwd / hessian (forward mode) ---------------------------------------------

_JVP = "jvp(f, primals, tangents)"
_jvp_nesting = [0]  # JVP_NESTING: only the outermost jvp enters a dual level


def _check_tensor_list(flat, argname: str) -> None:
    if len(flat) == 0:
        raise RuntimeError(f"{_JVP}: Expected {argname} to contain at least one Tensor.")
    for out in flat:
        if not isinstance(out, Tensor):
            raise RuntimeError(
                f"{_JVP}: Expected {argname} to only contain Tensors, got {type(out)}"
            )


def _unpack(dual, strict: bool):
    if not isinstance(dual, Tensor):
        raise RuntimeError(
            f"{_JVP}: expected f(*args) to return only tensors, got unsupported type {type(dual)}"
        )
    primal, tangent = forward_ad.unpack_dual(dual)
    if tangent is None:
        if strict:
            raise RuntimeError(
                "jvp(f, primals, tangents, strict=True): The output of f is independent of the "
                "inputs. This is not allowed with strict=True."
            )
        tangent = zeros_like(primal)
    return primal, tangent


def jvp_with_argnums(func, primals, tangents, argnums, *, strict=False, has_aux: bool):
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    diff_args = primals if argnums is None else slice_argnums(primals, argnums)
    flat_primals, primals_spec = tree_flatten(diff_args)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            f"{_JVP}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {primals_spec} and tangents with structure {tangents_spec}"
        )
    _check_tensor_list(flat_primals, "primals")
    _check_tensor_list(flat_tangents, "tangents")
    state = per_thread.state
    with jvp_increment_nesting() as level:
        _jvp_nesting[0] += 1
        saved_fw = state.fw_grad_mode
        state.fw_grad_mode = True
        try:
            ctx = forward_ad.dual_level if _jvp_nesting[0] == 1 else nullcontext
            with ctx():
                # _make_dual runs at this level in PyTorch: both are wrapped here first (a
                # primal that is already dual at an outer jvp is a fresh tensor here)
                flat_primals = wrap_all(flat_primals, level)
                flat_tangents = wrap_all(flat_tangents, level)
                duals = tuple(
                    forward_ad.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)
                )
                duals = tree_unflatten(list(duals), primals_spec)
                if argnums is not None:
                    primals = wrap_all(primals, level)
                    duals = replace_args(primals, duals, argnums)
                result = func(*duals)
                aux = None
                if has_aux:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            f"{_JVP}: output of function f should be a tuple: (output, aux) if "
                            "has_aux is True"
                        )
                    result, aux = result
                    aux = undo_create_differentiable(aux, level)
                flat_result, spec = tree_flatten(result)
                _check_outputs(flat_result, _JVP)
                pairs = [_unpack(d, strict) for d in flat_result]
                primals_out = [undo_create_differentiable(p, level) for p, _ in pairs]
                tangents_out = [undo_create_differentiable(t, level) for _, t in pairs]
                out = (tree_unflatten(primals_out, spec), tree_unflatten(tangents_out, spec))
                return out + (aux,) if has_aux else out
        finally:
            state.fw_grad_mode = saved_fw
            _jvp_nesting[0] -= 1


def replace_args(old_args: tuple, new_args, argnums) -> tuple:
    if isinstance(argnums, int):
        return tuple(new_args[0] if i == argnums else a for i, a in enumerate(old_args))
    return tuple(new_args[argnums.index(i)] if i in argnums else a for i, a in enumerate(old_args))


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """torch.func.jvp: (func(*primals), the Jacobian-vector product with tangents)."""
    return jvp_with_argnums(func, primals, tangents, argnums=None, strict=strict, has_aux=has_aux)


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """torch.func.jacfwd: the Jacobian by vmap over jvp, the basis rows as tangents."""

    @functools.wraps(func)
    def wrapper(*args):
        error_if_complex("jacfwd", args, is_input=True)
        primals = args if argnums is None else slice_argnums(args, argnums)
        flat_primals, primals_spec = tree_flatten(primals)
        numels = tuple(p.numel() for p in flat_primals)
        flat_basis = next(chunked_standard_basis(flat_primals, numels))
        basis = tree_unflatten(list(flat_basis), primals_spec)

        def push_jvp(basis):
            out = jvp_with_argnums(func, args, basis, argnums=argnums, has_aux=has_aux)
            error_if_complex("jacfwd", out[0], is_input=False)
            return (out[1], out[2]) if has_aux else out[1]

        results = vmap(push_jvp, randomness=randomness)(basis)
        aux = None
        if has_aux:
            results, aux = results
            flat_aux, aux_spec = tree_flatten(aux)
            aux = tree_unflatten([v[0] for v in flat_aux], aux_spec)
        jac_outs, spec = tree_flatten(results)
        jac_outs_ins = tuple(
            tree_unflatten(
                [
                    piece.unflatten(-1, tuple(p.shape)) if p.dim() else piece.squeeze(-1)
                    for p, piece in zip(flat_primals, j.movedim(0, -1).split(list(numels), -1))
                ],
                primals_spec,
            )
            for j in jac_outs
        )
        if isinstance(argnums, int):
            jac_outs_ins = tuple(j[0] for j in jac_outs_ins)
        result = tree_unflatten(list(jac_outs_ins), spec)
        return (result, aux) if has_aux else result

    return wrapper


def hessian(func, argnums=0):
    """torch.func.hessian: jacfwd(jacrev(func)) (forward-over-reverse)."""
    return jacfwd(jacrev(func, argnums), argnums)
