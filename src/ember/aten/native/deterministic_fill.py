"""The fill of uninitialized memory under torch.use_deterministic_algorithms(True).

Layer: aten/native. In: a freshly allocated tensor (empty, empty_strided, empty_like).
Out: the same tensor, filled with NaN (floating and complex dtypes), the dtype's largest
value (integers) or True (bool) while deterministic algorithms are on and
torch.utils.deterministic.fill_uninitialized_memory holds (its default). Mirrors
ATen/native/TensorFactories.h's fill_empty_deterministic_, called by the empty kernels
when at::globalContext().deterministicFillUninitializedMemory().
"""

from __future__ import annotations

import numpy as np

from ember._c10.context import CONTEXT

__all__: list[str] = []


def deterministic_fill(tensor):
    """The allocation as it is, unless deterministic algorithms ask for a fill."""
    if not CONTEXT.deterministic_algorithms or not CONTEXT.deterministic_fill_uninitialized_memory:
        return tensor
    np_dtype = tensor.dtype.np_dtype
    if tensor.device.type == "meta" or np_dtype is None or tensor.numel() == 0:
        return tensor
    if tensor.dtype.is_floating_point or tensor.dtype.is_complex:
        value = np.nan
    elif tensor.dtype.name == "bool":
        value = True
    else:
        value = np.iinfo(np_dtype).max
    tensor.ndarray()[...] = value
    return tensor
