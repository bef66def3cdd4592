"""Helpers the derivative formulas of derivatives.yaml call, written with ember operators.

Layer: autograd. In: gradients and saved values. Out: input gradients. Every
helper is built from dispatched ember operators, so a backward pass under
create_graph records its own graph and double backward works.
Mirrors torch/csrc/autograd/FunctionsManual.cpp. See Note [Formulas in derivatives.yaml].
"""

from __future__ import annotations

import math

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember._tensor_ctors import contiguous_format, from_numpy  # noqa: F401 (contiguous_format: derivatives.yaml)
from ember.aten._generated.python_functions import (
    ones_like,
    where,
)
from ember.aten.native import at
from ember.autograd.formulas_activation import (  # noqa: F401 (derivatives.yaml)
    elu_backward,
    elu_double_backward,
    gelu_backward,
    gelu_double_backward,
    glu_backward,
    glu_double_backward,
    glu_double_backward_grad_output,
    hardshrink_backward,
    hardsigmoid_backward,
    hardswish_backward,
    hardswish_double_backward,
    hardtanh_backward,
    leaky_relu_backward,
    log_sigmoid_backward,
    log_sigmoid_double_backward,
    mish_backward,
    prelu_backward_grad_output,
    prelu_backward_self,
    prelu_backward_weight,
    prelu_kernel_backward,
    silu_backward,
    softplus_backward,
    softplus_double_backward,
    softshrink_backward,
)
from ember.autograd.formulas_conv import (  # noqa: F401 (derivatives.yaml)
    constant_pad_nd_backward,
    convolution_double_backward,
    max_pool_double_backward,
)
from ember.autograd.formulas_cumulative import cumprod_backward  # noqa: F401 (derivatives.yaml)
from ember.autograd.formulas_elementwise import (  # noqa: F401 (derivatives.yaml)
    angle_backward,
    copysign_tensor_self_backward,
    deg2rad_backward,
    i1_backward,
    i1e_backward,
    logit_backward,
    mvlgamma_backward,
    rad2deg_backward,
    scalar_like,
    sgn_backward,
    sinc_backward,
)
from ember.autograd.formulas_embedding import (  # noqa: F401 (derivatives.yaml)
    embedding_dense_double_backward,
    trilinear_backward,
)
from ember.autograd.formulas_linalg import (  # noqa: F401 (derivatives.yaml)
    linalg_lstsq_backward_b,
    linalg_lstsq_backward_self,
)
from ember.autograd.formulas_linalg_decomp import (  # noqa: F401 (derivatives.yaml)
    cholesky_backward,
    linalg_det_backward,
    linalg_eig_backward,
    linalg_eigh_backward,
    linalg_inv_backward,
    linalg_qr_backward,
    linalg_solve_backward_A,
    linalg_solve_backward_B,
    linalg_solve_triangular_backward_A,
    linalg_solve_triangular_backward_B,
    slogdet_backward,
    svd_backward,
)
from ember.autograd.formulas_loss import (  # noqa: F401 (derivatives.yaml)
    binary_cross_entropy_backward,
    binary_cross_entropy_double_backward,
    binary_cross_entropy_double_backward_grad_output,
    binary_cross_entropy_double_backward_target,
    binary_cross_entropy_target_backward,
    binary_cross_entropy_with_logits_backward,
    binary_cross_entropy_with_logits_target_backward,
    huber_loss_backward,
    huber_loss_double_backward,
    huber_loss_double_backward_grad_output,
    smooth_l1_loss_backward,
    smooth_l1_loss_double_backward,
    soft_margin_loss_backward,
    soft_margin_loss_double_backward,
    soft_margin_loss_double_backward_grad_output,
)
from ember.autograd.formulas_normalization import (  # noqa: F401 (derivatives.yaml)
    flash_attention_cpu_backward,
    native_batch_norm_backward,
    native_group_norm_backward_formula,
    native_layer_norm_backward,
    undefined,
)
from ember.autograd.formulas_pointwise import (  # noqa: F401 (helpers of derivatives.yaml)
    add_scalar,
    conj_scalar,
    div_scalar,
    div_tensor_other_backward,
    div_tensor_self_backward,
    handle_r_to_c,
    maybe_multiply,
    mm_mat1_backward,
    mm_mat2_backward,
    mul_scalar,
    mul_tensor_backward,
    pow_backward,
    pow_backward_exponent,
    pow_backward_self,
    prod_backward,
    reciprocal_backward,
    remainder_other_backward,
    rsqrt_backward,
    sgn,
    sigmoid_backward,
    sigmoid_backward_output_backward,
    sub_scalar,
    tanh_backward,
    tanh_backward_output_backward,
    to_copy_backward,
    zeros_like,
)
from ember.autograd.formulas_shape import (  # noqa: F401 (helpers of derivatives.yaml)
    as_strided_backward,
    cat_tensors_backward,
    diagonal_backward,
    gather_backward,
    index_backward,
    index_put_self_backward,
    index_select_backward,
    index_values_backward,
    permute_backwards,
    roll_backward,
    select_backward,
    slice_backward,
    split_backward,
    split_with_sizes_backward,
    stack_tensors_backward,
    unbind_backward,
    unfold_backward,
    unsqueeze_to,
    zeros_with_options,
)
from ember.autograd.formulas_spectral import (  # noqa: F401 (derivatives.yaml)
    fft_c2c_backward,
    fft_c2r_backward,
    fft_r2c_backward,
)
from ember.autograd.formulas_ternary import (  # noqa: F401 (helpers of derivatives.yaml)
    addcdiv_tensor1_backward,
    addcdiv_tensor2_backward,
    addcmul_tensor_backward,
    conj_tensor,
    lerp_scalar_self_backward,
    lerp_tensor_self_backward,
)


