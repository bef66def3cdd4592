"""torch.func.vmap: in_dims / out_dims over pytrees, chunking, randomness, and the misuse errors.

Layer: _functorch (imports utils' pytrees). Mirrors torch/_functorch/vmap.py and the vmap
of torch/_functorch/apis.py (the messages are PyTorch's, facts A5-A8). In: a function and
its arguments. Out: the function applied per sample, by one call on BatchedTensors at a
fresh vmap level (See Note [The functorch layer stack]).
"""

from __future__ import annotations

import functools
import itertools

from .. import random as _random
from .._tensor import Tensor
from ..aten.native import at
from ..utils._pytree import tree_flatten, tree_map_, tree_unflatten
from ..utils._pytree_nodes import SUPPORTED_NODES, _get_node_type
from . import dynamic_layer
from .batched_tensor import is_batched_at, make_batched
from .unwrap import remove_batch_dim
from .vmap_interpreter import VmapInterpreter, randomness_type

__all__ = ["vmap"]


def _name(func) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _is_leaf(tree) -> bool:
    return _get_node_type(tree) not in SUPPORTED_NODES


def broadcast_to_and_flatten(tree, spec):
    """``tree`` (a prefix of ``spec``'s structure) with each leaf repeated over the leaves of
    ``spec`` below it, flattened; None when ``tree`` is no prefix of ``spec``."""
    if _is_leaf(tree):
        return [tree] * spec.num_leaves
    if spec.is_leaf():
        return None
    node_type = _get_node_type(tree)
    if node_type != spec.type:
        return None
    children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
    if len(children) != spec.num_children or context != spec.context:
        return None
    flat: list = []
    for child, child_spec in zip(children, spec.children()):
        part = broadcast_to_and_flatten(child, child_spec)
        if part is None:
            return None
        flat += part
    return flat


def _check_out_dims(out_dims, func) -> None:
    if isinstance(out_dims, int):
        return

    def check(leaf) -> None:
        if leaf is not None and not isinstance(leaf, int):
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, "
                "None or a python collection of ints representing where in the outputs the "
                "vmapped dimension should appear."
            )

    tree_map_(check, out_dims)


def _batch_size(flat_in_dims, flat_args) -> int:
    sizes = [arg.size(d) for d, arg in zip(flat_in_dims, flat_args) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(size != sizes[0] for size in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, "
            f"got sizes {sizes} for the mapped dimension"
        )
    return sizes[0]


def _flat_inputs(in_dims, args, func):
    """_process_batched_inputs: (batch size, flat in_dims, flat args, args spec)."""
    head = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): "
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            head + "expected `in_dims` to be int or a (potentially nested) tuple matching the "
            f"structure of inputs, got: {type(in_dims)}."
        )
    if not args:
        raise ValueError(
            f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, "
            "or you are trying to vmap over a function with no inputs. The latter is "
            "unsupported."
        )
    if isinstance(in_dims, int) and all(arg.__class__ is Tensor for arg in args):
        flat_in_dims = [in_dims] * len(args)  # every argument a tensor leaf: no pytree
        flat_args, spec = list(args), None
    else:
        flat_args, spec = tree_flatten(args)
        flat_in_dims = broadcast_to_and_flatten(in_dims, spec)
    if flat_in_dims is None:
        raise ValueError(
            head + "in_dims is not compatible with the structure of `inputs`. in_dims has "
            f"structure {tree_flatten(in_dims)[1]} but inputs has structure {spec}."
        )
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims)):
        if in_dim is not None and not isinstance(in_dim, int):
            raise ValueError(
                head + f"Got in_dim={in_dim} for an input but in_dim must be either an "
                "integer dimension or None."
            )
        if isinstance(in_dim, int) and not isinstance(arg, Tensor):
            raise ValueError(
                head + f"Got in_dim={in_dim} for an input but the input is of type "
                f"{type(arg)}. We cannot vmap over non-Tensor arguments, please use None as "
                "the respective in_dim"
            )
        if in_dim is not None:
            ndim = arg.dim()
            if in_dim < -ndim or in_dim >= ndim:
                raise ValueError(
                    head + f"Got in_dim={in_dim} for some input, but that input is a Tensor "
                    f"of dimensionality {ndim} so expected in_dim to satisfy "
                    f"-{ndim} <= in_dim < {ndim}."
                )
            flat_in_dims[i] = in_dim % ndim
    return _batch_size(flat_in_dims, flat_args), flat_in_dims, flat_args, spec


