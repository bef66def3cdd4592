"""opcheck: test a custom operator's registrations the way torch.library.opcheck does.

Layer: top (custom-op layer; imports ember, the modes). Mirrors
torch/testing/_internal/optests (generate_tests.opcheck, autograd_registration,
fake_tensor) and torch/_subclasses/schema_check_mode.py (facts §10.4).
In: an OpOverload (or packet with one overload, or CustomOpDef) and sample
arguments. Out: ``{test name: 'SUCCESS'}``, or an ``OpCheckError`` naming the
failed check and what differed (with ``raise_exception=False`` the exception
is stored in the dict instead).

The four checks:
* test_schema: every operator run (the op and what it calls) leaves inputs
  not annotated as written unchanged, and its outputs alias inputs only as
  annotated (a dispatch mode below autograd, as SchemaCheckMode).
* test_autograd_registration: with inputs requiring grad, the op has a kernel
  at AutogradCPU / Autograd / CompositeImplicitAutograd, or its outputs do
  not require grad.
* test_faketensor: under FakeTensorMode the op's outputs have the real
  outputs' sizes, strides, storage offset, dtype, device and requires_grad.
* test_aot_dispatch_dynamic: forward and backward are traced into a graph of
  aten calls (``graph_capture.py``), replayed on the same and on fresh random
  inputs, and compared with eager outputs and gradients.
"""

from __future__ import annotations

import itertools

import numpy as np

from ember import _C, _ops
from ember._tensor import Tensor
from ember.utils._python_dispatch import TorchDispatchMode

from .graph_capture import aot_dispatch_check

__all__ = ["opcheck", "OpCheckError", "DEFAULT_TEST_UTILS"]

DEFAULT_TEST_UTILS = (
    "test_schema",
    "test_autograd_registration",
    "test_faketensor",
    "test_aot_dispatch_dynamic",
)


class OpCheckError(Exception):
    pass


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        for item in tree:
            yield from _leaves(item)
    elif isinstance(tree, dict):
        for item in tree.values():
            yield from _leaves(item)
    else:
        yield tree


def _map_tensors(fn, tree):
    if isinstance(tree, Tensor):
        return fn(tree)
    if isinstance(tree, (list, tuple)):
        return type(tree)(_map_tensors(fn, item) for item in tree)
    if isinstance(tree, dict):
        return {key: _map_tensors(fn, value) for key, value in tree.items()}
    return tree


def deepcopy_tensors(tree):
    """Fresh leaf copies: same values, strides and requires_grad."""

    def copy(tensor):
        result = tensor.detach().clone()
        result.requires_grad = tensor.requires_grad
        return result

    return _map_tensors(copy, tree)


def _is_abstract(tensor) -> bool:
    return tensor.device.type == "meta" or getattr(tensor, "_python_dispatch", False)


# -- test_schema -----------------------------------------------------------------------


def _same_storage(a, b) -> bool:
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or _is_abstract(a):
        return False
    return a.storage() is b.storage()


def _values_changed(before, after) -> bool:
    if before._sizes != after._sizes or before._strides != after._strides:
        return True
    old, new = before.detach().numpy(), after.detach().numpy()
    return not np.array_equal(old, new, equal_nan=old.dtype.kind in "fc")


