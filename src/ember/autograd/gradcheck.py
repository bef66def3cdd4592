"""gradcheck / gradgradcheck: analytical gradients against central finite differences.

Layer: autograd. In: a function and its inputs (float64 for a meaningful
check). Out: True, or GradcheckError with the numerical and analytical
Jacobians. Mirrors torch/autograd/gradcheck.py (slow mode), with its
signatures and defaults.
"""

from __future__ import annotations

import warnings

import numpy as np

from ember._tensor_ctors import from_numpy
from ember.aten._generated.python_functions import zeros

from .api import grad as autograd_grad


class GradcheckError(RuntimeError):
    """Raised when the analytical and numerical Jacobians differ."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _is_tensor(x) -> bool:
    from ember._tensor import Tensor

    return isinstance(x, Tensor)


def _differentiable_outputs(outputs) -> list:
    return [o for o in outputs if _is_tensor(o) and o.requires_grad]


def _numerical_jacobian(func, inputs, index: int, outputs, eps: float) -> list[np.ndarray]:
    """One (numel(input), numel(output)) matrix per output, by central differences."""
    target = inputs[index]
    array = target.ndarray()
    n_in = target.numel()
    columns = [np.zeros((n_in, o.numel()), dtype=np.float64) for o in outputs]
    for k in range(n_in):
        position = np.unravel_index(k, array.shape) if array.ndim else ()
        original = array[position].copy()
        array[position] = original + eps  # written under autograd: no version bump
        plus = [o.detach().ndarray().copy() for o in _selected(func(*inputs), outputs)]
        array[position] = original - eps
        minus = [o.detach().ndarray().copy() for o in _selected(func(*inputs), outputs)]
        array[position] = original
        for j, (p, m) in enumerate(zip(plus, minus)):
            columns[j][k] = ((p.astype(np.float64) - m.astype(np.float64)) / (2 * eps)).ravel()
    return columns


def _selected(result, outputs) -> list:
    result = _as_tuple(result)
    return [o for o in result if _is_tensor(o) and (o.dtype.is_floating_point)][: len(outputs)]


def _analytical_jacobian(inputs, outputs, diff_inputs) -> list[list[np.ndarray]]:
    """[output][input] matrices (numel(input), numel(output)) via one grad() per element."""
    result = [[np.zeros((t.numel(), o.numel())) for t in diff_inputs] for o in outputs]
    for j, out in enumerate(outputs):
        for e in range(out.numel()):
            seed = zeros(out.numel(), dtype=out.dtype)
            seed[e] = 1
            seed = seed.view(list(out.shape))
            grads = autograd_grad(out, diff_inputs, seed, retain_graph=True, allow_unused=True)
            for i, g in enumerate(grads):
                if g is not None:
                    result[j][i][:, e] = g.detach().ndarray().astype(np.float64).ravel()
    return result


def _format(matrix: np.ndarray):
    return from_numpy(np.ascontiguousarray(matrix))


def gradcheck(
    func,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked=None,
) -> bool:
    """Check the gradients of `func` at `inputs` against finite differences."""
    inputs = _as_tuple(inputs)
    diff_positions = [i for i, t in enumerate(inputs) if _is_tensor(t) and t.requires_grad]
    if not diff_positions:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the them have requires_grad=True."
        )  # noqa: E501
    for i in diff_positions:
        dtype = inputs[i].dtype
        if dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                stacklevel=2,
            )
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if not check_backward_ad or not outputs:
        return True
    diff_inputs = [inputs[i] for i in diff_positions]
    analytical = _analytical_jacobian(inputs, outputs, diff_inputs)
    for i_pos, i in enumerate(diff_positions):
        numerical = _numerical_jacobian(func, inputs, i, outputs, eps)
        for j in range(len(outputs)):
            a, n = analytical[j][i_pos], numerical[j]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {j} with respect to input {i},\n"
                    f"numerical:{_format(n)}\nanalytical:{_format(a)}\n"
                )
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """gradcheck of the first derivative (a backward pass with create_graph=True)."""
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if grad_outputs is None:
        generator = np.random.default_rng(0)
        grad_outputs = tuple(
            from_numpy(generator.standard_normal(o._sizes)).to(o.dtype).requires_grad_()
            for o in outputs
        )
    grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)

    def first_derivative(*args):
        outs = _differentiable_outputs(_as_tuple(func(*args[:n_inputs])))
        wrt = [t for t in args[:n_inputs] if _is_tensor(t) and t.requires_grad]
        grads = autograd_grad(outs, wrt, args[n_inputs:], create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivative,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
    )
