"""F.embedding: rows of a weight matrix looked up by index.

Layer: nn. In: integer indices, a 2-d weight, padding_idx (negative counts from the
end), max_norm / norm_type (rows renormalised in place first, under no_grad),
scale_grad_by_freq, sparse. Out: ``torch.embedding(weight, input, ...)``, whose
backward is EmbeddingBackward0. Mirrors F.embedding of torch/nn/functional.py.
"""

from __future__ import annotations

from ember._tensor import Tensor
from ember._torch_function import handle_torch_function, has_torch_function
from ember._torch_function import state as _tf_state
from ember.aten._generated import python_functions as _functions
from ember.autograd.grad_mode import no_grad

__all__ = ["embedding"]


def embedding(
    input,  # noqa: A002 (PyTorch's name)
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
):
    if (
        input.__class__ is not Tensor or weight.__class__ is not Tensor or _tf_state.anywhere
    ) and has_torch_function((input, weight)):
        return handle_torch_function(
            embedding,
            (input, weight),
            input,
            weight,
            padding_idx=padding_idx,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            sparse=sparse,
        )
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        # embedding_renorm_ reads the indices contiguously; the lookup below shares them
        input = input.contiguous()  # noqa: A001
        with no_grad():
            _functions.embedding_renorm_(weight, input, max_norm, norm_type)
    return _functions.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
