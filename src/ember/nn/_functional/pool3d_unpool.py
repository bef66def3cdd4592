"""`F.adaptive_avg_pool3d`, `F.adaptive_max_pool3d` (with indices) and
`F.max_unpool1d/2d/3d`.

Layer: the Python face, above aten. As torch/nn/functional.py: adaptive output sizes may
hold None (the input's size there); adaptive_max_pool3d picks the `_with_indices`
function when return_indices is set (boolean_dispatch); max_unpool computes the default
output size ((in - 1) * stride + kernel - 2 * padding), checks a given one against it,
and unpools 1-d through max_unpool2d on an unsqueezed last dim. Mirrors
torch/nn/functional.py.
"""

from __future__ import annotations

from ember._torch_function import handle_torch_function
from ember.aten._generated import python_nn_functions as _nn
from ember.nn._functional.pooling import _list_with_default, _overridden

__all__ = [
    "adaptive_avg_pool3d", "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices",
    "max_unpool1d", "max_unpool2d", "max_unpool3d",
]  # fmt: skip


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(adaptive_avg_pool3d, (input,), input, output_size)
    return _nn.adaptive_avg_pool3d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(
            adaptive_max_pool3d_with_indices, (input,), input, output_size,
            return_indices=return_indices,
        )  # fmt: skip
    return _nn.adaptive_max_pool3d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    if return_indices:
        return adaptive_max_pool3d_with_indices(input, output_size)
    if _overridden(input):
        return handle_torch_function(
            adaptive_max_pool3d, (input,), input, output_size, return_indices=return_indices
        )
    return adaptive_max_pool3d_with_indices(input, output_size)[0]


def _tuple(value, n):
    """torch.nn.modules.utils._single/_pair/_triple: an iterable as a tuple, else repeated."""
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


def _unpool_output_size(input, kernel_size, stride, padding, output_size):  # noqa: A002
    input_size = input.size()
    default_size = [
        (input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
        for d in range(len(kernel_size))
    ]
    if output_size is None:
        result = default_size
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(
                "output_size should be a sequence containing "
                f"{len(kernel_size)} or {len(kernel_size) + 2} elements, but it has a length "
                f"of '{len(output_size)}'"
            )
        for d in range(len(kernel_size)):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between {min_size} '
                    f"and {max_size})"
                )
        result = output_size
    for d in range(len(kernel_size)):
        if result[d] < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but "
                f"got output_size[{d}]={result[d]}"
            )
    return result


def _unpool_args(input, kernel_size, stride, padding, output_size, n):  # noqa: A002
    kernel_size = _tuple(kernel_size, n)
    stride = _tuple(stride, n) if stride is not None else kernel_size
    padding = _tuple(padding, n)
    return stride, padding, _unpool_output_size(input, kernel_size, stride, padding, output_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(
            max_unpool1d, (input,), input, indices, kernel_size, stride=stride,
            padding=padding, output_size=output_size,
        )  # fmt: skip
    _, _, output_size = _unpool_args(input, kernel_size, stride, padding, output_size, 1)
    output_size = list(output_size) + [1] if isinstance(output_size, list) else (
        tuple(output_size) + (1,))  # fmt: skip
    return _nn.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), output_size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(
            max_unpool2d, (input,), input, indices, kernel_size, stride=stride,
            padding=padding, output_size=output_size,
        )  # fmt: skip
    _, _, output_size = _unpool_args(input, kernel_size, stride, padding, output_size, 2)
    return _nn.max_unpool2d(input, indices, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(
            max_unpool3d, (input,), input, indices, kernel_size, stride=stride,
            padding=padding, output_size=output_size,
        )  # fmt: skip
    stride, padding, output_size = _unpool_args(input, kernel_size, stride, padding, output_size, 3)
    return _nn.max_unpool3d(input, indices, output_size, stride, padding)