def _wrap_dims(dims, ndim: int) -> list[int]:
    if dims is None:
        return list(range(ndim))
    if isinstance(dims, int):
        dims = [dims]
    result = [d + ndim if d < 0 else d for d in dims]
    return result if result or ndim == 0 else list(range(ndim))


def sum_to(grad, sizes):
    """Sum a broadcast gradient back to `sizes` (at::sum_to)."""
    sizes = tuple(sizes)
    if grad._sizes == sizes:
        return grad
    lead = len(grad._sizes) - len(sizes)
    dims = list(range(lead))
    dims += [lead + i for i, s in enumerate(sizes) if s == 1 and grad._sizes[lead + i] != 1]
    if dims:
        grad = at.sum_dim_IntList(grad, dims, True, None)
    return at.view(grad, list(sizes)) if lead else grad


def restore_reduced_dims(grad, dim, keepdim: bool, ndim: int | None = None):
    """Unsqueeze the reduced dims back (so the gradient broadcasts over the input)."""
    if keepdim:
        return grad
    total = ndim if ndim is not None else len(grad._sizes) + len(_as_list(dim))
    for d in sorted(_wrap_dims(dim, total)):
        grad = grad.unsqueeze(d)
    return grad


def _as_list(dim):
    if dim is None:
        return []
    return [dim] if isinstance(dim, int) else list(dim)


def sum_backward(grad, sizes, dim, keepdim: bool):
    if dim is not None and len(_as_list(dim)) == 0 and len(sizes) > 0:
        dim = None
    if not keepdim and len(sizes) > 0:
        grad = restore_reduced_dims(grad, dim, False, len(sizes))
    return grad.expand(list(sizes))


def _safe_size(sizes, dim) -> int:
    """The number of elements `dim` reduces (1 for a 0-dim tensor, whatever dim says)."""
    if not sizes:
        return 1
    count = 1
    for d in _as_list(dim):
        count *= sizes[d]  # d is in range: the forward checked it
    return count


