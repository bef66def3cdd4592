"""cumprod's backward formula, written with ember operators as FunctionsManual.cpp writes it.

Layer: autograd. In: the gradient, the input and the output of cumprod. Out: the
input's gradient. Mirrors FunctionsManual.cpp's cumprod_backward and its three paths:
without zeros in the input `reversed_cumsum(output * grad) / input`; with zeros and
grad mode off (a plain backward) the O(n) masked formula; with grad mode on
(create_graph) or a subclass-like tensor the O(n^2) products, whose own derivative is
cumprod's second derivative. The masked_scatter_ calls of the O(n) path fill zeros at
the mask's positions with the source's own elements there, which `where` does too.
"""

from __future__ import annotations

from ember._c10.grad_mode import is_grad_enabled
from ember._c10.layout import strided
from ember.aten._generated.python_functions import cat, stack, where
from ember.aten.native import at
from ember.aten.tensor_subclass_like import are_any_tensor_subclass_like
from ember.autograd.formulas_pointwise import _conj

__all__ = ["cumprod_backward"]


def _reversed_cumsum(w, dim: int):
    return w.flip([dim]).cumsum(dim).flip([dim])


def cumprod_backward(grad, input, dim: int, output):  # noqa: A002 (PyTorch's name)
    if input.numel() <= 1:
        return grad
    dim = dim % input.dim()
    dim_size = input.shape[dim]
    if dim_size == 1:
        return grad
    input_conj, output_conj = _conj(input), _conj(output)
    subclass_like = are_any_tensor_subclass_like(input, grad, output)
    w = output_conj * grad
    is_zero = input == 0
    if not subclass_like and not bool(is_zero.any()):
        return _reversed_cumsum(w, dim).div(input_conj)
    if not is_grad_enabled():
        return _masked_zeros_path(grad, input_conj, output_conj, w, is_zero, dim, subclass_like)
    return _omitted_products_path(grad, input_conj, dim, dim_size, subclass_like)


def _masked_zeros_path(grad, input_conj, output_conj, w, is_zero, dim: int, subclass_like):
    """O(n): before the first zero as without zeros; at the first zero the sum over the
    run up to the second zero; after it nothing. A subclass-like tensor gets `where`
    (what it sees); a plain one masked_scatter_'s cast into grad's dtype."""
    grad_input = at.zeros(list(input_conj.shape), grad.dtype, strided, grad.device, None)
    cumsum = is_zero.cumsum(dim)
    mask = cumsum == 0
    before = _reversed_cumsum(w.masked_fill(~mask, 0.0), dim).div(input_conj)
    if not subclass_like:
        before = before.to(grad.dtype)
    grad_input = where(mask, before, grad_input)
    mask = cumsum == 1
    first_zero_index = mask.max(dim, keepdim=True)[1]
    first_zero_mask = at.zeros_like(mask, None, None, None, None, None)
    first_zero_mask = first_zero_mask.scatter_(dim, first_zero_index, 1).logical_and_(mask)
    mask &= ~first_zero_mask
    masked_cumprod = input_conj.masked_fill(~mask, 1.0).cumprod(dim)
    masked_grad = grad.masked_fill(cumsum != 1, 0.0)
    previous = output_conj.gather(dim, at.sub_Scalar(first_zero_index, 1, 1).relu_())
    previous = previous.masked_fill_(first_zero_index == 0, 1.0)
    at_zero = (masked_cumprod * masked_grad).sum(dim, keepdim=True) * previous
    if not subclass_like:
        at_zero = at_zero.to(grad.dtype)
    return where(first_zero_mask, at_zero, grad_input)


def _omitted_products_path(grad, input_conj, dim: int, dim_size: int, subclass_like: bool):
    """O(n^2): for each k, the products of the input with x_k left out, summed against
    grad[k:]; stacked for a subclass-like tensor, else copied into a zeros tensor."""
    slices = []
    grad_input = None
    if not subclass_like:
        grad_input = at.zeros(list(input_conj.shape), grad.dtype, strided, grad.device, None)
    ones_size = list(input_conj.shape)
    ones_size[dim] = 1
    unit = at.ones([1], grad.dtype, strided, grad.device, None).expand(ones_size)
    for k in range(dim_size):
        if k == 0:
            omitted = cat([unit, _slice(input_conj, dim, k + 1).cumprod(dim)], dim)
        elif k == dim_size - 1:
            omitted = _slice(input_conj, dim, 0, k).prod(dim, keepdim=True)
        else:
            until_k = _slice(input_conj, dim, 0, k).prod(dim, keepdim=True)
            from_k_plus_1 = _slice(input_conj, dim, k + 1).cumprod(dim)
            omitted = cat([until_k, until_k.expand_as(from_k_plus_1) * from_k_plus_1], dim)
        grad_slice = (_slice(grad, dim, k) * omitted).sum(dim)
        if subclass_like:
            slices.append(grad_slice)
        else:
            grad_input.select(dim, k).copy_(grad_slice)
    return stack(slices, dim) if subclass_like else grad_input


def _slice(t, dim: int, start: int, end=None):
    return at.slice_Tensor(t, dim, start, end, 1)
