"""torch.multiprocessing.reductions.StorageWeakRef against PyTorch 2.13: equal (and equally
hashed) for tensors sharing a storage, ``expired`` once the storage has died, ``from_weakref``;
and the aliasing a wrapper subclass with ``return_and_correct_aliasing`` promises, read through
StorageWeakRef, for an out-of-place op, a TensorList op, an in-place op, a view, a multi-output
view and an out= op (as PyTorch's TestWrapperSubclassAliasing checks it).

The same program runs with ``torch`` and with ``ember`` standing for it; what it prints must
be the same.
"""

from __future__ import annotations

import gc
import importlib

import pytest
from oracle import torch as _torch

import ember
from ember.multiprocessing.reductions import StorageWeakRef


def _weak_ref_program(torch):
    reductions = importlib.import_module(torch.__name__ + ".multiprocessing.reductions")
    ref = reductions.StorageWeakRef
    out = []
    t = torch.arange(6.0)
    v = t.view(2, 3)[1:]
    c = t.clone()
    a, b = ref(t.untyped_storage()), ref(v.untyped_storage())
    out.append((a == b, hash(a) == hash(b), a == ref(c.untyped_storage())))
    out.append((a.cdata == t.untyped_storage()._cdata, len({a, b, ref(c.untyped_storage())})))
    out.append((t.untyped_storage() is t.untyped_storage(), a.expired(), b.expired()))
    same = reductions.StorageWeakRef.from_weakref(a.cdata)
    out.append((same == a, same.expired(), hash(same) == hash(a)))
    del t, v
    gc.collect()
    out.append((a.expired(), b.expired(), same.expired()))
    other = ref(c.untyped_storage())
    del c
    gc.collect()
    out.append((other.expired(), other == a))
    try:
        a == 5  # noqa: B015
    except AttributeError as error:
        out.append(("AttributeError", str(error)))
    return out


def test_storage_weak_ref_as_torch():
    assert _weak_ref_program(ember) == _weak_ref_program(_torch)


def test_a_dead_storages_handle_is_not_given_again():
    refs = []
    for _ in range(50):
        refs.append(StorageWeakRef(ember.ones(2).untyped_storage()))
    assert all(r.expired() for r in refs)
    assert len({r.cdata for r in refs}) == 50
    fresh = StorageWeakRef(ember.ones(2).untyped_storage())
    assert all(fresh != r for r in refs)


def _aliasing_program(torch, op_name):
    dispatch = importlib.import_module(torch.__name__ + ".utils._python_dispatch")
    pytree = importlib.import_module(torch.__name__ + ".utils._pytree")
    ref = importlib.import_module(torch.__name__ + ".multiprocessing.reductions").StorageWeakRef

    class Pair(torch.Tensor):
        @staticmethod
        def __new__(cls, a, b):
            return torch.Tensor._make_wrapper_subclass(
                cls, a.shape, strides=a.stride(), storage_offset=a.storage_offset(),
                dtype=a.dtype, device=a.device,
            )  # fmt: skip

        def __init__(self, a, b):
            self.a, self.b = a, b

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out_a = func(*pytree.tree_map_only(Pair, lambda x: x.a, args),
                         **pytree.tree_map_only(Pair, lambda x: x.a, kwargs))  # fmt: skip
            out_b = func(*pytree.tree_map_only(Pair, lambda x: x.b, args),
                         **pytree.tree_map_only(Pair, lambda x: x.b, kwargs))  # fmt: skip
            if isinstance(out_a, torch.Tensor):
                out = Pair(out_a, out_b)
            else:
                out = type(out_a)(Pair(p, q) for p, q in zip(out_a, out_b))
            return dispatch.return_and_correct_aliasing(func, args, kwargs, out)

    x = torch.arange(6.0).reshape(2, 3)
    y = torch.ones(2, 3)
    calls = {
        "mul": (torch.ops.aten.mul.Tensor, (x, y), {}),
        "cat": (torch.ops.aten.cat.default, ([x, y],), {}),
        "mul_": (torch.ops.aten.mul_.Tensor, (x, y), {}),
        "view": (torch.ops.aten.view.default, (x, [3, 2]), {}),
        "t_": (torch.ops.aten.t_.default, (x,), {}),
        "split": (torch.ops.aten.split.Tensor, (x, 1), {}),
        "split_with_sizes": (torch.ops.aten.split_with_sizes.default, (x, [1, 1]), {}),
        "add_out": (torch.ops.aten.add.out, (x, y), {"out": torch.empty(2, 3)}),
    }
    op, args, kwargs = calls[op_name]

    def wrap(t):
        return Pair(t, t.clone())

    wrapped_args = pytree.tree_map_only(torch.Tensor, wrap, args)
    wrapped_kwargs = pytree.tree_map_only(torch.Tensor, wrap, kwargs)
    result = op(*wrapped_args, **wrapped_kwargs)
    inputs = [t for t in pytree.tree_leaves((wrapped_args, wrapped_kwargs)) if isinstance(t, Pair)]
    outputs = [t for t in pytree.tree_leaves(result) if isinstance(t, torch.Tensor)]
    return [
        (type(o).__name__, o is i, ref(o.untyped_storage()) == ref(i.untyped_storage()))
        for o in outputs
        for i in inputs
    ]


@pytest.mark.parametrize(
    "op_name", ["mul", "cat", "mul_", "view", "t_", "split", "split_with_sizes", "add_out"]
)
def test_wrapper_subclass_aliasing_as_torch(op_name):
    assert _aliasing_program(ember, op_name) == _aliasing_program(_torch, op_name)
