"""The state around a ``__torch_dispatch__`` handler, against PyTorch 2.13 (facts §8).

What the Python key does on every call a mode sees: the top mode popped while
its handler runs and pushed back afterwards (on top of whatever the handler
left), the Python keys of the TLS include set following the stack, all of it
restored when a handler raises, and none of it crossing threads. Also the
arguments a handler gets: PyTorch leaves out the trailing positional and the
keyword-only arguments that equal their defaults. Every program runs on
``torch`` and on ``ember`` (passed in as ``lib``) and must observe the same.
"""

from __future__ import annotations

import importlib
import threading

import pytest
from oracle import torch

import ember

LIBS = ("torch", "ember")


def _lib(name: str):
    lib = torch if name == "torch" else ember
    return lib, importlib.import_module(f"{lib.__name__}.utils._python_dispatch")


def _tls(lib) -> tuple:
    return (
        str(lib._C._dispatch_tls_local_include_set()),
        str(lib._C._dispatch_tls_local_exclude_set()),
    )


def _modes(dispatch) -> list[str]:
    return [type(mode).__name__ for mode in dispatch._get_current_dispatch_mode_stack()]


def nested_modes(name: str) -> list:
    lib, dispatch = _lib(name)
    rows = []

    def mode_class(label: str):
        class Mode(dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                rows.append((label, str(func), _modes(dispatch), _tls(lib)))
                return func(*args, **(kwargs or {}))

        Mode.__name__ = label
        return Mode

    x = lib.ones(2)
    with mode_class("Outer")():
        with mode_class("Inner")():
            x + x
            rows.append(("in both", _modes(dispatch), _tls(lib)))
        x * 2
    rows.append(("after", _modes(dispatch), _tls(lib)))
    return rows


def test_nested_modes_each_handler_sees_the_modes_below_it_as_torch():
    assert nested_modes("ember") == nested_modes("torch")


def raising_handler(name: str, where: str) -> list:
    lib, dispatch = _lib(name)
    rows = []

    class Passes(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class Raises(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            raise ValueError("boom")

    x = lib.ones(2)
    before = _tls(lib)
    if where == "inner":
        modes = (Passes(), Raises())
    else:  # the outer mode raises, under the inner one's func call
        modes = (Raises(), Passes())
    with modes[0], modes[1]:
        entered = (_modes(dispatch), _tls(lib))
        try:
            x + x
        except ValueError as error:
            rows.append(str(error))
        rows.append(entered == (_modes(dispatch), _tls(lib)))
        rows.append(_modes(dispatch))
    rows.append((_modes(dispatch), _tls(lib) == before))
    return rows


@pytest.mark.parametrize("where", ["inner", "outer"])
def test_a_handler_that_raises_leaves_the_stack_and_tls_as_they_were(where):
    ours = raising_handler("ember", where)
    assert ours == raising_handler("torch", where)
    assert ours[1] is True


def not_implemented_mode(name: str) -> list:
    lib, dispatch = _lib(name)

    class Declines(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return NotImplemented

    rows = []
    with Declines():
        entered = (_modes(dispatch), _tls(lib))
        with pytest.raises(TypeError):
            lib.ones(1) + lib.ones(1)
        rows.append(entered == (_modes(dispatch), _tls(lib)))
    rows.append((_modes(dispatch), _tls(lib)))
    return rows


def test_a_mode_that_declines_is_back_on_the_stack_before_the_error():
    ours = not_implemented_mode("ember")
    assert ours == not_implemented_mode("torch")
    assert ours[0] is True


def handler_pushes_a_mode(name: str) -> list:
    lib, dispatch = _lib(name)
    rows = []

    class Left(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            rows.append(("left", str(func)))
            return func(*args, **(kwargs or {}))

    class Pusher(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            rows.append(("pusher", str(func), _modes(dispatch)))
            if not rows[:-1]:
                dispatch._push_mode(Left())  # left on the stack when the handler returns
            return func(*args, **(kwargs or {}))

    x = lib.ones(2)
    with Pusher():
        x + x
        rows.append(_modes(dispatch))  # the stashed mode went back on top
        x * 2
        rows.append(type(dispatch._pop_mode()).__name__)
        rows.append(type(dispatch._pop_mode()).__name__)
        rows.append(_tls(lib))
        dispatch._push_mode(Pusher())
    rows.append((_modes(dispatch), _tls(lib)))
    return rows


def test_the_stashed_mode_goes_back_on_top_of_what_the_handler_left():
    assert handler_pushes_a_mode("ember") == handler_pushes_a_mode("torch")


def modes_across_threads(name: str) -> list:
    lib, dispatch = _lib(name)
    rows = []
    seen = []

    class Records(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((threading.current_thread().name, str(func)))
            return func(*args, **(kwargs or {}))

    def worker(label: str) -> None:
        rows.append((label, _modes(dispatch), _tls(lib)))
        lib.ones(2) * 3

    def entering_worker() -> None:
        with Records():
            rows.append(("inside", _modes(dispatch)))
            lib.ones(1) + 1
        rows.append(("left", _modes(dispatch)))

    with Records():
        thread = threading.Thread(target=worker, args=("other thread",), name="other")
        thread.start()
        thread.join()
        lib.ones(2) + 1
    thread = threading.Thread(target=entering_worker, name="entering")
    thread.start()
    thread.join()
    rows.append(("main", _modes(dispatch), _tls(lib)))
    return rows + [sorted(set(seen))]


def test_a_mode_entered_in_one_thread_is_not_seen_in_another():
    ours = modes_across_threads("ember")
    assert ours == modes_across_threads("torch")
    assert ours[0][:2] == ("other thread", [])  # the worker saw an empty stack
    threads = {thread for thread, _ in ours[-1]}
    assert threads == {"MainThread", "entering"}  # nothing from the other thread


def handler_arguments(name: str) -> list:
    lib, dispatch = _lib(name)
    seen = []

    class Records(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            def show(value):
                if isinstance(value, lib.Tensor):
                    return "T"
                if isinstance(value, lib.dtype):
                    return str(value).split(".")[-1]
                if isinstance(value, (list, tuple)):
                    return [show(item) for item in value]
                return value

            seen.append((str(func), show(list(args)), {k: show(v) for k, v in kwargs.items()}))
            return func(*args, **kwargs)

    x = lib.ones(2, 3)
    aten = lib.ops.aten
    with Records():
        x + x
        x + 1
        lib.add(x, x, alpha=2)
        lib.add(x, x, alpha=1)
        aten.add.Tensor(x, x, alpha=1.0)
        x.sum()
        x.sum(0)
        x.sum(0, keepdim=True)
        x.sum(0, dtype=lib.float64)
        aten.sum.dim_IntList(x, [1], False)
        x.std(0, correction=1)
        x.std(0, correction=0)
        lib.clamp(x, min=0)
        lib.clamp(x, None, 1.0)
        x.transpose(0, 1)
        x.var(unbiased=True)
    return seen


def test_handlers_get_the_arguments_torch_gives_them():
    assert handler_arguments("ember") == handler_arguments("torch")


# -- the generated argument converter, against BindPlan.python_kernel_args -------------------
def _variants(default) -> list:
    """Values for a defaulted argument: its default, equal values of other types, others."""
    values = [default, None, object()]
    if isinstance(default, bool):
        values += [int(default), not default]
    elif isinstance(default, int | float):
        values += [float(default), int(default), default + 1, float("nan"), ember.int64]
    elif isinstance(default, tuple):
        values += [list(default), [*default, 1]]
    return values


def _aten_plans() -> list:
    from ember._dispatch.dispatcher import dispatcher

    plans = []
    for name in dispatcher.all_op_names():
        handle = dispatcher.find_op(name)
        if handle is not None and handle.has_schema() and name.startswith("aten::"):
            plan = handle.schema._plan
            if any(plan.has_default):
                plans.append(plan)
    return plans


def test_generated_handler_arguments_match_python_kernel_args_for_every_aten_schema():
    from ember.utils._python_fallback import _kernel_args_function

    checked = 0
    for plan in _aten_plans():
        convert = _kernel_args_function(plan)
        base = [
            plan.defaults[i] if plan.has_default[i] else object() for i in range(len(plan.names))
        ]
        cases = [base]
        for index, defaulted in enumerate(plan.has_default):
            if defaulted:
                for value in _variants(plan.defaults[index]):
                    cases.append(base[:index] + [value] + base[index + 1 :])
        for full in cases:
            assert convert(tuple(full)) == plan.python_kernel_args(list(full)), plan.schema
            checked += 1
    assert checked > 1000
