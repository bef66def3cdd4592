"""`F.cosine_similarity`, `F.pdist` and `F.channel_shuffle` / `F.native_channel_shuffle`:
torch.nn.functional names them as the torch-namespace bindings themselves.

Layer: the Python face, above aten. In/out: as the bindings. Mirrors the `_add_docstr`
assignments of torch/nn/functional.py.
"""

from __future__ import annotations

from ember.aten._generated import python_functions as _functions

__all__ = ["cosine_similarity", "pdist", "channel_shuffle", "native_channel_shuffle"]

cosine_similarity = _functions.cosine_similarity
pdist = _functions.pdist
channel_shuffle = _functions.channel_shuffle
native_channel_shuffle = _functions.native_channel_shuffle