def _divide(numerator: float, denominator: float) -> float:
    """C++ double division: a zero denominator gives an infinity (or NaN), not an error."""
    if denominator == 0:
        return math.nan if numerator == 0 else math.copysign(math.inf, numerator)
    return numerator / denominator


def mean_backward(grad, sizes, dim, numel: int, keepdim: bool):
    count = numel if not _as_list(dim) else _safe_size(sizes, dim)
    return at.div_Scalar(sum_backward(grad, sizes, dim, keepdim), count)


def value_selecting_reduction_backward(grad, dim: int, indices, sizes, keepdim: bool):
    if not keepdim and len(sizes) > 0:
        grad = grad.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    return at.new_zeros(grad, list(sizes), None, None, None, None).scatter(dim, indices, grad)


def evenly_distribute_backward(grad, input, value):
    """PyTorch's branch for tensor subclasses and modes (its other branch reads a value
    with item(); both give the same gradient)."""
    both_nan = at.logical_and(input.isnan(), value.isnan())
    mask = at.logical_or_(input == value, both_nan)
    count = mask.sum()
    return mask * (grad / count)


def _restore_reduced_dims_view(output, dims, keepdim: bool, ndim: int):
    """FunctionsManual's restore_reduced_dims: a view with 1s in the reduced dims."""
    if keepdim:
        return output
    reduced = set(_wrap_dims(dims, ndim))
    sizes = iter(output._sizes)
    return output.view([1 if d in reduced else next(sizes) for d in range(ndim)])


def amax_amin_backward(grad, self, result, dim, keepdim: bool):
    """scale_grad_by_count(restore_reduced_dims(grad), restore_reduced_dims(result) == self,
    dim), its arguments evaluated right to left as PyTorch's compiled formula does."""
    ndim = len(self._sizes)
    mask = _restore_reduced_dims_view(result, dim, keepdim, ndim) == self
    return scale_grad_by_count(_restore_reduced_dims_view(grad, dim, keepdim, ndim), mask, dim)


def new_zeros_with_options(grad, sizes, dtype):
    """grad.new_zeros(sizes, self.options()): dtype=, layout= and device=."""
    return at.new_zeros(grad, list(sizes), dtype, strided, grad.device, None)


def scale_grad_by_count(grad, mask, dims):
    return (grad / mask.sum(_wrap_dims(dims, len(mask._sizes)), keepdim=True)) * mask


def softmax_backward(grad, output, dim: int):
    return at._softmax_backward_data(grad, output, dim, output.dtype)


def softmax_double_backward(grad, grad_output, dim: int, output):
    """The gradient of _softmax_backward_data with respect to its `output`:
    grad * grad_output - grad * (grad_output * output).sum(dim, true)
    - grad_output * (grad * output).sum(dim, true), each product's right operand first."""
    third = (grad * output).sum(dim, keepdim=True)
    third = grad_output * third
    second = (grad_output * output).sum(dim, keepdim=True)
    second = second * grad
    return grad * grad_output - second - third


def log_softmax_backward(grad, output, dim: int):
    return at._log_softmax_backward_data(grad, output, dim, output.dtype)


def log_softmax_double_backward(grad, grad_output, dim: int, output):
    """The gradient of _log_softmax_backward_data with respect to its `output`:
    -grad_output.sum(dim) * output.exp() * grad, with exp taken first (the order
    PyTorch's compiled formula dispatches in)."""
    exp = output.exp()
    return -grad_output.sum(dim, keepdim=True) * exp * grad


def logsumexp_backward(grad, self, result, dim, keepdim: bool):
    ndim = len(self._sizes)
    grad = restore_reduced_dims(grad, dim, keepdim, ndim)
    result = restore_reduced_dims(result, dim, keepdim, ndim)
    return grad * (self - result).exp()


def threshold_backward(grad, result, threshold):
    return at.threshold_backward(grad, result, threshold)