class SchemaCheckMode(TorchDispatchMode):
    """Checks every operator against its schema's write and alias annotations."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        schema = func._schema
        full = schema.bind(args, kwargs)
        snapshots = [
            _map_tensors(lambda t: t.detach().clone(), value) if not _abstract_tree(value) else None
            for value in full
        ]
        out = func(*args, **kwargs)
        outputs = out if isinstance(out, tuple) else (out,)
        flat_outputs = list(_leaves(outputs))
        for argument, before, after in zip(schema.arguments, snapshots, full):
            alias = argument.alias_info
            for output_index, output in enumerate(flat_outputs):
                for value in _leaves(after):
                    if _same_storage(output, value) and alias is None:
                        raise RuntimeError(
                            f"Argument {argument.name} is not defined to alias output but was "
                            "aliasing"
                        )
                    if (
                        output is value
                        and isinstance(value, Tensor)
                        and not (alias is not None and alias.is_write)
                    ):
                        raise RuntimeError(
                            "Dispatcher operators below autograd are not allowed to directly "
                            f"return inputs.\nHowever, we found that `outputs[{output_index}] "
                            f"is {argument.name}"
                        )
            if before is None or (alias is not None and alias.is_write):
                continue
            pairs = zip(_leaves(before), _leaves(after))
            if any(isinstance(a, Tensor) and _values_changed(a, b) for a, b in pairs):
                raise RuntimeError(
                    f"Argument {argument.name} is not defined as mutable but was mutated"
                )
        returns = schema.returns
        for i, j in itertools.combinations(range(len(returns)), 2):
            if _same_storage(outputs[i], outputs[j]) and returns[i].alias_info is None:
                raise RuntimeError(f"Outputs {i} and {j} alias unexpectedly")
        return out


def _abstract_tree(value) -> bool:
    return any(isinstance(t, Tensor) and _is_abstract(t) for t in _leaves(value))


def schema_check(op, args, kwargs, **_):
    args, kwargs = deepcopy_tensors((args, kwargs))
    if _abstract_tree((args, kwargs)):
        return None
    with SchemaCheckMode():
        return op(*args, **kwargs)


# -- test_autograd_registration --------------------------------------------------------------


def autograd_registration_check(op, args, kwargs, **_):
    if _abstract_tree((args, kwargs)):
        return
    args, kwargs = deepcopy_tensors((args, kwargs))
    tensors = [t for t in _leaves((args, kwargs)) if isinstance(t, Tensor)]
    if not any(t.requires_grad for t in tensors):
        return
    devices = {t.device.type for t in tensors}
    if not devices.issubset(["cpu", "cuda", "xpu"]):
        raise NotImplementedError(
            f"autograd_registration_check: NYI devices other than CPU/CUDA/XPU, got {devices}"
        )
    name = op.name()
    for key in ("AutogradCPU", "Autograd", "CompositeImplicitAutograd"):
        if _C._dispatch_has_kernel_for_dispatch_key(name, key):
            return
    from ember.autograd import fallback

    previous = fallback.get_autograd_fallback_mode()
    fallback.set_autograd_fallback_mode("nothing")
    try:
        outputs = op(*args, **kwargs)
    finally:
        fallback.set_autograd_fallback_mode(previous)
    input_ids = {id(t) for t in _leaves((args, kwargs))}
    if not any(
        isinstance(out, Tensor) and out.requires_grad and id(out) not in input_ids
        for out in _leaves(outputs)
    ):
        return
    raise AssertionError(
        f"{name}: at least one output of this operator has requires_grad=True but the "
        "operator does not have an autograd kernel defined at an autograd key (e.g. "
        "DispatchKey::Autograd). This could mean that you have incorrectly registered an "
        "autograd kernel to a non-Autograd DispatchKey, which may lead to silently incorrect "
        "results. If your operator consists of regular PyTorch operations, consider not using "
        "an operator at all or registering your operator as CompositeImplicitAutograd. If you "
        "have an autograd.Function registered to a backend (CPU/CUDA/XPU) key, the correct "
        "location for it is the Autograd key."
    )


# -- test_faketensor -----------------------------------------------------------------------


def _check_fake_real(real, fake) -> None:
    checks = (
        ("Shapes", tuple(real.shape), tuple(fake.shape)),
        ("Strides", real.stride(), fake.stride()),
        ("Storage offsets", real.storage_offset(), fake.storage_offset()),
        ("Dtypes", real.dtype, fake.dtype),
        ("Devices", real.device, fake.device),
        ("requires_grad", real.requires_grad, fake.requires_grad),
    )
    for what, real_value, fake_value in checks:
        if real_value != fake_value:
            raise AssertionError(f"{what} {real_value} and {fake_value} are not equal!")


def fake_check(op, args, kwargs, **_):
    from ember._subclasses.fake_tensor import FakeTensorMode

    if _abstract_tree((args, kwargs)):
        return
    args, kwargs = deepcopy_tensors((args, kwargs))
    with FakeTensorMode() as mode:
        fake_args, fake_kwargs = _map_tensors(mode.from_tensor, (args, kwargs))
        fake_out = op(*fake_args, **fake_kwargs)
    real_out = op(*args, **kwargs)
    context = f"When comparing the output of {op} on FakeTensor and concrete Tensors, found"
    real_flat, fake_flat = list(_leaves(real_out)), list(_leaves(fake_out))
    if len(real_flat) != len(fake_flat):
        raise AssertionError(
            f"{context} mismatch in number of returns {len(fake_flat)} != {len(real_flat)}"
        )
    for index, (real, fake) in enumerate(zip(real_flat, fake_flat)):
        if isinstance(real, Tensor) != isinstance(fake, Tensor):
            raise AssertionError(f"{context} mismatched number of tensor outputs")
        if isinstance(real, Tensor):
            try:
                _check_fake_real(real, fake)
            except AssertionError as error:
                where = "" if len(real_flat) == 1 else f" for output[{index}]"
                raise AssertionError(
                    f"{context} mismatched tensor metadata{where}: {error}"
                ) from error


# -- opcheck ---------------------------------------------------------------------------------

ALL_TEST_UTILS = {
    "test_schema": schema_check,
    "test_autograd_registration": autograd_registration_check,
    "test_faketensor": fake_check,
    "test_aot_dispatch_dynamic": aot_dispatch_check,
}


def opcheck(
    op,
    args,
    kwargs=None,
    *,
    test_utils=DEFAULT_TEST_UTILS,
    raise_exception=True,
    rtol=None,
    atol=None,
) -> dict:
    """Run the checks on ``op(*args, **kwargs)``; see the module docstring."""
    if (rtol is None) ^ (atol is None):
        raise ValueError("opcheck(op, ...): if you specify one of rtol/atol, you must specify both")
    kwargs = {} if kwargs is None else kwargs
    if type(op).__name__ == "CustomOpDef":
        op = op._opoverload
    if isinstance(op, _ops.OpOverloadPacket):
        overloads = op.overloads()
        if len(overloads) != 1:
            raise ValueError(
                f"opcheck(op, ...): op must be a torch._ops.OpOverload, got an "
                f"OpOverloadPacket with overloads {overloads}"
            )
        op = getattr(op, overloads[0])
    if not isinstance(op, _ops.OpOverload):
        raise ValueError(
            "opcheck(op, ...): op must be instance of torch._ops.OpOverload, e.g. "
            f"torch.ops.aten.sin.default, got {type(op)}"
        )
    if test_utils == "ALL":
        test_utils = tuple(ALL_TEST_UTILS)
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not isinstance(test_utils, (tuple, list)) or not set(test_utils) <= set(ALL_TEST_UTILS):
        raise ValueError(
            f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be subset of "
            f"{tuple(ALL_TEST_UTILS)} but it was not"
        )
    results: dict = {}
    for name in test_utils:
        try:
            ALL_TEST_UTILS[name](op, args, kwargs, rtol=rtol, atol=atol)
            results[name] = "SUCCESS"
        except Exception as error:  # noqa: BLE001 (every failure is reported)
            if raise_exception:
                raise OpCheckError(
                    f"opcheck(op, ...): {name} failed with {error} (scroll up for stack trace)"
                ) from error
            results[name] = error
    return results
