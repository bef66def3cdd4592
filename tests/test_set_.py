"""Tensor.set_ against PyTorch 2.13: its five overloads through the method and through
ember.ops.aten (storage, geometry, version counter, a storage grown to fit), their errors, the
dtype checks only the method makes, what a dispatch mode sees, autograd's refusal and
NotImplemented node, ``x.data =`` on a subclass; and a refused growth that leaves the tensor
as it was (where PyTorch leaves it half-changed).

Each program runs with ``torch`` and with ``ember`` standing for it; what it prints must be
the same (ember spells its own types ``ember.X`` where torch prints ``torch.X``).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from oracle import needs_torch
from oracle import torch as _torch

import ember


def _outcome(f):
    try:
        return f()
    except Exception as error:  # noqa: BLE001 (the outcome is the exception)
        return (type(error).__name__, str(error).split("\n")[0].replace("ember.", "torch."))


def _nbytes(storage) -> int:
    nbytes = storage.nbytes  # a method in torch, an attribute of ember's storage
    return nbytes() if callable(nbytes) else nbytes


def _geometry(t):
    return (
        tuple(t.shape),
        t.stride(),
        t.storage_offset(),
        t._version,
        _nbytes(t.untyped_storage()),
    )


def _shares(a, b) -> bool:
    return a.untyped_storage()._cdata == b.untyped_storage()._cdata


CALLS = {
    "tensor": lambda torch, src: ((src,), {}),
    "tensor_kw": lambda torch, src: ((), {"source": src}),
    "tensor_view": lambda torch, src: ((src.view(3, 4).t(),), {}),
    "tensor_offset": lambda torch, src: ((src, 2, (2, 3), (3, 1)), {}),
    "tensor_offset_contiguous": lambda torch, src: ((src, 2, (2, 3)), {}),
    "tensor_offset_none_stride": lambda torch, src: ((src, 1, [3], None), {}),
    "tensor_offset_kw": lambda torch, src: (
        (),
        {"source": src, "storage_offset": 1, "size": [3], "stride": [2]},
    ),
    "tensor_scalar": lambda torch, src: ((src, 3, (), ()), {}),
    "storage": lambda torch, src: ((src.untyped_storage(),), {}),
    "storage_offset": lambda torch, src: ((src.untyped_storage(), 1, [2, 2], [1, 2]), {}),
    "empty": lambda torch, src: ((), {}),
    "grow": lambda torch, src: ((src, 0, (20,)), {}),
    "grow_storage": lambda torch, src: ((src.untyped_storage(), 4, (3, 5)), {}),
    "bad_offset": lambda torch, src: ((src, -1, (2,)), {}),
    "bad_stride_length": lambda torch, src: ((src, 0, (2, 3), (1,)), {}),
    "negative_size": lambda torch, src: ((src, 0, (-2,)), {}),
    "other_dtype": lambda torch, src: ((torch.arange(3),), {}),
    "other_dtype_offset": lambda torch, src: ((torch.arange(3), 0, [2]), {}),
    "other_dtype_storage": lambda torch, src: ((torch.arange(3).untyped_storage(),), {}),
    "int": lambda torch, src: ((1,), {}),
    "tensor_int": lambda torch, src: ((src, 1), {}),
    "too_many": lambda torch, src: ((src, 0, (2,), (1,), 5), {}),
    "meta_source": lambda torch, src: ((torch.ones(2, device="meta"),), {}),
    "itself": lambda torch, src: (None, None),
}


def _set_program(torch, name):
    src = torch.arange(12.0)
    x = torch.ones(3)
    args, kwargs = CALLS[name](torch, src)
    if args is None:
        args = (x,)
        kwargs = {}

    def call():
        result = x.set_(*args, **kwargs)
        return result is x

    outcome = _outcome(call)
    if outcome is not True:  # an error: PyTorch may have half-changed x; ember has not
        return [outcome]
    values = x.tolist()
    if name in ("grow", "grow_storage"):  # the grown bytes are uninitialised in torch
        values = x.flatten()[:3].tolist()
    return [outcome, _geometry(x), _shares(x, src), _nbytes(src.untyped_storage()), values]


def _unchanged_after_an_error(name) -> bool:
    src = ember.arange(12.0)
    x = ember.ones(3)
    args, kwargs = CALLS[name](ember, src)
    try:
        x.set_(*args, **kwargs)
    except (RuntimeError, TypeError):
        return _geometry(x) == ((3,), (1,), 0, 0, 12) and x.tolist() == [1.0, 1.0, 1.0]
    return True


@pytest.mark.parametrize("name", sorted(CALLS))
def test_set_method_as_torch(name):
    assert _set_program(ember, name) == _set_program(_torch, name)
    assert _unchanged_after_an_error(name)


def test_set_on_meta_as_torch():
    def run(torch):
        x = torch.ones(3, device="meta")
        out = [_outcome(lambda: x.set_(torch.ones(2)))]
        out.append(_outcome(lambda: _geometry(x.set_(torch.ones(4, 2, device="meta")))))
        out.append(_outcome(lambda: _geometry(x.set_(torch.ones(2, device="meta"), 1, [50]))))
        out.append(_outcome(lambda: _geometry(x.set_())))
        return out

    assert run(ember) == run(_torch)


def _operator_program(torch):
    aten = torch.ops.aten
    out = []
    src = torch.arange(6.0)
    x = torch.ones(3)
    out.append((aten.set_.source_Tensor(x, src) is x, _geometry(x)))
    x = torch.ones(3)
    out.append(
        _geometry(aten.set_.source_Storage_storage_offset(x, src.untyped_storage(), 1, [2], []))
    )
    x = torch.ones(3)
    out.append(_geometry(aten.set_.source_Tensor_storage_offset(x, src, 1, [2], [2])))
    x = torch.ones(3)
    out.append(_geometry(aten.set_.source_Storage(x, src.untyped_storage())))
    x = torch.ones(3)
    out.append(_geometry(aten.set_.default(x)))
    # the operator makes none of the method's dtype checks: the bytes are reinterpreted
    x = torch.ones(3)
    aten.set_.source_Tensor(x, torch.tensor([0, 1065353216], dtype=torch.int32))
    out.append((str(x.dtype).replace("ember.", "torch."), x.tolist()))
    for overload in ("default", "source_Tensor", "source_Storage", "source_Storage_storage_offset"):
        out.append(str(getattr(aten.set_, overload)._schema))
    out.append(str(aten.set_.source_Tensor_storage_offset._schema))
    # the storage is shared: a write through one tensor shows through the other
    x = torch.ones(3)
    other = torch.ones(4)
    x.set_(other)
    other.add_(1)
    out.append((x.tolist(), x._version, other._version))
    x = torch.ones(3)
    out.append((_geometry(x.set_(src)), _geometry(x.set_(src)), _geometry(x.set_())))
    return out


def test_set_operators_as_torch():
    assert _operator_program(ember) == _operator_program(_torch)


def _mode_program(torch):
    dispatch = importlib.import_module(torch.__name__ + ".utils._python_dispatch")
    out = []

    class Log(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out.append((str(func), [type(a).__name__ for a in args], kwargs))
            return func(*args, **(kwargs or {}))

    src = torch.arange(6.0)
    x = torch.ones(2)
    with Log():
        x.set_(src)
        x.set_(src, 1, [2])
        x.set_(src.untyped_storage())
        x.set_(src.untyped_storage(), 0, [2], [2])
        x.set_()
        torch.ops.aten.set_.source_Tensor_storage_offset(x, src, 0, [3])
    out.append(x._version)
    return out


def test_what_a_mode_sees_as_torch():
    assert _mode_program(ember) == _mode_program(_torch)


def _autograd_program(torch):
    out = []
    src = torch.arange(3.0)
    x = torch.ones(3, requires_grad=True)
    out.append(_outcome(lambda: x.set_(src)))
    with torch.no_grad():
        x = torch.ones(3, requires_grad=True)
        out.append(_geometry(x.set_(src)))
        out.append(x.requires_grad)
    x = torch.ones(3)
    y = torch.ones(3, requires_grad=True)
    x.set_(y)
    out.append((x.requires_grad, type(x.grad_fn).__name__, x.is_leaf))
    base = torch.ones(3)
    view = base.view(3)
    view.set_(src)
    out.append((view._base is base, _geometry(view), _geometry(base)))
    return out


def test_autograd_as_torch():
    assert _autograd_program(ember) == _autograd_program(_torch)


def _subclass_program(torch):
    calls = []

    class Sub(torch.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            calls.append(str(func))
            return super().__torch_dispatch__(func, types, args, kwargs)

    x = Sub(torch.empty(2))
    _ = x.data  # reading .data dispatches (a detach)
    x.data = torch.zeros(3)
    _ = x.data  # reading .data dispatches (a detach)
    out = [type(x).__name__, tuple(x.shape)]
    x.set_(torch.ones(4))
    _ = x.data  # reading .data dispatches (a detach)
    out += [type(x).__name__, tuple(x.shape), calls]
    return out


def test_subclass_set_and_data_as_torch():
    assert _subclass_program(ember) == _subclass_program(_torch)


def test_a_refused_growth_leaves_the_tensor_as_it_was():
    """PyTorch swaps the storage before it resizes it, and keeps the swap when the resize is
    refused; ember checks first and puts the tensor back (a failed call changes nothing)."""
    shared = ember.from_numpy(np.zeros(3, dtype=np.float32))
    theirs = _torch.from_numpy(np.zeros(3, dtype=np.float32))
    x, y = ember.arange(4.0), _torch.arange(4.0)
    ours = _outcome(lambda: x.set_(shared, 0, (10,)))
    assert ours == _outcome(lambda: y.set_(theirs, 0, (10,)))
    assert _geometry(x) == ((4,), (1,), 0, 0, 16)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and not _shares(x, shared)


@needs_torch
def test_the_codegen_not_implemented_list_is_torchgens():
    """gen_autograd's CODEGEN_NOT_IMPLEMENTED: the ops ember has without a formula that
    torchgen's gen_variable_type gives a NotImplemented node of its own."""
    from torchgen.packaged.autograd import gen_variable_type  # shipped with torch

    from ember.codegen.autograd_model import load_derivatives
    from ember.codegen.gen_autograd import CODEGEN_NOT_IMPLEMENTED
    from ember.codegen.model import load_native_functions

    listed = set(gen_variable_type.RESET_GRAD_ACCUMULATOR) | set(
        gen_variable_type.DONT_ENFORCE_SAME_TENSOR_IMPL_OR_STORAGE
    )
    derivatives = load_derivatives()
    without_formula = {
        f.base_name
        for f in load_native_functions()
        if f.name not in derivatives and not f.is_composite_implicit
    }
    manual = {"resize_"}  # ember/autograd/manual_kernels.py
    assert CODEGEN_NOT_IMPLEMENTED == (listed & without_formula) - manual
