"""nll_loss2d and its forward / backward kernels: the negative log likelihood of (N, C, H, W)
inputs against (N, H, W) class targets.

Layer: aten/native. In: the schema's arguments. Out: fresh tensors. The CPU kernels check
the shapes as LossNLL2d.cpp's check_inputs_nll_loss2d, then compute on the (N * H * W, C)
rows through nll_loss_forward / nll_loss_backward (the same per-element arithmetic) and
return PyTorch's shapes: the (N, H, W) losses for reduction='none', the input's layout
for the gradient. Autograd records NllLoss2DBackward0. Mirrors ATen/native/LossNLL2d.cpp.
"""

from __future__ import annotations

from ember._c10.memory_format import contiguous_format
from ember._c10.tensor_impl import shape_text
from ember.aten.native import at

__all__ = ["nll_loss2d", "nll_loss2d_forward", "nll_loss2d_backward"]

_NONE = 0


def _check(self, target, weight):
    if target.dim() != 3:
        raise RuntimeError(
            "only batches of spatial targets supported (3D tensors) but got targets of "
            f"dimension: {target.dim()}"
        )
    if self.dim() != 4:
        raise RuntimeError(
            "only batches of spatial inputs supported (4D tensors), but got input of "
            f"dimension: {self.dim()}"
        )
    if weight is not None and weight.numel() != self._sizes[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    n, _, h, w = self._sizes
    if (n, h, w) != tuple(target._sizes):
        raise RuntimeError(
            f"size mismatch (got input: {shape_text(self._sizes)} , target: "
            f"{shape_text(target._sizes)}"
        )


def _rows(self, target):
    n, c, h, w = self._sizes
    rows = at.reshape(at.permute(self, [0, 2, 3, 1]), [n * h * w, c])
    return rows, at.reshape(target, [n * h * w])


def nll_loss2d(self, target, weight, reduction, ignore_index):
    return at.nll_loss2d_forward(self, target, weight, reduction, ignore_index)[0]


def nll_loss2d_forward(self, target, weight, reduction, ignore_index):
    _check(self, target, weight)
    rows, flat = _rows(self, target)
    output, total_weight = at.nll_loss_forward(rows, flat, weight, reduction, ignore_index)
    if reduction == _NONE:
        output = at.contiguous(at.reshape(output, list(target._sizes)), contiguous_format)
    return output, total_weight


def nll_loss2d_backward(grad_output, self, target, weight, reduction, ignore_index,
                        total_weight):  # fmt: skip
    _check(self, target, weight)
    rows, flat = _rows(self, target)
    if reduction == _NONE:
        grad_output = at.reshape(grad_output, [rows._sizes[0]])
    grad = at.nll_loss_backward(
        grad_output, rows, flat, weight, reduction, ignore_index, total_weight
    )
    n, c, h, w = self._sizes
    grad = at.permute(at.reshape(grad, [n, h, w, c]), [0, 3, 1, 2])
    return at.contiguous(grad, contiguous_format)
