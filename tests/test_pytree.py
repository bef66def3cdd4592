"""ember.utils._pytree against torch.utils._pytree (PyTorch 2.13), on the same trees.

Hypothesis builds nested trees of every built-in node type (tuple, list, dict with its key
order, namedtuple, OrderedDict, defaultdict, deque) with leaves that include None; both
libraries must give the same leaves, the same TreeSpec text, counts and equality, and
unflatten back to an equal tree. Hand-written cases cover Size, structseqs, registration,
tree_map over several trees, tree_map_only and the errors.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import torch

import ember
from ember.utils import _pytree as ours

theirs = torch.utils._pytree

Point = namedtuple("Point", "x y")
Triple = namedtuple("Triple", ["a", "b", "c"])

_leaves = st.one_of(st.none(), st.integers(-5, 5), st.sampled_from(["s", "t", 1.5]))
_keys = st.sampled_from(["a", "b", "c", 0, 1])


def _extend(children):
    return st.one_of(
        st.lists(children, max_size=3).map(tuple),
        st.lists(children, max_size=3),
        st.dictionaries(_keys, children, max_size=3),
        st.dictionaries(_keys, children, max_size=3).map(OrderedDict),
        st.dictionaries(_keys, children, max_size=3).map(lambda d: defaultdict(list, d)),
        st.lists(children, max_size=3).map(deque),
        st.lists(children, max_size=3).map(lambda xs: deque(xs, maxlen=5)),
        st.tuples(children, children).map(lambda p: Point(*p)),
        st.tuples(children, children, children).map(lambda p: Triple(*p)),
    )


trees = st.recursive(_leaves, _extend, max_leaves=12)


def _same_tree(a, b) -> bool:
    """Equal values and, node by node, the same container type."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same_tree(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, deque)):
        return len(a) == len(b) and all(_same_tree(x, y) for x, y in zip(a, b))
    return a == b


@given(trees)
def test_flatten_matches_torch_and_round_trips(tree):
    leaves, spec = ours.tree_flatten(tree)
    torch_leaves, torch_spec = theirs.tree_flatten(tree)
    assert leaves == torch_leaves
    assert repr(spec) == repr(torch_spec)
    assert str(spec) == str(torch_spec)
    assert (spec.num_leaves, spec.num_nodes, spec.num_children, spec.is_leaf()) == (
        torch_spec.num_leaves,
        torch_spec.num_nodes,
        torch_spec.num_children,
        torch_spec.is_leaf(),
    )
    assert ours.tree_leaves(tree) == theirs.tree_leaves(tree)
    assert ours.treespec_pprint(spec) == theirs.treespec_pprint(torch_spec)
    rebuilt = ours.tree_unflatten(leaves, spec)
    assert _same_tree(rebuilt, theirs.tree_unflatten(torch_leaves, torch_spec))
    assert _same_tree(rebuilt, tree)
    if isinstance(tree, defaultdict):
        assert rebuilt.default_factory is tree.default_factory


@given(trees, trees)
def test_spec_equality_and_hash_match_torch(a, b):
    ours_a, ours_b = ours.tree_structure(a), ours.tree_structure(b)
    assert (ours_a == ours_b) == (theirs.tree_structure(a) == theirs.tree_structure(b))
    if ours_a == ours_b:
        assert hash(ours_a) == hash(ours_b)


@given(trees)
def test_tree_map_and_map_only_match_torch(tree):
    def double(x):
        return None if x is None else x * 2

    assert _same_tree(ours.tree_map(double, tree), theirs.tree_map(double, tree))
    for types in (int, (int, float), str):
        assert _same_tree(
            ours.tree_map_only(types, double, tree), theirs.tree_map_only(types, double, tree)
        )
    assert ours.tree_all(lambda x: x is not None, tree) == theirs.tree_all(
        lambda x: x is not None, tree
    )
    assert ours.tree_any_only(int, lambda x: x > 0, tree) == theirs.tree_any_only(
        int, lambda x: x > 0, tree
    )


def _run(lib, fn):
    try:
        return ("ok", fn(lib))
    except Exception as error:  # noqa: BLE001 (the differential compares the error)
        return (type(error).__name__, str(error))