def clamp_backward(grad, self, min, max):
    mask = ones_like(self, dtype=dtypes.bool)
    if min is not None:
        mask = mask.logical_and(self >= min)
    if max is not None:
        mask = mask.logical_and(self <= max)
    return grad * mask


def clamp_backward_min(grad, self, min, max):
    mask = self < min
    if max is not None:
        mask = mask.logical_and(min < max)
    return grad * mask


def clamp_backward_max(grad, self, min, max):
    mask = self > max
    if min is not None:
        mask = mask.logical_or(min >= max)
    return grad * mask


def cumsum_backward(grad, dim: int):
    if len(grad._sizes) == 0:
        return grad
    return grad.flip([dim]).cumsum(dim).flip([dim])


def masked_fill_backward(grad, mask):
    return (grad * mask).sum()


def mse_loss_backward(grad, self, target, reduction: int):
    scale = 2.0 / self.numel() if reduction == 1 else 2.0
    return at.mul_Scalar(self - target, scale) * grad


def var_backward(grad, self, dim, correction, keepdim: bool):
    correction = 1 if correction is None else correction
    sizes = self._sizes
    if not sizes or dim is None:
        dof = self.numel() - correction
        if dof <= 0:
            # 2 / dof is infinite: NaN where self is its mean (inf * 0), else infinity
            return grad * where(self == self.mean(), math.nan, math.inf)
        centred = self - self.mean()
        return at.mul_Scalar(grad, 2.0 / dof) * centred
    if not keepdim and len(sizes) > 1:
        grad = restore_reduced_dims(grad, dim, False, len(sizes))
    # an empty dim list counts 1 element here, as _safe_size does in PyTorch
    scale = _divide(2.0, _safe_size(sizes, dim) - correction)
    centred = self - self.mean(_as_list(dim), keepdim=True)
    return at.mul_Scalar(grad, scale) * centred


def std_backward(result, grad, self, dim, correction, keepdim: bool):
    grad_var = grad / at.mul_Scalar(result, 2)
    grad_var = at.masked_fill__Scalar(grad_var, result == 0, 0)
    return var_backward(grad_var, self, dim, correction, keepdim)


def norm_backward(grad, self, p, result, dim=None, keepdim: bool = False):
    """FunctionsManual's norm_backward, case by case and in its order of computation
    (sgn for complex inputs, its in-place steps); ord 0 has no gradient. Without dims
    (a full reduction) the gradient is not unsqueezed: a 0-dim one broadcasts."""
    p = 2.0 if p is None else float(p)
    ndim = len(self._sizes)
    dims = _wrap_dims(dim, ndim) if dim is not None and _as_list(dim) else []
    if not keepdim and ndim != 0 and dims:
        grad = restore_reduced_dims(grad, dims, False, ndim)
        result = restore_reduced_dims(result, dims, False, ndim)
    if p == 0:
        return None  # an undefined gradient, as PyTorch's {} (x.grad stays None)
    if p == 1:
        return sgn(self) * grad
    if p == 2:
        return grad * at.masked_fill__Scalar(self / result, result == 0, 0)
    # sgn(self) * right: the right operand first, as PyTorch's compiled code evaluates it
    if math.isinf(p):
        magnitude = self.abs()
        mask = magnitude.eq(result).logical_or(magnitude.isnan())
        count = mask.sum(dims, keepdim=True)  # no dims: every dim, as sum(dim={})
        right = (grad / count) * mask
        return sgn(self) * right
    if p < 1:
        powered = at.pow__Scalar(self.abs(), p - 1)
        right = at.masked_fill__Scalar(powered, self == 0, 0)
        scaled = sgn(self) * right
        factor = result.pow(1 - p)
        return (scaled * grad) * factor
    if p < 2:
        right = at.pow__Scalar(self.abs(), p - 1)
        scaled = sgn(self) * right
    else:
        scaled = self * at.pow__Scalar(self.abs(), p - 2)
    scale = grad / result.pow(p - 1)
    at.masked_fill__Scalar(scale, result == 0, 0)
    return scaled * scale


