"""Argument recipes of the bad-arguments sweep: one description, built in either library.

``T`` (a tensor), ``Attr`` (``lib.<name>``), ``Dev`` (``lib.device``), ``NP`` (a NumPy
array) and plain Python values, nested in lists, tuples and dicts: ``build(recipe,
lib)`` makes the same arguments for torch and for ember.
"""

from __future__ import annotations

import dataclasses

import numpy as np

# ---------------------------------------------------------------------------
# Argument recipes: one description, built in either library.


@dataclasses.dataclass(frozen=True)
class T:
    """A tensor recipe: values 0, 1, 2... of ``dtype``, reshaped to ``shape``."""

    shape: tuple = (2, 3)
    dtype: str = "float32"
    device: str = "cpu"
    requires_grad: bool = False

    def build(self, lib):
        if self.device == "meta":
            return lib.empty(self.shape, dtype=getattr(lib, self.dtype), device="meta")
        array = np.arange(int(np.prod(self.shape, dtype=np.int64))).reshape(self.shape)
        result = lib.tensor(array.astype(self.dtype).tolist(), dtype=getattr(lib, self.dtype))
        if self.requires_grad:
            result.requires_grad_(True)
        return result

    def __repr__(self) -> str:
        extra = "" if self.dtype == "float32" else f", {self.dtype}"
        extra += "" if self.device == "cpu" else f", {self.device}"
        extra += ", requires_grad" if self.requires_grad else ""
        return f"T({self.shape}{extra})"


@dataclasses.dataclass(frozen=True)
class Attr:
    """``lib.<name>``: a dtype, a layout, a memory format."""

    name: str

    def build(self, lib):
        found = getattr(lib, self.name, None)
        if found is None:
            raise Unbuildable(f"{lib.__name__} has no {self.name}")
        return found

    def __repr__(self) -> str:
        return f"torch.{self.name}"


@dataclasses.dataclass(frozen=True)
class Dev:
    """``lib.device(spec)``."""

    spec: str

    def build(self, lib):
        return lib.device(self.spec)

    def __repr__(self) -> str:
        return f"torch.device({self.spec!r})"


@dataclasses.dataclass(frozen=True)
class NP:
    """A NumPy array (the same object is handed to both libraries, copied)."""

    values: tuple
    dtype: str = "float32"

    def build(self, lib):
        return np.array(self.values, dtype=self.dtype)

    def __repr__(self) -> str:
        return f"np.array({list(self.values)}, {self.dtype})"


class Unbuildable(Exception):
    """A recipe names something one library lacks: the case is left out."""


class _Object:
    """An object of a type neither library knows."""

    def __repr__(self) -> str:
        return "<object>"


OBJECT = _Object()


def build(recipe, lib):
    if isinstance(recipe, (T, Attr, Dev, NP)):
        return recipe.build(lib)
    if isinstance(recipe, list):
        return [build(item, lib) for item in recipe]
    if isinstance(recipe, tuple):
        return tuple(build(item, lib) for item in recipe)
    if isinstance(recipe, dict):
        return {key: build(value, lib) for key, value in recipe.items()}
    return recipe
