"""TreeSpec: the structure of a pytree without its leaves (torch.utils._pytree.TreeSpec).

Layer: utils (imports utils._pytree_nodes). Mirrors the TreeSpec and LeafSpec classes of
torch/utils/_pytree.py in PyTorch 2.13: a frozen record of the node type, its context and
the children's specs, printed ``TreeSpec(list, None, [*,\\n  *])``; leaves print ``*``.
In: what ``tree_flatten`` builds. Out: ``unflatten`` and ``flatten_up_to`` with PyTorch's
ValueError texts.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections import defaultdict, deque

from ember.utils._pytree_nodes import (
    BUILTIN_TYPES,
    STANDARD_DICT_TYPES,
    SUPPORTED_NODES,
    _get_node_type,
)

__all__ = ["TreeSpec", "LeafSpec"]


class TreeSpec:
    """The type of the root node, its context and one child spec per child."""

    __slots__ = ("type", "_context", "_children", "num_nodes", "num_leaves", "num_children")

    def __init__(self, type, context, children_specs) -> None:
        _set = object.__setattr__
        _set(self, "type", type)
        _set(self, "_context", context)
        _set(self, "_children", children_specs)
        if type is None:
            if context is not None:
                raise AssertionError("leaf node should not have a context")
            if len(children_specs) != 0:
                raise AssertionError("leaf node should not have children")
            num_nodes = num_leaves = 1
        else:
            num_nodes, num_leaves = 1, 0
            for child in children_specs:
                num_nodes += child.num_nodes
                num_leaves += child.num_leaves
        _set(self, "num_nodes", num_nodes)
        _set(self, "num_leaves", num_leaves)
        _set(self, "num_children", len(children_specs))

    def __setattr__(self, name, value) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field '{name}'")

    def __delattr__(self, name) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field '{name}'")

    def __repr__(self, indent: int = 0) -> str:
        text = f"TreeSpec({self.type.__name__}, {self._context}, ["
        if self.num_children > 0:
            indent += 2
            children = self._children
            text += children[0].__repr__(indent)
            text += "," if self.num_children > 1 else ""
            text += ",".join("\n" + " " * indent + child.__repr__(indent) for child in children[1:])
        return text + "])"

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if other.__class__ is self.__class__:
            return (
                str(self.type) == str(other.type)
                and self._context == other._context
                and self._children == other._children
            )
        return NotImplemented

    def __hash__(self) -> int:
        node_type = self.type
        if node_type is defaultdict:
            factory, keys = self._context
            context = (factory, tuple(keys))
        elif node_type in STANDARD_DICT_TYPES:
            context = tuple(self._context)
        elif node_type is None or node_type in BUILTIN_TYPES:
            context = self._context
        else:
            context = None  # a user type's context need not be hashable
        return hash((node_type, context, tuple(self._children)))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (TreeSpec, (self.type, self._context, self._children))

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self) -> list:
        warnings.warn(
            "`treespec.children_specs` is deprecated. Use `treespec.child(index)` to access "
            "a single child, or `treespec.children()` to get all children.",
            FutureWarning,
            stacklevel=2,
        )
        return self._children

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list:
        return self._children.copy()

    def child(self, index: int):
        return self._children[index]

    def flatten_up_to(self, tree) -> list:
        """The subtrees of ``tree`` at this spec's leaves (``tree`` has this spec as a prefix)."""
        subtrees: list = []
        _flatten_up_to(self, tree, subtrees)
        return subtrees

    def unflatten(self, leaves):
        """The tree this spec describes, with ``leaves`` in depth-first order."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                f"but the spec refers to a pytree that holds {self.num_leaves} "
                f"items ({self}).",
            )
        if self.is_leaf():
            return leaves[0]
        start = 0
        children = []
        for child in self._children:
            end = start + child.num_leaves
            children.append(child.unflatten(leaves[start:end]))
            start = end
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)


def _flatten_up_to(spec: TreeSpec, node, subtrees: list) -> None:
    if spec.is_leaf():
        subtrees.append(node)
        return
    node_type = _get_node_type(node)
    if spec.type not in BUILTIN_TYPES:  # a custom node type must match exactly
        if node_type != spec.type:
            raise ValueError(f"Type mismatch; expected {spec.type!r}, but got {node_type!r}.")
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        if len(children) != spec.num_children:
            raise ValueError(
                f"Node arity mismatch; expected {spec.num_children}, but got {len(children)}."
            )
        if context != spec._context:
            raise ValueError(f"Node context mismatch for custom node type {spec.type!r}.")
    else:
        both_dicts = spec.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES
        if not both_dicts and node_type != spec.type:
            raise ValueError(f"Node type mismatch; expected {spec.type!r}, but got {node_type!r}.")
        if len(node) != spec.num_children:
            raise ValueError(
                f"Node arity mismatch; expected {spec.num_children}, but got {len(node)}."
            )
        if both_dicts:  # dict types match one another; the keys must agree as sets
            expected_keys = spec._context if spec.type is not defaultdict else spec._context[1]
            got, expected = set(node), set(expected_keys)
            if got != expected:
                message = ""
                if expected - got:
                    message += f"; missing key(s): {expected - got}"
                if got - expected:
                    message += f"; extra key(s): {got - expected}"
                raise ValueError(f"Node keys mismatch{message}.")
            children = [node[key] for key in expected_keys]
        else:
            children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
            if node_type is not deque and context != spec._context:
                raise ValueError(
                    f"Node context mismatch for node type {spec.type!r}; "
                    f"expected {spec._context!r}, but got {context!r}.",
                )
    for subtree, subspec in zip(children, spec._children):
        _flatten_up_to(subspec, subtree, subtrees)


class LeafSpec(TreeSpec):
    """The spec of a leaf (deprecated in 2.13: use ``treespec_leaf()`` and ``is_leaf()``)."""

    __slots__ = ()

    def __init__(self) -> None:
        warnings.warn(
            "`isinstance(treespec, LeafSpec)` is deprecated, use "
            "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
            FutureWarning,
            stacklevel=2,
        )
        _init_leaf(self)

    def __repr__(self, indent: int = 0) -> str:
        return "*"

    def __reduce__(self):
        return (_leaf_spec, ())


def _init_leaf(spec: LeafSpec) -> None:
    TreeSpec.__init__(spec, None, None, [])


def _leaf_spec() -> LeafSpec:
    """The shared leaf spec, made without the deprecation warning."""
    spec = object.__new__(LeafSpec)
    _init_leaf(spec)
    return spec