CASES = {
    "none is a leaf": lambda p: repr(p.tree_flatten([None, (None,)])),
    "empty containers": lambda p: repr(p.tree_flatten([(), [], {}, deque()])),
    "dict key order": lambda p: repr(p.tree_flatten({"b": 1, "a": 2, 0: 3})),
    "leaf": lambda p: repr(p.tree_flatten(3)),
    "is_leaf": lambda p: repr(p.tree_flatten((1, [2, 3]), is_leaf=lambda x: isinstance(x, list))),
    "multi-tree map": lambda p: p.tree_map(
        lambda a, b, c: a + b + c, [1, (2,)], [3, (4,)], [5, (6,)]
    ),
    "prefix trees": lambda p: p.tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]]),
    "dicts match as sets": lambda p: p.tree_map(
        lambda x, y: x + y, {"a": 1, "b": 2}, OrderedDict(b=10, a=20)
    ),
    "arity mismatch": lambda p: p.tree_map(lambda a, b: a, [1, 2], [3]),
    "type mismatch": lambda p: p.tree_map(lambda a, b: a, [1], (1,)),
    "keys mismatch": lambda p: p.tree_map(lambda a, b: a, {"a": 1, "b": 2}, {"a": 1, "c": 2}),
    "namedtuple mismatch": lambda p: p.tree_map(lambda a, b: a, Point(1, 2), Triple(1, 2, 3)),
    "unflatten count": lambda p: p.tree_unflatten([1], p.tree_structure([1, (2, {"a": 3})])),
    "unflatten not a spec": lambda p: p.tree_unflatten([1], 1),
    "unflatten swapped": lambda p: p.tree_unflatten(p.tree_structure([1, 2]), [7, 8]),
    "map_only bad": lambda p: p.map_only(3),
    "register twice": lambda p: p.register_pytree_node(list, lambda x: x, lambda x, c: x),
    "leaf spec": lambda p: (repr(p.treespec_leaf()), p.treespec_leaf() == p.tree_structure(1)),
    "tuple spec": lambda p: repr(p.treespec_tuple([p.treespec_leaf(), p.treespec_leaf()])),
    "dict spec": lambda p: repr(p.treespec_dict(a=p.treespec_leaf())),
    "children": lambda p: repr(p.tree_structure([1, (2,)]).children()),
    "list vs tuple": lambda p: p.tree_structure([1, 2]) == p.tree_structure((1, 2)),
    "paths": lambda p: [
        (p.keystr(path), leaf)
        for path, leaf in p.tree_flatten_with_path({"a": [1, Point(2, 3)], "b": (4,)})[0]
    ],
    "arg_tree_leaves": lambda p: p.arg_tree_leaves(1, [2, 3], k=(4, {"z": 5})),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_torch(name):
    assert _run(ours, CASES[name]) == _run(theirs, CASES[name])


class Box:
    def __init__(self, value) -> None:
        self.value = value


def test_register_pytree_node_with_keyword_arguments():
    def flatten(box):
        return [box.value], "ctx"

    def unflatten(values, context):
        return Box(values[0])

    for lib in (ours, theirs):
        lib.register_pytree_node(
            Box,
            flatten,
            unflatten,
            serialized_type_name="tests.Box",
            flatten_with_keys_fn=lambda box, lib=lib: (
                [(lib.GetAttrKey("value"), box.value)],
                "ctx",
            ),
        )
    try:
        tree = [Box(3), Box([4, 5])]
        assert repr(ours.tree_flatten(tree)).replace("ember", "torch") == repr(
            theirs.tree_flatten(tree)
        ).replace("ember", "torch")
        assert ours.tree_map(lambda x: x + 1, Box([1])).value == [2]
        assert [ours.keystr(k) for k, _ in ours.tree_flatten_with_path(tree)[0]] == [
            theirs.keystr(k) for k, _ in theirs.tree_flatten_with_path(tree)[0]
        ]
        mismatch = lambda p: p.tree_map(lambda a, b: a, Box(1), Triple(1, 2, 3))  # noqa: E731
        assert _run(ours, mismatch) == _run(theirs, mismatch)
        assert _run(ours, mismatch)[0] == "ValueError"
    finally:
        ours._deregister_pytree_node(Box)
        theirs._deregister_pytree_node(Box)


def test_to_dumpable_context_needs_both_functions():
    """The same error as PyTorch; unlike PyTorch, the failed call registers nothing."""
    register = lambda p: p.register_pytree_node(Box, None, None, to_dumpable_context=repr)  # noqa: E731
    try:
        assert _run(ours, register) == _run(theirs, register)
        assert _run(ours, register)[0] == "ValueError"
        assert Box not in ours.SUPPORTED_NODES
    finally:
        theirs.SUPPORTED_NODES.pop(Box, None)


def test_size_and_structseq_nodes_match_torch():
    """Size flattens to its ints and comes back a plain tuple, as PyTorch registers it."""
    assert repr(ours.tree_flatten(ember.Size([2, 3]))) == repr(
        theirs.tree_flatten(torch.Size([2, 3]))
    )
    mapped = ours.tree_map(lambda x: x, ember.Size([2]))
    assert type(mapped) is type(theirs.tree_map(lambda x: x, torch.Size([2])))
    values = ember.tensor([[1.0, 3.0], [2.0, 0.0]]).max(1)
    torch_values = torch.tensor([[1.0, 3.0], [2.0, 0.0]]).max(1)
    spec, torch_spec = ours.tree_structure(values), theirs.tree_structure(torch_values)
    assert repr(spec) == repr(torch_spec)
    rebuilt = ours.tree_map(lambda t: t + 1, values)
    assert type(rebuilt).__name__ == "max" and rebuilt.indices.tolist() == [2, 1]


def test_leafspec_warns_as_torch():
    with pytest.warns(FutureWarning, match="isinstance\\(treespec, LeafSpec\\)"):
        spec = ours.LeafSpec()
    assert repr(spec) == "*" and spec == ours.tree_structure(None)


def test_module_is_torch_utils_pytree_after_import():
    assert ember.utils._pytree is ours