def linalg_vector_norm_backward(grad, self, ord, result, dim, keepdim: bool):  # noqa: A002
    """The dtype= argument needs nothing: grad's dtype broadcasts through."""
    return norm_backward(grad, self, ord, result, dim, keepdim)


def nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight):
    return at.nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight)


def nll_loss(self, target, weight, reduction, ignore_index):
    return at.nll_loss_forward(self, target, weight, reduction, ignore_index)[0]


def where_self_grad(condition, grad):
    return where(condition, grad, zeros_like(grad))


def where_other_grad(condition, grad):
    return where(condition, zeros_like(grad), grad)


def maximum_backward(grad, self, other, pick_self: bool):
    halved = at.div_Scalar(grad, 2)  # where's arguments right to left, as PyTorch
    half = where(self == other, halved, grad)
    losing = (self < other) if pick_self else (self > other)
    return at.masked_fill__Scalar(half, losing, 0)


def minimum_backward(grad, self, other, pick_self: bool):
    return maximum_backward(grad, self, other, not pick_self)


from ember.autograd.formulas_complex import polar_backward  # noqa: E402, F401 (derivatives.yaml)
from ember.autograd.formulas_copy import (  # noqa: E402, F401 (derivatives.yaml)
    as_strided_scatter_backward,
    as_strided_scatter_src_backward,
)
from ember.autograd.formulas_distance import (  # noqa: E402, F401 (derivatives.yaml)
    cdist_backward_x2,
    euclidean_dist_backward,
)
from ember.autograd.formulas_dropout import (  # noqa: E402, F401 (derivatives.yaml)
    native_dropout_double_backward,
    native_dropout_input_backward,
)
from ember.autograd.formulas_forward import (  # noqa: E402, F401 (derivatives.yaml result: entries)
    amaxamin_jvp,
    apply_loss_reduction,
    batch_norm_jvp,
    clamp_jvp,
    convolution_jvp,
    copy_tangent,
    evenly_read_jvp,
    gather_with_keepdimed_indices,
    glu_jvp,
    layer_norm_jvp,
    logcumsumexp_jvp,
    logsumexp_jvp,
    norm_jvp,
    prod_jvp,
    sgn_jvp,
    std_jvp,
    var_jvp,
)
from ember.autograd.formulas_householder import (  # noqa: E402, F401 (derivatives.yaml)
    householder_product_backward,
    ormqr_backward,
)
from ember.autograd.formulas_index_reduce import index_reduce_backward  # noqa: E402, F401
from ember.autograd.formulas_linalg_cholesky import (  # noqa: E402, F401 (derivatives.yaml)
    cholesky_inverse_backward,
    cholesky_solve_backward,
    linalg_matrix_exp_differential,
    pinv_backward,
    triangular_solve_backward,
)
from ember.autograd.formulas_linalg_lu import (  # noqa: E402, F401 (derivatives.yaml)
    linalg_lu_backward,
    linalg_lu_solve_LU,
    lu_factor_ex_backward,
    lu_unpack_backward,
)
from ember.autograd.formulas_reduction_more import (  # noqa: E402, F401 (derivatives.yaml)
    aminmax_backward,
    cummaxmin_backward,
    logcumsumexp_backward,
    nansum_backward,
    std_mean_backward,
    var_mean_backward,
)
from ember.autograd.formulas_renorm import renorm_backward  # noqa: E402, F401 (derivatives.yaml)
from ember.autograd.formulas_shape_more import (  # noqa: E402, F401 (derivatives.yaml)
    block_diag_backward,
    index_add_source_backward,
    index_copy_source_backward,
    index_fill_value_backward,
    masked_select_backward,
    not_implemented,
    put_self_backward,
    repeat_backward,
    scatter_reduce_backward_self,
    scatter_reduce_backward_src,
    take_backward,
    trace_backward,
)
