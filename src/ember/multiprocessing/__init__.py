"""ember.multiprocessing: the part of torch.multiprocessing that works without processes.

Layer: multiprocessing (imports only _c10). Mirrors torch/multiprocessing/__init__.py; it
holds ``reductions.StorageWeakRef``, the weak reference to a storage that subclass and
aliasing code (torch.utils._python_dispatch, PyTorch's tests) compare storages with.
"""

from ember.multiprocessing import reductions

__all__ = ["reductions"]
