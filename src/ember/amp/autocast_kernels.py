"""The AutocastCPU kernels: cast the floating arguments by the op's policy, then call it again.

Layer: amp. In: calls that reach the AutocastCPU key (autocast('cpu') removed it from the
exclude set). Out: the same operator called with AutocastCPU excluded, its eligible
arguments cast through `Tensor.to` (so autograd records ToCopyBackward0 and a mode below
sees aten._to_copy). Mirrors aten/src/ATen/autocast_mode.cpp / autocast_mode.h: the CPU
kernel list and its three policies, `cached_cast`, `promote_type`.

Note [Autocast policies]
~~~~~~~~~~~~~~~~~~~~~~~~
* lower_precision_fp: every eligible argument goes to the autocast dtype;
* fp32: every eligible argument goes to float32;
* promote: every eligible argument goes to float32 if one of them is float32, else to
  the autocast dtype (another floating type among them is refused, as PyTorch's
  `prioritize` refuses it).
An argument is eligible when it is a floating CPU tensor other than float64. Every other
operator falls through (the AutocastCPU fallback). The table below is PyTorch 2.13's whole
CPU list; the operators ember defines get the kernel when this module loads, so a new
operator of the list is covered the moment it is defined before ember.amp loads.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import key_bits
from ember._c10.thread_state import per_thread
from ember._dispatch.dispatcher import dispatcher
from ember.aten.native import at
from ember.aten.registration import impl

from . import state

__all__ = ["POLICIES", "registered"]

_LOWER = (
    "conv1d conv1d.padding conv2d conv2d.padding conv3d conv3d.padding bmm mm linalg_vecdot "
    "baddbmm addmm _addmm_activation addbmm linear _convolution.deprecated matmul conv_tbc "
    "mkldnn_rnn_layer conv_transpose1d conv_transpose2d.input conv_transpose3d.input prelu "
    "scaled_dot_product_attention _native_multi_head_attention"
)
_PROMOTE = "stack cat index_copy"
_FP32 = (
    "avg_pool3d binary_cross_entropy grid_sampler polar prod prod.dim_int quantile "
    "quantile.scalar nanquantile nanquantile.scalar stft stft.center cdist grid_sampler_2d "
    "_grid_sampler_2d_cpu_fallback grid_sampler_3d trace view_as_complex cholesky "
    "cholesky_inverse cholesky_solve inverse lu_solve orgqr ormqr pinverse max_pool3d "
    "max_unpool2d max_unpool3d adaptive_avg_pool3d reflection_pad1d reflection_pad2d "
    "replication_pad1d replication_pad2d replication_pad3d mse_loss cosine_embedding_loss "
    "nll_loss nll_loss2d hinge_embedding_loss poisson_nll_loss smooth_l1_loss "
    "cross_entropy_loss l1_loss huber_loss margin_ranking_loss soft_margin_loss "
    "triplet_margin_loss multi_margin_loss ctc_loss.IntList ctc_loss.Tensor kl_div "
    "multilabel_margin_loss binary_cross_entropy_with_logits fft_fft fft_ifft fft_fft2 "
    "fft_ifft2 fft_fftn fft_ifftn fft_rfft fft_irfft fft_rfft2 fft_irfft2 fft_rfftn "
    "fft_irfftn fft_hfft fft_ihfft linalg_cond linalg_cond.p_str linalg_matrix_rank "
    "linalg_matrix_rank.atol_rtol_tensor linalg_matrix_rank.atol_rtol_float "
    "linalg_matrix_rank.tol_tensor linalg_solve linalg_cholesky linalg_svdvals linalg_eigvals "
    "linalg_eigvalsh linalg_inv linalg_householder_product linalg_tensorinv "
    "linalg_tensorsolve fake_quantize_per_tensor_affine geqrf _lu_with_info qr svd "
    "triangular_solve fractional_max_pool2d fractional_max_pool3d adaptive_max_pool3d "
    "multilabel_margin_loss_forward linalg_qr linalg_cholesky_ex linalg_svd linalg_eig "
    "linalg_eigh linalg_lstsq linalg_inv_ex"
)
POLICIES = {
    **dict.fromkeys(_LOWER.split(), "lower_precision_fp"),
    **dict.fromkeys(_PROMOTE.split(), "promote"),
    **dict.fromkeys(_FP32.split(), "fp32"),
}

_AUTOCAST_CPU = key_bits(DispatchKey.AutocastCPU)
registered: list[str] = []  # the operators of POLICIES this process has a kernel for


def _eligible(t) -> bool:
    """is_eligible for CPU: a floating CPU tensor, not float64."""
    return (
        t is not None
        and t.dtype.is_floating_point
        and t.dtype is not dtypes.float64
        and t.device.type == "cpu"
    )


def _cached_cast(target, t, lower):
    """cached_cast: `t.to(target)` for an eligible tensor of another dtype; a float32 leaf
    that requires grad, cast to the autocast dtype, is cast once per outermost region
    (Note [Autocast's cast cache] in state.py)."""
    if t is None or t.dtype is target or not _eligible(t):
        return t
    if (
        target is lower
        and t.dtype is dtypes.float32
        and t.requires_grad
        and t.is_leaf
        and t._base is None
        and state.is_autocast_cache_enabled()
    ):
        found = state.cached_cast_of(t)
        if found is not None:
            return found
        cast = at._to_copy(t, target, None, None, None, False, None)
        state.cache_cast(t, cast)
        return cast
    return at._to_copy(t, target, None, None, None, False, None)


def _kernel(handle, policy: str, tensors: tuple[int, ...], lists: tuple[int, ...]):
    lower_policy = policy == "lower_precision_fp"
    fp32_policy = policy == "fp32"
    thread_state = per_thread
    cpu_dtype = state.cpu_autocast_dtype

    def autocast_kernel(*args):
        lower = cpu_dtype()
        if lower_policy:
            target = lower
        elif fp32_policy:
            target = dtypes.float32
        else:  # promote_type
            target = lower
            for t in _tensors_of(args, tensors, lists):
                target = _prioritize(target, t, lower)
        args = list(args)
        for i in tensors:
            t = args[i]
            if t is not None and t.dtype is not target:  # the common case costs one test
                args[i] = _cached_cast(target, t, lower)
        for i in lists:
            args[i] = [_cached_cast(target, t, lower) for t in args[i]]
        ts = thread_state.state
        prev = ts.excluded
        ts.excluded = prev | _AUTOCAST_CPU  # ExcludeDispatchKeyGuard no_autocast(AutocastCPU)
        try:
            return handle.call(*args)  # not cached: tracing swaps it (trace.py)
        finally:
            ts.excluded = prev

    return autocast_kernel


def _prioritize(current, t, lower):
    """at::autocast::prioritize: float32 wins; the autocast dtype stays; another floating
    type is refused."""
    if not _eligible(t):
        return current
    if current is dtypes.float32 or t.dtype is dtypes.float32:
        return dtypes.float32
    if current is lower and t.dtype is lower:
        return lower
    raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")


def _tensors_of(args, tensors, lists):
    for i in tensors:
        yield args[i]
    for i in lists:
        yield from args[i]


def _is_tensor(t) -> bool:
    if t.kind == "optional":
        t = t.element
    return t.kind == "base" and t.name == "Tensor"


def _kind(t) -> str:
    """ "tensor" for Tensor / Tensor?, "list" for Tensor[] / Tensor?[], else ""."""
    if _is_tensor(t):
        return "tensor"
    return "list" if t.kind == "list" and _is_tensor(t.element) else ""


def _register_all() -> None:
    for overload, policy in POLICIES.items():
        name, _, overload_name = overload.partition(".")
        handle = dispatcher.find_schema("aten::" + name, overload_name)
        if handle is None:
            continue
        kinds = [_kind(a.type) for a in handle.schema.arguments]
        tensors = tuple(i for i, k in enumerate(kinds) if k == "tensor")
        lists = tuple(i for i, k in enumerate(kinds) if k == "list")
        impl(overload, "AutocastCPU", _kernel(handle, policy, tensors, lists))
        registered.append(overload)


_register_all()