def _unwrap_output(name, output, level, batch_size, out_dim):
    if out_dim is None:
        if isinstance(output, Tensor) and is_batched_at(output, level):
            raise ValueError(
                f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None"
            )
        return output
    if not isinstance(output, Tensor):
        raise ValueError(
            f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(output)}. "
            "Did you mean to set out_dims= to None for output?"
        )
    return remove_batch_dim(output, level, batch_size, out_dim)


def _flat_out_dims(outputs, out_dims, spec, func):
    def incompatible():
        return ValueError(
            f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
            "compatible with the structure of `outputs`. out_dims has structure "
            f"{tree_flatten(out_dims)[1]} but outputs has structure {spec}."
        )

    if isinstance(outputs, Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        raise incompatible()
    flat = broadcast_to_and_flatten(out_dims, spec)
    if flat is None:
        raise incompatible()
    return flat


def _flat_vmap(func, batch_size, flat_in_dims, flat_args, spec, out_dims, randomness, kwargs):
    level = dynamic_layer.next_level()
    with dynamic_layer.pushed(VmapInterpreter(level, batch_size, randomness)):
        inputs = [
            arg if d is None else make_batched(arg, d, level)
            for d, arg in zip(flat_in_dims, flat_args)
        ]
        if spec is None:  # the positional arguments were the leaves
            outputs = func(*inputs, **kwargs)
        else:
            outputs = func(*tree_unflatten(inputs, spec), **kwargs)
        if isinstance(outputs, Tensor) and isinstance(out_dims, int):
            return _unwrap_output(None, outputs, level, batch_size, out_dims)
        flat_outputs, out_spec = tree_flatten(outputs)
        flat_dims = _flat_out_dims(outputs, out_dims, out_spec, func)
        name = _name(func)
        unwrapped = [
            _unwrap_output(name, out, level, batch_size, d)
            for out, d in zip(flat_outputs, flat_dims)
        ]
        return tree_unflatten(unwrapped, out_spec)


def _chunk_sizes(total: int, chunk_size) -> list:
    sizes = [chunk_size] * (total // chunk_size)
    if total % chunk_size:
        sizes.append(total % chunk_size)
    return sizes


def _chunked_vmap(func, batch_size, flat_in_dims, flat_args, spec, out_dims, randomness,
                  chunk_size, kwargs):  # fmt: skip
    splits = tuple(itertools.accumulate(_chunk_sizes(batch_size, chunk_size)))
    per_arg = [
        arg.tensor_split(splits, dim=d) if d is not None else [arg] * len(splits)
        for arg, d in zip(flat_args, flat_in_dims)
    ]
    state = _random.get_rng_state() if randomness == "same" else None
    chunks = []
    for chunk_args in zip(*per_arg):
        chunk_args = list(chunk_args)
        size = _batch_size(flat_in_dims, chunk_args)
        if size == 0:
            continue
        if state is not None:
            _random.set_rng_state(state)
        chunks.append(
            _flat_vmap(func, size, flat_in_dims, chunk_args, spec, out_dims, randomness, kwargs)
        )
    flat_chunks = []
    out_spec = None
    for output in chunks:
        flat, chunk_spec = tree_flatten(output)
        flat_chunks.append(flat)
        out_spec = chunk_spec if out_spec is None else out_spec
    flat_dims = broadcast_to_and_flatten(out_dims, out_spec)
    joined = [at.cat(list(parts), d) for parts, d in zip(zip(*flat_chunks), flat_dims)]
    return tree_unflatten(joined, out_spec)


def _check_randomness(randomness) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """torch.func.vmap: ``func`` mapped over the ``in_dims`` of its arguments."""
    _check_randomness(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    randomness_type(randomness)

    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        batch_size, flat_in_dims, flat_args, spec = _flat_inputs(in_dims, args, func)
        if chunk_size is not None:
            return _chunked_vmap(func, batch_size, flat_in_dims, flat_args, spec, out_dims,
                                 randomness, chunk_size, kwargs)  # fmt: skip
        return _flat_vmap(func, batch_size, flat_in_dims, flat_args, spec, out_dims,
                          randomness, kwargs)  # fmt: skip

    return functools.wraps(func)(wrapped)
