"""Views and version counters of tensor subclasses, against PyTorch 2.13.

A view a kernel makes is a plain tensor without the Python keys, whatever its base's
class (Note [Views are plain tensors]); it starts with a version counter of its own,
which the view op's ADInplaceOrView kernel replaces with its base's (as_view). Each case
runs one program on torch and on ember and compares what it prints.
"""

from __future__ import annotations

import importlib

import pytest
from oracle import torch

import ember


def _no_dispatch(lib):
    return importlib.import_module(lib.__name__ + ".utils._mode_utils").no_dispatch


def _tree_map(lib):
    return importlib.import_module(lib.__name__ + ".utils._pytree").tree_map


def _keys(lib, t) -> str:
    return str(lib._C._dispatch_keys(t))


def _both(program):
    ours, theirs = program(ember), program(torch)
    assert ours == theirs
    return ours


def _subclass(lib):
    """A _make_subclass subclass whose handler runs the op with dispatch disabled."""
    no_dispatch = _no_dispatch(lib)

    class Sub(lib.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return lib.Tensor._make_subclass(cls, elem, elem.requires_grad)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            with no_dispatch():
                return func(*args, **(kwargs or {}))

    return Sub


def _wrapper(lib):
    """A wrapper subclass whose handler unwraps, runs the op and wraps each result."""
    tree_map = _tree_map(lib)

    class Wrapper(lib.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = lib.Tensor._make_wrapper_subclass(
                cls, elem.size(), dtype=elem.dtype, device=elem.device
            )
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            def unwrap(e):
                return e.elem if isinstance(e, Wrapper) else e

            def wrap(e):
                return Wrapper(e) if isinstance(e, lib.Tensor) else e

            return tree_map(wrap, func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {})))

    return Wrapper


VIEWS = {
    "view": lambda lib, t: [t.view(2, 2)],
    "detach": lambda lib, t: [t.detach()],
    "split": lambda lib, t: list(t.split(2)),
    "unbind": lambda lib, t: list(t.unbind()),
    "getitem": lambda lib, t: [t[1:]],
    "transpose": lambda lib, t: [t.view(2, 2).t()],
    "alias": lambda lib, t: [lib.ops.aten.alias(t)],
}


def _view_of(lib, name, t):
    return VIEWS[name](lib, t)


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_made_below_dispatch_are_plain_tensors(name):
    def program(lib):
        a = _subclass(lib)(lib.arange(4.0))
        with _no_dispatch(lib)():
            views = _view_of(lib, name, a)
        return [(type(v).__name__, _keys(lib, v), v._base is a) for v in views]

    _both(program)


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_through_the_handler_are_what_it_returns(name):
    def program(lib):
        a = _subclass(lib)(lib.arange(4.0))
        return [(type(v).__name__, _keys(lib, v)) for v in _view_of(lib, name, a)]

    _both(program)


@pytest.mark.parametrize("name", sorted(set(VIEWS) - {"alias"}))  # methods: torch_function
def test_a_plain_subclass_sees_its_class_on_views_only_through_torch_function(name):
    def program(lib):
        class Plain(lib.Tensor):
            pass

        p = lib.arange(4.0).as_subclass(Plain)
        with lib._C.DisableTorchFunctionSubclass():
            disabled = [type(v).__name__ for v in _view_of(lib, name, p)]
        return disabled, [type(v).__name__ for v in _view_of(lib, name, p)]

    _both(program)


def test_split_of_a_subclass_returns_the_handlers_plain_tensors():
    # PyTorch's test_list_ret: the results compare as plain tensors (no eq reaches the handler)
    def program(lib):
        pieces = lib.split(_subclass(lib)(lib.tensor([0, 1, 2])), 2)
        return [type(p).__name__ for p in pieces], [p.eq(p).all().item() for p in pieces]

    _both(program)


def test_a_wrapper_views_version_counter_is_its_bases():
    # PyTorch's test_version, and views of a wrapper subclass made by its handler
    def program(lib):
        x = _wrapper(lib)(lib.ones(2))
        seen = [x._version]
        d = x.detach()
        seen += [type(d).__name__, d._version]
        d.add_(2)
        seen += [x._version, d._version, x.elem._version, d.elem._version]
        x.data.add_(2)
        seen += [x._version, type(x.data).__name__]
        v = x.view(2)
        v.add_(1)
        seen += [x._version, v._version, v._is_view(), v._base is x]
        pieces = x.split(1)
        pieces[0].mul_(2)
        seen += [x._version, [p._version for p in pieces]]
        return seen

    _both(program)


