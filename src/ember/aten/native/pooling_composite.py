"""The CompositeImplicitAutograd pooling ops: max_pool1d/2d/3d, max_pool1d_with_indices,
avg_pool1d, adaptive_avg_pool1d/2d, adaptive_max_pool1d.

Layer: aten/native. In: the schema's arguments. Out: tensors, through the operators
PyTorch's composites call (unsqueeze(-2) + the 2-d op + squeeze(-2) for 1-d pools;
mean over the last two dims for a 1x1 adaptive average), so a mode sees PyTorch's
list. Mirrors ATen/native/Pooling.cpp and AdaptiveAveragePooling.cpp.
"""

from __future__ import annotations

from ember._c10.grad_mode import is_grad_enabled
from ember._tensor import wrap_array
from ember.aten.native import at
from ember.aten.native.pool_numpy import max_pool, pooling_output_shape
from ember.aten.native.views import fmt_ints, scalar_type_name_of
from ember.aten.tensor_subclass_like import is_tensor_subclass_like

__all__ = [
    "max_pool1d", "max_pool1d_with_indices", "max_pool2d", "max_pool3d", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d",
]  # fmt: skip


def _check_dim_range(name, self, low, high):
    """checkDimRange(name, TensorArg(self, "self", 1), low, high)."""
    if not low <= self.dim() < high:
        raise RuntimeError(
            f"Expected {low} to {high - 1} dimensions, but got {self.dim()}-dimensional tensor "
            f"for argument #1 'self' (while checking arguments for {name})"
        )


def _check1d(name, arg, values):
    if len(values) != 1:
        raise RuntimeError(f"{name}() argument '{arg}' should contain one int (got {len(values)})")


def max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
    stride = list(stride) or list(kernel_size)
    _check_dim_range("max_pool1d", self, 2, 4)
    for arg, values in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding), ("dilation", dilation)):  # fmt: skip  # noqa: E501
        _check1d("max_pool1d", arg, values)
    output, indices = at.max_pool2d_with_indices(
        at.unsqueeze(self, -2), [1, kernel_size[0]], [1, stride[0]], [0, padding[0]],
        [1, dilation[0]], ceil_mode,
    )  # fmt: skip
    return at.squeeze_dim(output, -2), at.squeeze_dim(indices, -2)


def _check_max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode):
    """Pooling.cpp's check_max_pool1d: the (stride-defaulted) stride, or the error."""
    if self.dim() not in (2, 3):
        raise RuntimeError(
            f"max_pool1d() Expected 2D or 3D input tensor, but got {fmt_ints(self._sizes)}"
        )
    if len(kernel_size) != 1:
        raise RuntimeError(
            f"max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size {len(kernel_size)}"
        )  # noqa: E501
    if len(stride) not in (0, 1):
        raise RuntimeError(
            f"max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but got size {len(stride)}"
        )  # noqa: E501
    if len(padding) != 1:
        raise RuntimeError(
            f"max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got size {len(padding)}"
        )  # noqa: E501
    if len(dilation) != 1:
        raise RuntimeError(
            f"max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got size {len(dilation)}"
        )  # noqa: E501
    stride = list(stride) or list(kernel_size)
    k, s, p, d = kernel_size[0], stride[0], padding[0], dilation[0]
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(
            f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and kernel_size={k}"
        )  # noqa: E501
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = pooling_output_shape(self._sizes[-1], k, p, s, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    return stride, out


def max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode):
    ndim = self.dim()
    sizes = self._sizes
    if not (
        (ndim == 2 and sizes[0] != 0 and sizes[1] != 0)
        or (ndim == 3 and sizes[1] != 0 and sizes[2] != 0)
    ):  # noqa: E501
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{fmt_ints(sizes)}"
        )
    stride, out = _check_max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode)
    if (
        (self.requires_grad and is_grad_enabled())
        or self._fw_grad is not None  # a tangent (Note [Forward grads]): PyTorch's _fw_grad(0)
        or self.device.type != "cpu"
        or is_tensor_subclass_like(self)
    ):  # noqa: E501
        return at.max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[
            0
        ]
    if not self.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"max_pool1d_impl\" not implemented for '{scalar_type_name_of(self.dtype)}'"
        )  # noqa: E501
    values, _ = max_pool(
        self.ndarray(), [kernel_size[0]], stride, [padding[0]], [dilation[0]], [out]
    )
    return wrap_array(values, self.dtype)


def max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode):
    return at.max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def max_pool3d(self, kernel_size, stride, padding, dilation, ceil_mode):
    return at.max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def avg_pool1d(self, kernel_size, stride, padding, ceil_mode, count_include_pad):
    stride = list(stride) or list(kernel_size)
    _check_dim_range("avg_pool1d", self, 2, 4)
    for arg, values in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding)):
        _check1d("avg_pool1d", arg, values)
    output = at.avg_pool2d(
        at.unsqueeze(self, -2), [1, kernel_size[0]], [1, stride[0]], [0, padding[0]], ceil_mode,
        count_include_pad, None,
    )  # fmt: skip
    return at.squeeze_dim(output, -2)


def adaptive_avg_pool2d(self, output_size):
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if output_size[0] < 0 or output_size[1] < 0:
        raise RuntimeError(
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
            f"but received {{{output_size[0]}, {output_size[1]}}}"
        )
    if output_size[0] == 1 and output_size[1] == 1:
        return at.mean_dim(self, [-1, -2], True, None)
    return at._adaptive_avg_pool2d(self, output_size)


def adaptive_avg_pool1d(self, output_size):
    _check_dim_range("adaptive_avg_pool1d", self, 2, 4)
    _check1d("adaptive_avg_pool1d", "output_size", output_size)
    output = at.adaptive_avg_pool2d(at.unsqueeze(self, -2), [1, output_size[0]])
    return at.squeeze_dim(output, -2)


def adaptive_max_pool1d(self, output_size):
    _check_dim_range("adaptive_max_pool1d", self, 2, 4)
    _check1d("adaptive_max_pool1d", "output_size", output_size)
    output, indices = at.adaptive_max_pool2d(at.unsqueeze(self, -2), [1, output_size[0]])
    return at.squeeze_dim(output, -2), at.squeeze_dim(indices, -2)
