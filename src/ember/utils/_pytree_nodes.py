"""The pytree node registry: which types are nodes and how each flattens (torch.utils._pytree).

Layer: utils (imports _size and return_types). Mirrors the registry half of
torch/utils/_pytree.py in PyTorch 2.13: ``register_pytree_node``, the built-in node
types and the key-path entries. See Note [Pytree node types] in _pytree.py.
"""

from __future__ import annotations

import dataclasses
import threading
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, NamedTuple

from ember import return_types as _return_types
from ember._size import Size

PyTree = Any
Context = Any
FlattenFunc = Any
UnflattenFunc = Any
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"


class NodeDef(NamedTuple):
    type: type
    flatten_fn: Any
    unflatten_fn: Any
    flatten_with_keys_fn: Any


class _SerializeNodeDef(NamedTuple):
    typ: type
    serialized_type_name: str
    to_dumpable_context: Any
    from_dumpable_context: Any


SUPPORTED_NODES: dict[Any, NodeDef] = {}
SUPPORTED_SERIALIZED_TYPES: dict[Any, _SerializeNodeDef] = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict[str, Any] = {}
_NODE_REGISTRY_LOCK = threading.Lock()


def register_pytree_node(
    cls,
    flatten_fn,
    unflatten_fn,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context=None,
    from_dumpable_context=None,
    flatten_with_keys_fn=None,
) -> None:
    """Make ``cls`` a node: ``flatten_fn(x) -> (children, context)``,
    ``unflatten_fn(children, context) -> x``. ValueError if already registered."""
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(
        cls,
        flatten_fn,
        unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context,
        from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _private_register_pytree_node(
    cls,
    flatten_fn,
    unflatten_fn,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context=None,
    from_dumpable_context=None,
    flatten_with_keys_fn=None,
) -> None:
    """Register (or, with a warning, re-register) ``cls`` as a node."""
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(
                f"{cls} is already registered as pytree node. "
                "Overwriting the previous registration.",
                stacklevel=2,
            )
        if (to_dumpable_context is None) ^ (from_dumpable_context is None):
            # Checked before anything is registered (PyTorch registers the node first).
            raise ValueError(
                f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                "be None or registered."
            )
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        if serialized_type_name is None:
            serialized_type_name = NO_SERIALIZED_TYPE_NAME_FOUND
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(
            cls, serialized_type_name, to_dumpable_context, from_dumpable_context
        )
        SERIALIZED_TYPE_TO_PYTHON_TYPE[serialized_type_name] = cls


def _deregister_pytree_node(cls) -> None:
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        node_def = SUPPORTED_SERIALIZED_TYPES.pop(cls)
        SERIALIZED_TYPE_TO_PYTHON_TYPE.pop(node_def.serialized_type_name, None)


# -- key paths ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp) -> str:
    """A key path as text (``[0]['a'].x``)."""
    return "".join(str(k) for k in kp)


# -- namedtuples and structseqs ------------------------------------------------------


def is_namedtuple_class(cls) -> bool:
    """A tuple subclass with string ``_fields``, ``_make`` and ``_asdict``."""
    return (
        isinstance(cls, type)
        and issubclass(cls, tuple)
        and isinstance(getattr(cls, "_fields", None), tuple)
        and all(type(field) is str for field in cls._fields)
        and callable(getattr(cls, "_make", None))
        and callable(getattr(cls, "_asdict", None))
    )


def is_namedtuple(obj) -> bool:
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


def is_structseq_class(cls) -> bool:
    """A PyStructSequence type (ember's return types count as one)."""
    return (
        isinstance(cls, type)
        and cls.__bases__ in ((tuple,), (_return_types._StructSequence,))
        and isinstance(getattr(cls, "n_fields", None), int)
        and isinstance(getattr(cls, "n_sequence_fields", None), int)
        and isinstance(getattr(cls, "n_unnamed_fields", None), int)
    )


def is_structseq(obj) -> bool:
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_instance(obj) -> bool:
    return is_structseq_class(type(obj))


# -- the built-in node types -----------------------------------------------------------


def _seq_keys(flatten):
    def with_keys(d):
        values, context = flatten(d)
        return [(SequenceKey(i), v) for i, v in enumerate(values)], context

    return with_keys


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d):
    values, context = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context, values)], context


def _defaultdict_flatten(d):
    values, keys = _dict_flatten(d)
    return values, [d.default_factory, keys]


def _defaultdict_flatten_with_keys(d):
    values, context = _defaultdict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context[1], values)], context


def _namedtuple_flatten_with_keys(d):
    return [(GetAttrKey(f), v) for f, v in zip(type(d)._fields, d)], type(d)


def _tuple_flatten(d):
    return list(d), None


_private_register_pytree_node(
    tuple,
    _tuple_flatten,
    lambda values, context: tuple(values),
    serialized_type_name="builtins.tuple",
    flatten_with_keys_fn=_seq_keys(_tuple_flatten),
)
_private_register_pytree_node(
    list,
    lambda d: (d, None),
    lambda values, context: list(values),
    serialized_type_name="builtins.list",
    flatten_with_keys_fn=_seq_keys(lambda d: (d, None)),
)
_private_register_pytree_node(
    dict,
    _dict_flatten,
    lambda values, context: dict(zip(context, values)),
    serialized_type_name="builtins.dict",
    flatten_with_keys_fn=_dict_flatten_with_keys,
)
_private_register_pytree_node(
    namedtuple,
    lambda d: (list(d), type(d)),
    lambda values, context: context(*values),
    serialized_type_name="collections.namedtuple",
    flatten_with_keys_fn=_namedtuple_flatten_with_keys,
)
_private_register_pytree_node(
    OrderedDict,
    _dict_flatten,
    lambda values, context: OrderedDict(zip(context, values)),
    serialized_type_name="collections.OrderedDict",
    flatten_with_keys_fn=_dict_flatten_with_keys,
)
_private_register_pytree_node(
    defaultdict,
    _defaultdict_flatten,
    lambda values, context: defaultdict(context[0], dict(zip(context[1], values))),
    serialized_type_name="collections.defaultdict",
    flatten_with_keys_fn=_defaultdict_flatten_with_keys,
)
_private_register_pytree_node(
    deque,
    lambda d: (list(d), d.maxlen),
    lambda values, context: deque(values, maxlen=context),
    serialized_type_name="collections.deque",
    flatten_with_keys_fn=_seq_keys(lambda d: (list(d), d.maxlen)),
)
# What `import torch` registers besides (proxy_tensor.py and return_types.py).
register_pytree_node(
    Size,
    _tuple_flatten,
    lambda values, context: tuple(values),
    flatten_with_keys_fn=_seq_keys(_tuple_flatten),
    serialized_type_name="ember.Size",
)
for _name in _return_types.__all__:
    _cls = getattr(_return_types, _name)
    if isinstance(_cls, type) and is_structseq_class(_cls):
        register_pytree_node(
            _cls,
            _tuple_flatten,
            lambda values, context, cls=_cls: cls(values),
            flatten_with_keys_fn=_seq_keys(_tuple_flatten),
        )

STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})


def _get_node_type(tree):
    node_type = type(tree)
    if is_namedtuple_class(node_type):
        return namedtuple
    return node_type


def tree_is_leaf(tree, is_leaf=None) -> bool:
    """Whether ``tree`` is a leaf: not of a registered node type, or ``is_leaf`` says so."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES
