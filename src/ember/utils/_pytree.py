"""Pytrees: nested containers flattened to a list of leaves and a TreeSpec, and rebuilt.

Layer: utils (imports _size and return_types only). Mirrors torch/utils/_pytree.py as
PyTorch 2.13 has it. In: any Python object; the registered node types (tuple, list,
dict, namedtuples, OrderedDict, defaultdict, deque, ember.Size and the
ember.return_types structseqs, plus what ``register_pytree_node`` adds) are nodes,
everything else -- None included -- is a leaf. Out: leaves in depth-first order and a
``TreeSpec`` whose repr, equality and counts are PyTorch's.

Note [Pytree node types]
------------------------
The registry key of a namedtuple instance is the ``collections.namedtuple`` factory
itself (its spec prints ``TreeSpec(namedtuple, <class ...>, ...)`` and the class is
the context), as in PyTorch. ember.Size flattens to its ints and unflattens to a
plain tuple, as PyTorch's registration of torch.Size in proxy_tensor.py does.
Dict keys keep insertion order (the context is the key list).
"""

from __future__ import annotations

import functools
import types

from ember.utils._pytree_nodes import (  # noqa: F401 (torch.utils._pytree's names)
    BUILTIN_TYPES,
    NO_SERIALIZED_TYPE_NAME_FOUND,
    SERIALIZED_TYPE_TO_PYTHON_TYPE,
    STANDARD_DICT_TYPES,
    SUPPORTED_NODES,
    SUPPORTED_SERIALIZED_TYPES,
    Context,
    FlattenFunc,
    GetAttrKey,
    MappingKey,
    NodeDef,
    PyTree,
    SequenceKey,
    UnflattenFunc,
    _deregister_pytree_node,
    _get_node_type,
    _private_register_pytree_node,
    is_namedtuple,
    is_namedtuple_class,
    is_namedtuple_instance,
    is_structseq,
    is_structseq_class,
    is_structseq_instance,
    keystr,
    register_pytree_node,
    tree_is_leaf,
)
from ember.utils._treespec import LeafSpec, TreeSpec, _leaf_spec

__all__ = [
    "PyTree",
    "Context",
    "FlattenFunc",
    "UnflattenFunc",
    "TreeSpec",
    "LeafSpec",
    "SequenceKey",
    "MappingKey",
    "GetAttrKey",
    "keystr",
    "register_pytree_node",
    "tree_is_leaf",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_unflatten",
    "tree_iter",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_structure",
    "tree_map",
    "tree_map_",
    "tree_map_only",
    "tree_map_only_",
    "tree_all",
    "tree_any",
    "tree_all_only",
    "tree_any_only",
    "treespec_pprint",
    "treespec_leaf",
    "treespec_tuple",
    "treespec_dict",
    "is_namedtuple",
    "is_namedtuple_class",
    "is_namedtuple_instance",
    "is_structseq",
    "is_structseq_class",
    "is_structseq_instance",
    "arg_tree_leaves",
]

_LEAF_SPEC = _leaf_spec()


def treespec_leaf() -> LeafSpec:
    return _LEAF_SPEC


def treespec_tuple(iterable=(), /) -> TreeSpec:
    children = list(iterable)
    if any(not isinstance(child, TreeSpec) for child in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), /, **kwargs) -> TreeSpec:
    dct = dict(mapping, **kwargs)
    if any(not isinstance(child, TreeSpec) for child in dct.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {dct!r}.")
    return TreeSpec(dict, list(dct.keys()), list(dct.values()))


# -- flatten, unflatten, map -------------------------------------------------------


def tree_flatten(tree, is_leaf=None):
    """The leaves of ``tree`` in depth-first order and its TreeSpec."""
    leaves: list = []

    def helper(node):
        if tree_is_leaf(node, is_leaf=is_leaf):
            leaves.append(node)
            return _LEAF_SPEC
        node_type = _get_node_type(node)
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        return TreeSpec(node_type, context, [helper(child) for child in children])

    spec = helper(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """The tree ``treespec`` describes, with ``leaves`` put back in order."""
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(
                f"Expected `treespec` to be an instance of "
                f"PyTreeSpec but got item of type {type(treespec)}."
            )
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    if tree_is_leaf(tree, is_leaf=is_leaf):
        yield tree
    else:
        children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
        for child in children:
            yield from tree_iter(child, is_leaf=is_leaf)


def tree_leaves(tree, is_leaf=None) -> list:
    return list(tree_iter(tree, is_leaf=is_leaf))


def tree_structure(tree, is_leaf=None) -> TreeSpec:
    return tree_flatten(tree, is_leaf=is_leaf)[1]


def arg_tree_leaves(*args, **kwargs) -> list:
    """``tree_leaves((args, kwargs))``, faster."""
    leaves: list = []
    for a in args:
        leaves.extend(tree_iter(a))
    for a in kwargs.values():
        leaves.extend(tree_iter(a))
    return leaves


def tree_map(func, tree, *rests, is_leaf=None):
    """``func`` over the leaves of ``tree`` (and the matching subtrees of ``rests``)."""
    leaves, treespec = tree_flatten(tree, is_leaf=is_leaf)
    flat_args = [leaves] + [treespec.flatten_up_to(r) for r in rests]
    return treespec.unflatten(map(func, *flat_args))


def tree_map_(func, tree, *rests, is_leaf=None):
    """``func`` over the leaves for its effect; returns ``tree``."""
    leaves, treespec = tree_flatten(tree, is_leaf=is_leaf)
    flat_args = [leaves] + [treespec.flatten_up_to(r) for r in rests]
    for _ in map(func, *flat_args):
        pass
    return tree


def map_only(type_or_types_or_pred, /):
    """A decorator: the function applies only to leaves of the type(s) / passing the test."""
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):

        def pred(x) -> bool:
            return isinstance(x, type_or_types_or_pred)

    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            if pred(x):
                return func(x)
            return x

        return wrapped

    return wrapper


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf=is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf=is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    return all(pred(x) for x in tree_iter(tree, is_leaf=is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    return any(pred(x) for x in tree_iter(tree, is_leaf=is_leaf) if isinstance(x, type_or_types))


class _Asterisk(str):
    __slots__ = ()

    def __new__(cls):
        return super().__new__(cls, "*")

    def __repr__(self) -> str:
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The tree with ``*`` at each leaf, as repr prints it."""
    return repr(tree_unflatten([_Asterisk()] * treespec.num_leaves, treespec))


# -- key paths ------------------------------------------------------------------------


def _generate_key_paths(key_path, tree, is_leaf=None):
    if is_leaf is not None and is_leaf(tree):
        yield key_path, tree
        return
    node_type = _get_node_type(tree)
    handler = SUPPORTED_NODES.get(node_type)
    if handler is None:
        yield key_path, tree
        return
    if handler.flatten_with_keys_fn is None:
        raise ValueError(
            f"Did not find a flatten_with_keys_fn for type: {node_type}. "
            "Please pass a flatten_with_keys_fn argument to register_pytree_node."
        )
    key_children, _ = handler.flatten_with_keys_fn(tree)
    for k, c in key_children:
        yield from _generate_key_paths((*key_path, k), c, is_leaf)


def tree_flatten_with_path(tree, is_leaf=None):
    """``(key path, leaf)`` pairs and the TreeSpec."""
    _, treespec = tree_flatten(tree, is_leaf)
    return list(_generate_key_paths((), tree, is_leaf)), treespec


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    return list(_generate_key_paths((), tree, is_leaf))
