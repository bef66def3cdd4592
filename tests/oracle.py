"""PyTorch 2.13, the oracle of the differential tests, or a stand-in that skips.

Layer: tests. ``from oracle import torch`` gives real PyTorch where it is
installed (``make test`` installs ``torch==2.13.0``). Where it cannot be
installed, ``torch`` is a stand-in: a test skips at the moment it really
uses torch (calls it, reads a value from it, iterates it), and every test
that never touches torch runs. Attribute access is lazy, so module-level
aliases such as ``TF = torch.nn.functional`` and parametrisations over
``torch.float32`` cost nothing until a test uses them; ``isinstance(x,
torch.Tensor)`` is simply False, since no torch object can exist.

``needs_torch`` marks a test that needs torch before its body runs (for
example, one whose fixture builds torch tensors). conftest.py counts every
skip and prints the reasons at the end of the run.
"""

from __future__ import annotations

import pytest

TORCH_MISSING = "torch==2.13.0 (the PyTorch oracle) is not installed"

try:
    import torch
except ImportError:
    torch = None


class _Missing:
    """A name under ``torch`` on a machine without torch: any real use skips the test."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def _skip(self, *args, **kwargs):
        raise pytest.skip.Exception(f"{TORCH_MISSING} (uses {self._name})", allow_module_level=True)

    def __getattr__(self, attribute: str) -> _Missing:
        if attribute in ("__name__", "__version__", "__file__"):
            self._skip()
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)  # copy, pickle and pytest's introspection ask these
        return _Missing(f"{self._name}.{attribute}")

    def __instancecheck__(self, instance: object) -> bool:
        return False

    def __subclasscheck__(self, subclass: type) -> bool:
        return False

    def __dir__(self) -> list[str]:
        self._skip()

    __repr__ = __str__ = __format__ = __call__ = __iter__ = __len__ = __bool__ = __index__ = (
        __float__
    ) = __int__ = _skip
    __getitem__ = __contains__ = __eq__ = __lt__ = __le__ = __gt__ = __ge__ = _skip
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __neg__ = _skip
    __enter__ = __exit__ = __setattr__ = __mro_entries__ = _skip
    __hash__ = object.__hash__  # a parametrisation may hash its values


HAVE_TORCH = torch is not None
if not HAVE_TORCH:
    torch = _Missing("torch")

needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason=TORCH_MISSING)
