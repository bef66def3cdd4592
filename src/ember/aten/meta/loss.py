"""Meta functions of the loss operators: nll_loss_forward, nll_loss_backward, mse_loss.

Layer: aten/meta. In: the functional arguments (`reduction` is the
at::Reduction number: 0 none, 1 mean, 2 sum). Out: a StructuredMeta.
Mirrors TORCH_META_FUNC(nll_loss_forward) / (nll_loss_backward) of
ATen/native/LossNLL.cpp and TORCH_META_FUNC(mse_loss) of ATen/native/Loss.cpp.
"""

from __future__ import annotations

from ember._c10.tensor_impl import shape_text
from ember.aten.meta.pointwise import PointwiseMeta
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec, pointwise_spec

__all__ = ["REDUCTION_NONE", "REDUCTION_MEAN", "REDUCTION_SUM", "nll_loss_forward",
           "nll_loss_backward", "mse_loss", "smooth_l1_loss"]  # fmt: skip

REDUCTION_NONE, REDUCTION_MEAN, REDUCTION_SUM = 0, 1, 2


def _check_nll_inputs(self, target, weight) -> None:
    if not (0 < self.dim() <= 2):
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if self.dim() == 1 and target.dim() == 1 and target._sizes[0] != 1:
        raise ValueError(
            f"For 1D input, 1D target must have size 1, but got target size: {target._sizes[0]}"
        )
    no_batch_dim = self.dim() == 1 and (target.dim() == 0 or target._sizes[0] == 1)
    if not no_batch_dim and self._sizes[0] != target._sizes[0]:
        raise RuntimeError(
            f"size mismatch (got input: {shape_text(self._sizes)}, "
            f"target: {shape_text(target._sizes)})"
        )


def nll_loss_forward(self, target, weight, reduction, ignore_index) -> StructuredMeta:
    _check_nll_inputs(self, target, weight)
    n_classes = self._sizes[-1]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no "
            f"classes but got weight tensor of shape: {shape_text(weight._sizes)}"
        )
    if reduction == REDUCTION_NONE and self.dim() == 2:
        sizes = (self._sizes[0],)
    else:
        sizes = ()
    output = OutputSpec(sizes, None, self.dtype, self.device)
    total_weight = OutputSpec((), None, self.dtype, self.device)
    return StructuredMeta((output, total_weight), exact_out=True)


def nll_loss_backward(
    grad_output, self, target, weight, reduction, ignore_index, total_weight
) -> StructuredMeta:
    _check_nll_inputs(self, target, weight)
    if total_weight.numel() != 1:
        raise RuntimeError(
            "expected total_weight to be a  single element tensor, got: "
            f"{shape_text(total_weight._sizes)} ({total_weight.numel()} elements)"
        )
    if weight is not None and weight.numel() != self._sizes[-1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if reduction == REDUCTION_NONE and self.dim() == 2:
        batch = self._sizes[0]
        if grad_output.dim() != 1 or grad_output._sizes[0] != batch:
            got = grad_output._sizes[0] if grad_output.dim() > 0 else 1
            raise RuntimeError(
                f"Expected a tensor of dimension 1 and tensor.size[0] == {batch} but got: "
                f"dimension {grad_output.dim()} and tensor.size[0] = {got}"
            )
    elif grad_output.dim() > 1 or grad_output.numel() != 1:
        raise RuntimeError(
            "Expected a single element grad_output tensor, but got: "
            f"{shape_text(grad_output._sizes)}"
        )
    return StructuredMeta(OutputSpec(self._sizes, None, self.dtype, self.device), exact_out=True)


def mse_loss(self, target, reduction) -> StructuredMeta:
    """A binary TensorIterator op over (self, target): its common dtype is the loss's,
    also when reduced (then resized to 0-dim)."""
    spec, common = pointwise_spec((self, target))
    if reduction == REDUCTION_NONE:
        return PointwiseMeta(spec, common)  # one TensorIterator writes the result
    return StructuredMeta(OutputSpec((), None, spec.dtype, spec.device), common)


def smooth_l1_loss(self, target, reduction, beta) -> StructuredMeta:
    """TORCH_META_FUNC(smooth_l1_loss): beta >= 0, then mse_loss's shape rule."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return mse_loss(self, target, reduction)
