"""TorchDispatchMode and __torch_dispatch__ subclasses against PyTorch 2.13 (facts §8).

Every differential test runs the same program on ``torch`` and on ``ember``
(passed in as ``lib``) and compares what a mode or subclass observed: the
operator overloads in order, key sets, TLS sets inside handlers, grad_fn
names, errors.
"""

from __future__ import annotations

import re

import pytest

import ember
from ember import _C
from ember.utils import _python_dispatch as ember_dispatch
from ember.utils.logging_mode import LoggingMode

try:
    import torch
    import torch.utils._python_dispatch as torch_dispatch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _autograd_installed() -> bool:
    try:
        return (ember.tensor([1.0], requires_grad=True) * 2).grad_fn is not None
    except Exception:  # noqa: BLE001 (autograd is being built elsewhere)
        return False


needs_autograd = pytest.mark.skipif(not _autograd_installed(), reason="autograd not installed")
BOTH = [pytest.param("torch", marks=needs_torch), "ember"]


def lib_and_dispatch(name):
    if name == "torch":
        return torch, torch_dispatch
    return ember, ember_dispatch


def recording_mode(dispatch, seen: list):
    class Recorder(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    return Recorder()


EVERYDAY = {
    "mul": lambda t, a, b: a * 2,
    "index": lambda t, a, b: a[0],
    "slice": lambda t, a, b: a[:, 1:],
    "t": lambda t, a, b: a.t(),
    "view": lambda t, a, b: a.view(6),
    "zeros": lambda t, a, b: t.zeros(2),
    "sum": lambda t, a, b: a.sum(),
    "matmul": lambda t, a, b: a @ b,
    "add_t": lambda t, a, b: a + b.t(),
    "randn_add": lambda t, a, b: t.randn(3) + t.randn(3),
    "inplace": lambda t, a, b: a.clone().add_(a),
}


def observed(name: str, program: str) -> list[str]:
    lib, dispatch = lib_and_dispatch(name)
    a = lib.ones(2, 3)
    b = lib.ones(3, 2)
    seen: list[str] = []
    with recording_mode(dispatch, seen):
        EVERYDAY[program](lib, a, b)
    return seen


@needs_torch
@pytest.mark.parametrize("program", sorted(EVERYDAY))
def test_mode_sees_the_same_overloads_as_torch(program):
    assert observed("ember", program) == observed("torch", program)


@needs_autograd
@pytest.mark.parametrize("name", BOTH)
def test_mode_sees_ops_below_autograd(name):
    lib, dispatch = lib_and_dispatch(name)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    seen: list[str] = []
    with recording_mode(dispatch, seen):
        y = x * 3
    assert seen == ["aten.mul.Tensor"]
    assert type(y.grad_fn).__name__ == "MulBackward0"


def tls_inside_handlers(name: str) -> list:
    lib, dispatch = lib_and_dispatch(name)
    rows = []

    class Probe(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            rows.append(
                (
                    str(func),
                    str(lib._C._dispatch_tls_local_include_set()),
                    lib._C._dispatch_tls_local_exclude_set().raw_repr(),
                    len(dispatch._get_current_dispatch_mode_stack()),
                )
            )
            return func(*args, **(kwargs or {}))

    rows.append(("before", str(lib._C._dispatch_tls_local_include_set())))
    x = lib.ones(2)
    with Probe() as outer:
        rows.append(
            ("entered", str(lib._C._dispatch_tls_local_include_set()), type(outer).__name__)
        )
        x * 2
        with Probe():
            rows.append(("nested", len(dispatch._get_current_dispatch_mode_stack())))
            x.t()
        rows.append(("after nested", str(lib._C._dispatch_tls_local_include_set())))
    rows.append(("after", str(lib._C._dispatch_tls_local_include_set())))
    return rows


@needs_torch
def test_tls_and_stack_inside_handlers_match_torch():
    assert tls_inside_handlers("ember") == tls_inside_handlers("torch")


def test_exclusions_inside_a_handler_are_every_key_above_python_but_python_dispatcher():
    seen = []

    class Probe(ember_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(_C._dispatch_tls_local_exclude_set())
            return func(*args, **(kwargs or {}))

    with Probe():
        ember.ones(1) + 1
    excluded = seen[-1]
    assert excluded.has(_C.DispatchKey.AutogradFunctionality)
    assert excluded.has(_C.DispatchKey.PythonTLSSnapshot)
    assert not excluded.has(_C.DispatchKey.Python)
    assert not excluded.has(_C.DispatchKey.PythonDispatcher)


def test_mode_popped_on_exception_and_keys_restored():
    before = _C._dispatch_tls_local_include_set()

    class Boom(ember_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        with Boom():
            ember.ones(1)
    assert _C._dispatch_tls_local_include_set() == before
    assert ember_dispatch._get_current_dispatch_mode() is None


def subclass_program(name: str) -> list:
    lib, dispatch = lib_and_dispatch(name)
    rows = []

    class Sub(lib.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return lib.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)

        def __init__(self, elem):
            self.elem = elem

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            rows.append((str(func), [t.__name__ for t in types]))
            unwrapped = [a.elem if isinstance(a, Sub) else a for a in args]
            out = func(*unwrapped, **(kwargs or {}))
            return Sub(out) if isinstance(out, lib.Tensor) else out

    class Refuses(Sub):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    s = Sub(lib.ones(2, 3))
    rows.append(str(lib._C._dispatch_keys(s)))
    rows.append(type(s + s).__name__)
    rows.append(type(s.sum()).__name__)
    seen: list[str] = []
    with recording_mode(dispatch, seen):
        s * 2
    rows.append(seen)
    try:
        lib.ops.aten.add.Tensor(Refuses(lib.ones(1)), lib.ones(1))
    except TypeError as error:
        rows.append(re.sub(r"<class '[^']*\.(\w+)'>", r"<class \1>", str(error)))
    return rows


@needs_torch
def test_wrapper_subclass_dispatch_matches_torch():
    assert subclass_program("ember") == subclass_program("torch")


@needs_torch
def test_mode_returning_not_implemented_error_matches_torch():
    def run(name):
        lib, dispatch = lib_and_dispatch(name)

        class Declines(dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return NotImplemented

        try:
            with Declines():
                lib.ops.aten.add.Tensor(lib.ones(1), lib.ones(1))
        except TypeError as error:
            return re.sub(r"object at 0x[0-9a-f]+", "object at ADDRESS", str(error))
        return None

    assert run("ember") == run("torch")


def test_mode_stack_helpers():
    class A(ember_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    a, b = A(), A()
    with a:
        with b:
            assert ember_dispatch._get_current_dispatch_mode_stack() == [a, b]
            with ember_dispatch._pop_mode_temporarily() as popped:
                assert popped is b
                assert ember_dispatch._get_current_dispatch_mode() is a
            with ember_dispatch._disable_current_modes():
                assert ember_dispatch._len_torch_dispatch_stack() == 0
                assert not _C._dispatch_tls_is_dispatch_key_included(_C.DispatchKey.Python)
            assert ember_dispatch._get_current_dispatch_mode() is b
    assert ember_dispatch._len_torch_dispatch_stack() == 0


def test_fake_mode_ranks_below_user_modes():
    from ember._subclasses.fake_tensor import FakeTensorMode

    class A(ember_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with A() as a, FakeTensorMode() as fake:
        assert ember_dispatch._get_current_dispatch_mode_stack() == [fake, a]


def test_logging_mode_lines():
    a = ember.ones(2, 3)
    b = ember.ones(3, 3)
    with LoggingMode() as log:
        c = a @ b
        c.sum()
        ember.split(c, 1)
        c.add_(1)
    assert log.lines == [
        "$2: f32[2, 3] = aten.mm.default($0, $1)",
        "$3: f32[] = aten.sum.default($2)",
        "['$4: f32[1, 3]', '$5: f32[1, 3]'] = aten.split.Tensor($2, 1)",
        "$2: f32[2, 3] = aten.add_.Tensor($2, 1)",  # a wrapped number reaches Python as a number
    ]


@needs_torch
def test_register_torch_dispatch_rules_match_torch():
    def run(name):
        lib, dispatch = lib_and_dispatch(name)
        seen = []
        ns = f"etdrule{name}{len(seen)}{id(seen) % 1000}"
        library = lib.library.Library(ns, "DEF")
        library.define("f(Tensor x) -> Tensor")
        library.impl("f", lambda x: x + 1, "CPU")

        class Mode(dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append(("mode", str(func)))
                return func(*args, **(kwargs or {}))

        def rule(mode, func, types, args, kwargs):
            seen.append(("rule", type(mode).__name__, str(func).split(".", 1)[1]))
            return func(*args, **kwargs)

        lib.library.register_torch_dispatch(f"{ns}::f", Mode, rule, lib=library)
        with Mode():
            getattr(lib.ops, ns).f(lib.ones(1))
        library._destroy()
        return seen

    assert run("ember") == run("torch")


@needs_torch
@needs_autograd
def test_subclass_under_autograd_matches_torch():
    def run(name):
        lib, _ = lib_and_dispatch(name)
        seen = []

        class Sub(lib.Tensor):
            @staticmethod
            def __new__(cls, elem, requires_grad=False):
                return lib.Tensor._make_wrapper_subclass(
                    cls, elem.shape, dtype=elem.dtype, requires_grad=requires_grad
                )

            def __init__(self, elem, requires_grad=False):
                self.elem = elem

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                seen.append(str(func))
                unwrapped = [a.elem if isinstance(a, Sub) else a for a in args]
                out = func(*unwrapped, **(kwargs or {}))
                return Sub(out) if isinstance(out, lib.Tensor) else out

        s = Sub(lib.ones(2), requires_grad=True)
        y = s * 2
        rows = [type(y).__name__, type(y.grad_fn).__name__, y.requires_grad]
        y.sum().backward()
        # The last op is AccumulateGrad's copy of the new gradient (torch: detach).
        return rows + seen[:-1] + [type(s.grad).__name__, s.grad.elem.tolist()]

    assert run("ember") == run("torch")
