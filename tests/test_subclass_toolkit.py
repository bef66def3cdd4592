"""The subclass and mode toolkit against PyTorch 2.13: a LoggingTensor (unwrap with tree_map,
call, rewrap) and a TwoTensor (``__tensor_flatten__``, ``return_and_correct_aliasing``)
through forward, backward, a view, an in-place op, an in-place view op and a split; and the
mode helpers (``is_in_torch_dispatch_mode``, ``_get_current_dispatch_mode(_stack)``,
``_disable_current_modes``, ``no_dispatch``, ``_C._DisableTorchDispatch``).

The same program runs with ``torch`` and with ``ember`` standing for it; what it prints
(every dispatched overload, values, key sets, identities) must be the same.
"""

from __future__ import annotations

import importlib
import re

from oracle import torch as _torch

import ember


def _program(torch, out):
    def print(*values):  # noqa: A001 (the program's prints are collected)
        out.append(" ".join(map(str, values)))

    def storage_id(t):
        storage = t.untyped_storage()
        return getattr(storage, "_cdata", id(storage))  # torch makes a new Python object each time

    pytree = importlib.import_module(torch.__name__ + ".utils._pytree")
    dispatch = importlib.import_module(torch.__name__ + ".utils._python_dispatch")
    mode_utils = importlib.import_module(torch.__name__ + ".utils._mode_utils")
    tree_map = pytree.tree_map
    TorchDispatchMode = dispatch.TorchDispatchMode  # noqa: N806
    is_in_torch_dispatch_mode = dispatch.is_in_torch_dispatch_mode
    _get_current_dispatch_mode = dispatch._get_current_dispatch_mode
    _get_current_dispatch_mode_stack = dispatch._get_current_dispatch_mode_stack
    _disable_current_modes = dispatch._disable_current_modes
    return_and_correct_aliasing = dispatch.return_and_correct_aliasing
    is_traceable_wrapper_subclass = dispatch.is_traceable_wrapper_subclass
    is_traceable_wrapper_subclass_type = dispatch.is_traceable_wrapper_subclass_type
    transform_subclass = dispatch.transform_subclass
    no_dispatch = mode_utils.no_dispatch
    log = []

    class LoggingTensor(torch.Tensor):
        elem: torch.Tensor
        __slots__ = ["elem"]

        @staticmethod
        def __new__(cls, elem, *args, **kwargs):
            r = torch.Tensor._make_wrapper_subclass(
                cls,
                elem.size(),
                strides=elem.stride(),
                storage_offset=elem.storage_offset(),
                dtype=elem.dtype,
                layout=elem.layout,
                device=elem.device,
                requires_grad=kwargs.get("requires_grad", False),
            )
            r.elem = elem.detach() if r.requires_grad else elem
            return r

        def __repr__(self):
            return f"LoggingTensor({self.elem})"

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            def unwrap(e):
                return e.elem if isinstance(e, LoggingTensor) else e

            def wrap(e):
                return LoggingTensor(e) if isinstance(e, torch.Tensor) else e

            rs = tree_map(wrap, func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {})))
            log.append(f"{func}")
            return rs

    x = LoggingTensor(torch.tensor([1.0, 2.0, 3.0]), requires_grad=True)
    y = LoggingTensor(torch.tensor([4.0, 5.0, 6.0]))
    print(torch._C._dispatch_keys(x), x.requires_grad, type(x).__name__, x.layout, x.is_leaf)
    z = x * y + 1
    print(z, type(z).__name__)
    w = z.sum()
    w.backward()
    print(x.grad)
    v = (x.detach() * 2).view(3, 1).t()
    print(v.shape, v.stride())
    print("\n".join(log))

    class TwoTensor(torch.Tensor):
        @staticmethod
        def __new__(cls, a, b):
            shape = a.shape
            kwargs = dict(
                strides=a.stride(),
                storage_offset=a.storage_offset(),
                device=a.device,
                layout=a.layout,
                requires_grad=a.requires_grad,
                dtype=a.dtype,
            )
            return torch.Tensor._make_wrapper_subclass(cls, shape, **kwargs)

        def __init__(self, a, b):
            self.a = a
            self.b = b

        def __repr__(self):
            return f"TwoTensor({self.a}, {self.b})"

        def __tensor_flatten__(self):
            return ["a", "b"], None

        @staticmethod
        def __tensor_unflatten__(inner_tensors, meta, outer_size, outer_stride):
            return TwoTensor(inner_tensors["a"], inner_tensors["b"])

        @classmethod
        def __torch_dispatch__(cls, func, types, args, kwargs):
            kwargs = kwargs or {}
            args_a = tree_map(lambda x: x.a if isinstance(x, TwoTensor) else x, args)
            args_b = tree_map(lambda x: x.b if isinstance(x, TwoTensor) else x, args)
            kw_a = tree_map(lambda x: x.a if isinstance(x, TwoTensor) else x, kwargs)
            kw_b = tree_map(lambda x: x.b if isinstance(x, TwoTensor) else x, kwargs)
            out_a = func(*args_a, **kw_a)
            out_b = func(*args_b, **kw_b)
            if isinstance(out_a, torch.Tensor):
                out = TwoTensor(out_a, out_b)
            elif isinstance(out_a, (list, tuple)):
                out = type(out_a)(TwoTensor(p, q) for p, q in zip(out_a, out_b))
            else:
                out = out_a
            return return_and_correct_aliasing(func, args, kwargs, out)

    t = TwoTensor(torch.arange(6.0).reshape(2, 3), torch.ones(2, 3))
    print(
        is_traceable_wrapper_subclass(t),
        is_traceable_wrapper_subclass(x),
        is_traceable_wrapper_subclass_type(TwoTensor),
        is_traceable_wrapper_subclass(torch.ones(1)),
        is_traceable_wrapper_subclass_type(torch.Tensor),
    )
    v = t.view(3, 2)
    print(type(v).__name__, v.shape, v.a, v.b)
    print("view shares storage", storage_id(v) == storage_id(t))
    r = t.add_(1)
    print(r is t, t.a, t.b)
    parts = t.split(1)
    print(len(parts), [type(p).__name__ for p in parts], [p.shape for p in parts])
    tt = t.t_()
    print(tt is t, t.shape, t.stride(), t.a.shape)
    u = transform_subclass(t, lambda name, inner: inner * 10)
    print(type(u).__name__, u.a, u.b)
    print(torch._C._dispatch_keys(t))

    class M(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            print(
                "mode",
                func,
                is_in_torch_dispatch_mode(),
                is_in_torch_dispatch_mode(False),
                _get_current_dispatch_mode(),
                len(_get_current_dispatch_mode_stack()),
            )
            with no_dispatch():
                print(
                    "  nd",
                    torch._C._dispatch_tls_is_dispatch_key_excluded(torch._C.DispatchKey.Python),
                )
            return func(*args, **(kwargs or {}))

    print(is_in_torch_dispatch_mode(), _get_current_dispatch_mode())
    with M() as m:
        print(
            is_in_torch_dispatch_mode(),
            _get_current_dispatch_mode() is m,
            _get_current_dispatch_mode_stack() == [m],
        )
        torch.ones(2) + 1
        with no_dispatch():
            print(torch.ones(2) + 1)
        with _disable_current_modes() as popped:
            print(popped == [m], _get_current_dispatch_mode(), torch.ones(1) * 2)
        g = torch._C._DisableTorchDispatch()
        print(torch.ones(1) - 1)
        del g
        torch.ones(1)
    print(is_in_torch_dispatch_mode(), is_in_torch_dispatch_mode(include_infra_modes=False))


def _run(torch):
    out = []
    _program(torch, out)
    return [re.sub(r"\btorch\b", "ember", line) for line in out]


def test_logging_and_two_tensor_program_matches_torch():
    theirs = _run(_torch)
    ours = _run(ember)
    assert ours == theirs
    assert any("aten.t.default" in line for line in ours)
    assert any(line.startswith("TwoTensor") for line in ours)


def _guards(torch):
    dispatch = importlib.import_module(torch.__name__ + ".utils._python_dispatch")
    mode_utils = importlib.import_module(torch.__name__ + ".utils._mode_utils")
    excluded = torch._C._dispatch_tls_local_exclude_set
    seen = [str(excluded())]
    with torch._C._DisableTorchDispatch() as entered:
        seen += [entered, str(excluded())]
    seen.append(str(excluded()))
    guard = torch._C._DisableTorchDispatch()
    with mode_utils.no_dispatch():  # nested: the inner release keeps the outer exclusion
        pass
    seen.append(str(excluded()))
    del guard
    seen.append(str(excluded()))

    class Mode(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    mode = Mode()
    dispatch._push_mode(mode)  # a bare push sets no flag, as in PyTorch
    seen += [dispatch.is_in_torch_dispatch_mode(), dispatch._get_current_dispatch_mode() is mode]
    with dispatch._pop_mode_temporarily() as popped:
        seen += [popped is mode, dispatch._get_current_dispatch_mode()]
    dispatch._pop_mode()
    with Mode(), Mode():
        seen += [
            dispatch.is_in_torch_dispatch_mode(),
            len(dispatch._get_current_dispatch_mode_stack()),
        ]
    seen += [dispatch.is_in_torch_dispatch_mode(), dispatch.is_in_torch_dispatch_mode(False)]
    return [re.sub(r"\btorch\b", "ember", str(value)) for value in seen]


def test_guards_and_mode_helpers_match_torch():
    assert _guards(ember) == _guards(_torch)


def _disabled_dispatch(torch):
    seen = []

    class Sub(torch.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return torch.Tensor._make_subclass(cls, elem, elem.requires_grad)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return super().__torch_dispatch__(func, types, args, kwargs)

    x = Sub(torch.ones(2, requires_grad=True))
    y = x * 2
    seen += [type(y).__name__, y.tolist(), type(y.grad_fn).__name__]

    class Off(torch.Tensor):
        __torch_dispatch__ = torch._C._disabled_torch_dispatch_impl

    seen.append(str(torch._C._dispatch_keys(torch.Tensor._make_subclass(Off, torch.ones(2)))))
    try:
        torch.Tensor._make_wrapper_subclass(Off, (2,))
    except TypeError as error:
        seen.append(str(error))
    seen.append(torch.Tensor.__torch_dispatch__ is torch._C._disabled_torch_dispatch_impl)
    add = torch.ops.aten.add.Tensor
    seen.append(
        torch._C._disabled_torch_dispatch_impl(add, (), (torch.ones(1), torch.ones(1))).tolist()
    )
    seen.append(str(torch._C._dispatch_tls_local_exclude_set()))
    return seen


def test_disabled_torch_dispatch_impl_matches_torch():
    """Tensor.__torch_dispatch__ is the disabled impl: super() runs the op below Python, and
    a class that keeps it (or sets it) does not define __torch_dispatch__."""
    assert _disabled_dispatch(ember) == _disabled_dispatch(_torch)
