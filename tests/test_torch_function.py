"""__torch_function__: subclasses, TorchFunctionMode, the disable guards, torch.overrides.

Each scenario is one function of a library (``ember`` or ``torch``) run on both; what it
records (function names, the types handed over, result classes, error texts) must agree,
with ``ember`` read as ``torch`` and object addresses dropped.
"""

from __future__ import annotations

import contextlib
import re

import pytest
from oracle import torch

import ember


def _normal(value):
    text = repr(value).replace("ember", "torch")
    return re.sub(r" at 0x[0-9a-f]+", "", text)


def _both(scenario):
    ours, theirs = scenario(ember), scenario(torch)
    assert _normal(ours) == _normal(theirs)
    return ours


def _name(func) -> str:
    return getattr(func, "__name__", repr(func))


def _logging_subclass(lib, log):
    class Logged(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append((_name(func), [t.__name__ for t in types], kwargs))
            return super().__torch_function__(func, types, args, kwargs)

    return Logged


def _run_all(lib, x, y):
    F = lib.nn.functional
    results = [
        x + y, y + x, x * 2, 2 * x, x - y, lib.add(x, y), lib.add(x, y, alpha=2),
        x.sum(), x.sum(dim=0), F.relu(x), x[0], x.shape, x.T, x.view(3, 2), x.add_(1),
        x.abs(), x.detach(), lib.cat([y, x]), x.requires_grad, x.grad, x.size(), x.dim(),
        x.numel(), x.clone(), x.t(), len(x), x.tolist(), x.neg().max(), lib.mul(y, x),
        x.softmax(0), F.softmax(x, dim=0), x.unsqueeze(0), lib.stack([x, y]) if hasattr(lib, "stack") else None,
    ]  # fmt: skip
    return results


def test_logging_subclass_sees_what_torch_shows():
    def scenario(lib):
        log = []
        logged = _logging_subclass(lib, log)
        x = lib.ones(2, 3).as_subclass(logged)
        y = lib.ones(2, 3)
        results = _run_all(lib, x, y)
        return log, [type(r).__name__ for r in results if r is not None]

    # dtype and device are slots of ember's TensorImpl, read without __torch_function__
    _both(scenario)


def test_results_keep_the_subclass_and_their_values():
    def scenario(lib):
        class Sub(lib.Tensor):
            pass

        x = lib.arange(6.0).reshape(2, 3).as_subclass(Sub)
        out = [x + 1, x[1], x[:, 1:], x.sum(1), lib.cat([x, x]), x.split(1), x.max(dim=1)]
        return (
            [(type(o).__name__, o.tolist() if hasattr(o, "tolist") else None) for o in out[:5]],
            [type(p).__name__ for p in out[5]],
            type(out[6]).__name__,
            [type(v).__name__ for v in out[6]],
        )

    _both(scenario)


def test_disabled_torch_function_impl_gives_plain_results():
    def scenario(lib):
        class Plain(lib.Tensor):
            __torch_function__ = lib._C._disabled_torch_function_impl

        x = lib.ones(2).as_subclass(Plain)
        direct = lib._C._disabled_torch_function_impl(lib.add, (), (x, x), {})
        return [type(v).__name__ for v in (x + x, lib.neg(x), x.sum(), direct)]

    _both(scenario)


def _logging_mode(lib, log, tag="M"):
    class Mode(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((tag, _name(func), [t.__name__ for t in types], len(args), kwargs))
            return func(*args, **(kwargs or {}))

    return Mode


def test_mode_sees_public_functions_methods_and_properties():
    def scenario(lib):
        log = []
        x, y = lib.ones(2, 2), lib.ones(2, 2)
        with _logging_mode(lib, log)():
            x + y
            lib.add(x, y)
            lib.add(x, y, alpha=2)
            x.sum()
            x.sum(dim=0)
            lib.nn.functional.relu(x)
            x.shape  # noqa: B018 (the property read is the call)
            x[0]
            lib.ones(2)
            x.abs()
            len(x)
            x.size()
            x.dim()
            lib.tensor([1.0])
            lib.as_tensor(x)
            lib.numel(x)
            lib.nn.functional.softmax(x, dim=0)
        return log

    _both(scenario)


def test_mode_sees_the_public_function_object():
    def scenario(lib):
        seen = []

        class Mode(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                T = lib.Tensor  # compared while the mode runs, as handlers compare
                seen.append([func is lib.add, func is T.sum, func == T.shape.__get__])
                seen[-1] += [func is T.__len__, func is T.size, func == T.requires_grad.__get__]
                return func(*args, **(kwargs or {}))

        x = lib.ones(2)
        with Mode():
            lib.add(x, x)
            x.sum()
            x.shape  # noqa: B018 (the property read is the call)
            len(x)
            x.size()
            x.requires_grad  # noqa: B018
        return seen

    _both(scenario)


def test_modes_nest_innermost_first_and_pop_while_handling():
    def scenario(lib):
        log = []
        outer, inner = _logging_mode(lib, log, "outer"), _logging_mode(lib, log, "inner")
        x = lib.ones(2)
        with outer():
            with inner() as mode:
                x.neg()
                depth = lib._C._len_torch_function_stack()
                current = lib.overrides._get_current_function_mode() is mode
            after = lib._C._len_torch_function_stack()
        return log, depth, current, after, lib._C._len_torch_function_stack()

    _both(scenario)


def test_mode_and_subclass_together():
    def scenario(lib):
        log = []
        logged = _logging_subclass(lib, log)
        x = lib.ones(2).as_subclass(logged)
        with _logging_mode(lib, log)():
            r = x.neg()
        return log, type(r).__name__

    _both(scenario)


def test_disable_guards():
    def scenario(lib):
        C = lib._C
        log = []
        logged = _logging_subclass(lib, log)
        x = lib.ones(2).as_subclass(logged)
        states = [C._is_torch_function_enabled(), C._is_torch_function_mode_enabled()]
        with _logging_mode(lib, log)():
            with C.DisableTorchFunctionSubclass():
                states += [C._is_torch_function_enabled(), C._is_torch_function_mode_enabled()]
                a = lib.neg(x)
            with C.DisableTorchFunction():
                states += [C._is_torch_function_enabled(), C._is_torch_function_mode_enabled()]
                b = lib.neg(x)
                with C.DisableTorchFunctionSubclass():  # does not re-enable modes
                    states.append(C._is_torch_function_mode_enabled())
        states.append(C._is_torch_function_enabled())
        return states, log, type(a).__name__, type(b).__name__

    _both(scenario)


@pytest.mark.parametrize(
    "call",
    ["add", "sum", "plus", "shape", "cat", "relu", "len"],
)
def test_all_not_implemented_is_torchs_type_error(call):
    def scenario(lib):
        class Refuses(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        a = lib.ones(2).as_subclass(Refuses)
        calls = {
            "add": lambda: lib.add(a, 1),
            "sum": lambda: a.sum(),
            "plus": lambda: a + 1,
            "shape": lambda: a.shape,
            "cat": lambda: lib.cat([a, a]),
            "relu": lambda: lib.nn.functional.relu(a),
            "len": lambda: len(a),
        }
        try:
            calls[call]()
        except TypeError as error:
            return str(error)
        return None

    assert _both(scenario) is not None


def test_mode_returning_not_implemented():
    def scenario(lib):
        class Mode(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return NotImplemented

        x = lib.ones(1)
        with Mode():
            try:
                lib.add(x, 1)
            except TypeError as error:
                return str(error)

    assert _normal(_both(scenario)).startswith("\"Multiple dispatch failed for 'torch.add'")


def test_argument_errors_come_before_torch_function():
    def scenario(lib):
        log = []
        x = lib.ones(2).as_subclass(_logging_subclass(lib, log))

        class Like:  # a tensor-like object fills a Tensor parameter; the str does not
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                log.append(func.__name__)

        messages = []
        for call in (lambda: lib.add(x, "no"), lambda: lib.add(Like(), "no")):
            try:
                call()
            except TypeError as error:
                messages.append(str(error))
        return messages, log

    _both(scenario)


def test_tensor_like_objects_and_precedence():
    def scenario(lib):
        class Like:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return ("Like", _name(func), [t.__name__ for t in types])

        order = []

        class Base(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                order.append(cls.__name__)
                return NotImplemented

        class Derived(Base):
            pass

        b, d = lib.ones(1).as_subclass(Base), lib.ones(1).as_subclass(Derived)
        try:
            lib.add(b, d)
        except TypeError as error:
            message = str(error)
        like = [lib.add(Like(), 1), lib.add(lib.ones(1), Like()), lib.cat([lib.ones(1), Like()])]
        return like, order, message, lib.ones(1) + Like()

    _both(scenario)


def test_overrides_helpers():
    def scenario(lib):
        o = lib.overrides

        class Sub(lib.Tensor):
            pass

        class Opted(lib.Tensor):
            __torch_function__ = lib._C._disabled_torch_function_impl

        x, s, p = lib.ones(1), lib.ones(1).as_subclass(Sub), lib.ones(1).as_subclass(Opted)
        checks = [
            o.has_torch_function((x,)), o.has_torch_function((x, s)),
            o.has_torch_function_unary(s), o.has_torch_function_unary(p),
            o.has_torch_function_variadic(x, p), o.has_torch_function_variadic(x, s),
            o.is_tensor_like(x), o.is_tensor_like(s), o.is_tensor_like(3),
            lib.Tensor.grad.__get__ in o.get_default_nowrap_functions(),
            o.is_tensor_method_or_property(lib.Tensor.add),
            o.is_tensor_method_or_property(lib.Tensor.shape.__get__),
        ]  # fmt: skip
        with lib.overrides.BaseTorchFunctionMode():
            checks.append(o.has_torch_function((x,)))
        return checks

    _both(scenario)


def test_handle_torch_function_for_python_functions():
    def scenario(lib):
        o = lib.overrides

        def double(a):
            if o.has_torch_function_unary(a):
                return o.handle_torch_function(double, (a,), a)
            return a * 2

        log = []
        x = lib.ones(2).as_subclass(_logging_subclass(lib, log))
        r = double(x)

        class Refuses(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        try:
            double(lib.ones(1).as_subclass(Refuses))
        except TypeError as error:
            message = str(error).replace(__name__, "M")
        return log, type(r).__name__, r.tolist(), message

    _both(scenario)


def test_torch_function_state_enum():
    def scenario(lib):
        C = lib._C
        with C.DisableTorchFunctionSubclass():
            inside = C._get_torch_function_state()
        return (
            str(C._get_torch_function_state()),
            str(inside),
            list(C._TorchFunctionState.__members__),
        )

    _both(scenario)


def test_plain_tensors_never_reach_the_handlers(monkeypatch):
    """Note [Torch function checks]: without a subclass or a mode nothing is collected."""
    from ember.aten import torch_function

    def refuse(*args, **kwargs):
        raise AssertionError("handler reached")

    monkeypatch.setattr(torch_function, "dispatch", refuse)
    x = ember.ones(2, 2)
    x + x, ember.add(x, x), x.sum(), x.shape, x[0], ember.cat([x, x]), x.size()
    assert ember._torch_function.state.anywhere == 0


def test_a_failing_handler_leaves_the_mode_stack_and_state_as_they_were():
    def scenario(lib):
        C = lib._C

        class Boom(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                raise ValueError("boom")

        x = lib.ones(1)
        with Boom():
            try:
                lib.neg(x)
            except ValueError as error:
                caught = str(error)
            depth = C._len_torch_function_stack()
        try:
            with C.DisableTorchFunction():
                raise KeyError
        except KeyError:
            pass
        return caught, depth, C._len_torch_function_stack(), C._is_torch_function_enabled()

    assert _both(scenario) == ("boom", 1, 0, True)


def test_a_mode_belongs_to_its_thread():
    import threading

    def scenario(lib):
        log = []
        seen_elsewhere = []
        x = lib.ones(1)
        with _logging_mode(lib, log)():
            worker = threading.Thread(target=lambda: seen_elsewhere.append(type(lib.neg(x))))
            worker.start()
            worker.join()
        return len(log), [t.__name__ for t in seen_elsewhere]

    assert _both(scenario) == (0, ["Tensor"])


def test_property_setter_goes_to_torch_function():
    def scenario(lib):
        log = []
        x = lib.ones(2).as_subclass(_logging_subclass(lib, log))
        x.requires_grad = True
        return log, x.requires_grad

    _both(scenario)


def test_function_lists():
    """ember's lists come from its own namespaces (approximating torch's hand-kept ones):
    every listed function does consult __torch_function__, no ignored one is listed."""
    o = ember.overrides
    overridable = o.get_overridable_functions()
    methods = overridable[ember.Tensor]
    assert ember.Tensor.add in methods and ember.Tensor.sum in methods
    assert ember.Tensor.shape.__get__ in methods
    functions = [
        f for namespace, fs in overridable.items() if namespace is not ember.Tensor for f in fs
    ]
    assert ember.add in functions and ember.nn.functional.relu in functions
    assert not set(functions) & o.get_ignored_functions()
    testing = o.get_testing_overrides()
    assert testing[ember.add](1, 2) == -1
    seen = []

    class Mode(o.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    x = ember.ones(2)
    with Mode():
        ember.add(x, x)
        ember.nn.functional.relu(x)
        x.sum()
    assert seen == [ember.add, ember.nn.functional.relu, ember.Tensor.sum]


def test_wrappers_stand_only_where_needed():
    """Note [Wrappers only where needed]: plain ember.Tensor keeps its own methods until a
    mode is pushed; a subclass has the checking ones from its creation."""
    T = ember.Tensor
    ember.ones(1).size()  # wrappers left idle by earlier modes step down
    plain = (T.__dict__["__len__"], T.__dict__["size"], T.__dict__["requires_grad"])
    assert not hasattr(plain[0], "torch_function_checked")

    class Sub(T):
        def tolist(self):  # its own: left alone
            return "mine"

    assert Sub.__dict__["__len__"] is not plain[0] and "tolist" in Sub.__dict__
    assert ember.ones(1).as_subclass(Sub).tolist() == "mine"
    mode = ember.overrides.BaseTorchFunctionMode()
    with mode:
        with ember.overrides.BaseTorchFunctionMode():
            assert T.__dict__["__len__"] is not plain[0]
            assert len(ember.ones(3)) == 3  # the running mode steps aside, nothing detaches
            assert T.__dict__["__len__"] is not plain[0]
        assert T.__dict__["__len__"] is not plain[0]
    assert T.__dict__["__len__"] is not plain[0]  # until a plain call finds them idle
    assert ember.ones(2).size() == (2,)
    assert (T.__dict__["__len__"], T.__dict__["size"], T.__dict__["requires_grad"]) == plain


def test_a_class_defining_torch_dispatch_gets_the_disabled_torch_function():
    """THPVariableMetaType_init: an own __torch_dispatch__ (not the disabled one) and no own
    __torch_function__ puts the disabled impl in the class; subclasses inherit it."""

    def classes(lib):
        class Dispatching(lib.Tensor):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        class Inherits(Dispatching):
            pass

        class Both(lib.Tensor):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return 1

        class Off(lib.Tensor):
            __torch_dispatch__ = lib._C._disabled_torch_dispatch_impl

        disabled = lib._C._disabled_torch_function_impl
        return [
            (k.__torch_function__ is disabled, "__torch_function__" in k.__dict__)
            for k in (Dispatching, Inherits, Both, Off)
        ]

    assert classes(ember) == classes(torch)


INDEXING = {
    "list of overriding tensors": lambda lib, a, T: a[[T(), T()]],
    "tuple": lambda lib, a, T: a[(T(), 0)],
    "one": lambda lib, a, T: a[T()],
    "with None": lambda lib, a, T: a[T(), None],
    "list with an int": lambda lib, a, T: a[[0, T()]],
    "set, list index": lambda lib, a, T: a.__setitem__([T(), T()], 1),
    "set, one index": lambda lib, a, T: a.__setitem__(T(), 1),
    "set, overriding value": lambda lib, a, T: a.__setitem__(0, T()),
    "set, plain everything": lambda lib, a, T: a.__setitem__(slice(0, 2), lib.ones(2)),
    "plain tensor index": lambda lib, a, T: a[lib.tensor([0, 2])],
}


@pytest.mark.parametrize("case", sorted(INDEXING))
def test_an_overriding_index_or_value_of_an_exact_tensor_is_asked(case):
    # THPVariable_getitem / setitem's count_specified_dimensions sentinel (PyTorch's
    # test_maybe_tuple_bug): no IndexError, the index's class answers
    def scenario(lib):
        log = []

        class T(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                log.append(
                    (_name(func), [t.__name__ for t in types], [type(a).__name__ for a in args])
                )
                return "answered"

        a = lib.arange(3.0)
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = INDEXING[case](lib, a, T)
        return result, log, a.tolist(), [str(w.message)[:40] for w in caught]

    _both(scenario)


def test_the_bindings_plain_tensor_test_is_not_overrides():
    """aten.binding.plain_tensor inlines ``isinstance(v, Tensor) and not overrides(v)`` for
    the bindings' fast paths: the two agree for every kind of argument and state."""
    from ember._torch_function import overrides
    from ember.aten.binding import plain_tensor

    class Sub(ember.Tensor):
        pass

    class Custom(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    class Disabled(ember.Tensor):
        __torch_function__ = ember._C._disabled_torch_function_impl

    class NoHandler(ember.Tensor):
        __torch_function__ = None

    values = [ember.ones(1), 3, None, [ember.ones(1)], "s"]
    values += [ember.ones(1).as_subclass(c) for c in (Sub, Custom, Disabled, NoHandler)]
    for guard in (None, ember._C.DisableTorchFunctionSubclass, ember._C.DisableTorchFunction):
        with guard() if guard is not None else contextlib.nullcontext():
            for value in values:
                expected = isinstance(value, ember.Tensor) and not overrides(value)
                assert plain_tensor(value) is expected, (guard, type(value))