def test_views_made_inside_a_handler_count_their_own_versions():
    # below ADInplaceOrView a view kernel gives its result a fresh counter
    def program(lib):
        seen = []
        tree_map = _tree_map(lib)

        class Spy(lib.Tensor):
            @staticmethod
            def __new__(cls, elem):
                r = lib.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype)
                r.elem = elem
                return r

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                t = lib.ones(4)
                inner = [t.view(2, 2), t.detach(), t[1:], lib.ops.aten.alias(t)]
                seen.append([v._version for v in inner])
                seen.append(t._version)
                seen.append(("inner views", [v._version for v in inner]))
                escape.extend(inner + [t])

                def unwrap(e):
                    return e.elem if isinstance(e, Spy) else e

                return tree_map(
                    lambda e: Spy(e) if isinstance(e, lib.Tensor) else e,
                    func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {})),
                )

        escape = []
        Spy(lib.ones(1)).neg()
        *views, base = escape
        for v in views:
            v.add_(1)
        seen += [base._version, [v._version for v in views]]
        return seen

    _both(program)


def test_unsafe_view_is_no_view_and_counts_its_own_versions():
    def program(lib):
        x = lib.ones(4)
        y = lib.ops.aten._unsafe_view(x, [2, 2])
        y.add_(1)
        z = lib.ops.aten.alias(x)
        z.add_(1)
        return x._version, y._version, z._version, y._is_view(), z._is_view()

    _both(program)


def test_views_of_a_normal_tensor_in_inference_mode_share_its_counter():
    def program(lib):
        x = lib.ones(2)
        with lib.inference_mode():
            v, d = x.view(2), x.detach()
        v.add_(1)
        d.add_(1)
        return v.is_inference(), x._version, v._version, d._version

    _both(program)


def test_data_of_a_plain_subclass_is_a_plain_tensor_below_torch_function():
    def program(lib):
        class Plain(lib.Tensor):
            pass

        p = lib.ones(2).as_subclass(Plain)
        p.tag = 1
        with lib._C.DisableTorchFunctionSubclass():
            disabled = type(p.data).__name__
        return disabled, type(p.data).__name__, hasattr(p.data, "tag"), p.data._version

    _both(program)


MATH_BITS = {
    "conj": lambda lib, t: t.conj(),
    "torch.conj": lambda lib, t: lib.conj(t),
    "aten.conj": lambda lib, t: lib.ops.aten.conj.default(t),
    "resolve_conj": lambda lib, t: t.resolve_conj(),
    "resolve_neg": lambda lib, t: lib.resolve_neg(t),
    "is_conj": lambda lib, t: t.is_conj(),
    "is_neg": lambda lib, t: lib.is_neg(t),
}


@pytest.mark.parametrize("name", sorted(MATH_BITS))
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_math_bit_methods_of_a_tensor_without_the_bits(name, dtype):
    # a tensor without the conjugate / negative bit: conj() of a real one, resolve_conj and
    # resolve_neg give the tensor itself, with no dispatch a mode or handler sees
    def program(lib):
        seen = []

        class Spy(_wrapper(lib)):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                seen.append(str(func))
                return super().__torch_dispatch__(func, types, args, kwargs)

        results = []
        # (a Spy in inference mode differs: ember's conj / is_conj / is_neg are operators,
        # which reach its handler once autograd is excluded; PyTorch's bindings of them
        # are hand-written and dispatch nothing)
        for t, modes in (
            (lib.ones(2, dtype=getattr(lib, dtype)), (False, True)),
            (Spy(lib.ones(2)), (False,)),
        ):
            for mode in modes:
                if mode:
                    with lib.inference_mode():
                        out = MATH_BITS[name](lib, t)
                else:
                    out = MATH_BITS[name](lib, t)
                results.append(out is t if isinstance(out, lib.Tensor) else out)
        return results, seen, t._base is None

    _both(program)
