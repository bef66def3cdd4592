"""Custom operators (ember.library / custom_op) against torch.library (facts §4.4, §6.4, §9.5, §10).

Each scenario is one program written against a library module ``lib``
(``torch`` or ``ember``); it returns what it observed -- computed tables with
file locations normalised, values, gradients, grad_fn names, schemas,
errors -- and the test requires ember's observations to equal torch's.
"""

import itertools
import re

import pytest
from conftest import normalise

import ember

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
_names = itertools.count()


def _autograd_installed() -> bool:
    try:
        return (ember.tensor([1.0], requires_grad=True) * 2).grad_fn is not None
    except Exception:  # noqa: BLE001 (autograd is being built elsewhere)
        return False


needs_autograd = pytest.mark.skipif(not _autograd_installed(), reason="autograd not installed")


def both(scenario):
    """Run ``scenario(lib, ns)`` on ember and torch with fresh namespaces; compare."""
    n = next(_names)
    ours = scenario(ember, f"ecops{n}")
    theirs = scenario(torch, f"ecops{n}")
    assert ours == theirs


def outcome(fn):
    try:
        result = fn()
    except Exception as error:  # noqa: BLE001 (comparing whatever is raised)
        builtin = next(c for c in type(error).__mro__ if c.__module__ == "builtins")
        text = re.sub(r"(torch|ember)\.", "LIB.", normalise(str(error)))
        return builtin.__name__, re.sub(r"object at 0x[0-9a-f]+", "object", text)
    return "OK", result


def table(lib, qualname: str) -> list[str]:
    return normalise(lib._C._dispatch_dump_table(qualname)).splitlines()


def values(tensor) -> list:
    return tensor.detach().tolist()


# -- Library.define / impl at each key -----------------------------------------------------------


@needs_torch
@pytest.mark.parametrize(
    "keys",
    [
        ("CPU",),
        ("Meta",),
        ("CompositeImplicitAutograd",),
        ("CompositeExplicitAutograd",),
        ("CPU", "Meta"),
        ("CPU", "Autograd"),
        ("CPU", "AutogradCPU-fallthrough"),
        ("CompositeExplicitAutograd", "CompositeImplicitAutograd"),
    ],
)
def test_library_tables_and_calls_match_torch(keys):
    def scenario(lib, ns):
        library = lib.library.Library(ns, "DEF")
        library.define("f(Tensor x, int n=2) -> Tensor")
        for key in keys:
            if key.endswith("-fallthrough"):
                library.impl("f", lib.library.fallthrough_kernel, key.split("-")[0])
            else:
                library.impl("f", lambda x, n=2: x * n, key)
        op = getattr(lib.ops, ns).f.default
        rows = [table(lib, f"{ns}::f"), str(op._schema), str(op), repr(op)]
        rows.append(outcome(lambda: values(op(lib.ones(2), 3))))
        rows.append(outcome(lambda: list(op(lib.ones(2, device="meta")).shape)))
        library._destroy()
        rows.append(outcome(lambda: getattr(lib.ops, ns).f))
        return rows

    both(scenario)


@needs_torch
def test_override_by_second_library_and_restore_matches_torch():
    def scenario(lib, ns):
        base = lib.library.Library(ns, "DEF")
        base.define("g(Tensor x) -> Tensor")
        base.impl("g", lambda x: x + 1, "CPU")
        op = getattr(lib.ops, ns).g.default
        rows = [values(op(lib.zeros(2)))]
        override = lib.library.Library(ns, "IMPL")
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            override.impl("g", lambda x: x + 10, "CPU")
        rows += [values(op(lib.zeros(2))), table(lib, f"{ns}::g")]
        override._destroy()
        rows += [values(op(lib.zeros(2))), table(lib, f"{ns}::g")]
        base._destroy()
        return rows

    both(scenario)


@needs_torch
def test_python_kernels_receive_torchs_arguments():
    def scenario(lib, ns):
        seen = []
        library = lib.library.Library(ns, "DEF")
        library.define("h(Tensor x, int a=2, float b=1.5, *, int z=3, str s='a') -> Tensor")

        def kernel(*args, **kwargs):
            seen.append((len(args), sorted(kwargs.items())))
            return args[0].clone()

        library.impl("h", kernel, "CPU")
        op = getattr(lib.ops, ns).h.default
        x = lib.ones(1)
        op(x, 2, 1.5, z=3, s="a")
        op(x, a=5)
        op(x, 2, b=2.5, s="q")
        library._destroy()
        return seen

    both(scenario)


# -- register_autograd / register_fake -------------------------------------------------------------


@needs_torch
@needs_autograd
def test_register_autograd_values_gradients_and_grad_fn_match_torch():
    def scenario(lib, ns):
        library = lib.library.Library(ns, "DEF")
        library.define("cube(Tensor x) -> Tensor")
        library.impl("cube", lambda x: x * x * x, "CPU")

        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

        lib.library.register_autograd(f"{ns}::cube", backward, setup_context=setup_context)
        lib.library.register_fake(f"{ns}::cube", lambda x: lib.empty_like(x))
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = getattr(lib.ops, ns).cube(x)
        y.sum().backward()
        meta = getattr(lib.ops, ns).cube(lib.empty(4, device="meta"))
        rows = [values(y), values(x.grad), type(y.grad_fn).__name__, list(meta.shape)]
        rows.append(table(lib, f"{ns}::cube"))
        with lib.no_grad():
            rows.append(getattr(lib.ops, ns).cube(x).grad_fn is None)
        library._destroy()
        return rows

    both(scenario)


@needs_torch
def test_register_autograd_errors_match_torch():
    def scenario(lib, ns):
        library = lib.library.Library(ns, "DEF")
        library.define("mut(Tensor(a!) x) -> ()")
        library.define("kw(Tensor x, *, Tensor y) -> Tensor")
        library.define("view(Tensor(a) x) -> Tensor(a)")
        library.define("nothing(Tensor x) -> ()")
        library.define("outish(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")
        library.define(
            "tagged(Tensor x, *, Tensor(a!) out) -> Tensor(a!)",
            tags=(lib.Tag.out,) if lib is torch else ("out",),
        )
        rows = []
        for name in ("mut", "kw", "view", "nothing", "outish", "tagged"):
            rows.append(
                outcome(lambda n=name: lib.library.register_autograd(f"{ns}::{n}", lambda c, g: g))
            )
        rows.append(outcome(lambda: lib.library.register_autograd(3, lambda c, g: g)))
        library._destroy()
        return rows

    both(scenario)


# -- custom_op -------------------------------------------------------------------------------------


def _custom_op_functions(lib):
    T = lib.Tensor

    def plain(x: T, n: int = 3, f: float = 1.0, flag: bool = True) -> T:
        return x * n

    def lists(xs: list[T], sizes: list[int], maybe: T | None = None) -> list[T]:
        return [x.clone() for x in xs]

    def mutating(x: T, out: T, *, alpha: float = 2.0) -> None:
        out.copy_(x * alpha)

    def dtype_default(x: T, dt: lib.dtype = lib.float32, s: str = "a") -> tuple[T, T]:
        return x.clone(), x.clone()

    return {"plain": plain, "lists": lists, "mutating": mutating, "dtype_default": dtype_default}


@needs_torch
@pytest.mark.parametrize("which", ["plain", "lists", "mutating", "dtype_default"])
def test_infer_schema_matches_torch(which):
    def scenario(lib, ns):
        fn = _custom_op_functions(lib)[which]
        mutates = ("out",) if which == "mutating" else ()
        return [
            lib.library.infer_schema(fn, mutates_args=mutates),
            lib.library.infer_schema(fn, mutates_args="unknown", op_name="named"),
        ]

    both(scenario)


@needs_torch
def test_infer_schema_errors_match_torch():
    def scenario(lib, ns):
        def no_annotation(x):
            return x

        def varargs(*xs: lib.Tensor) -> lib.Tensor:
            return xs[0]

        def bad_default(x: lib.Tensor, l: list[int] = ()) -> lib.Tensor:  # noqa: E741
            return x

        def mutates_int(x: lib.Tensor, n: int) -> lib.Tensor:
            return x

        def no_return(x: lib.Tensor):
            return x

        cases = [
            (no_annotation, ()),
            (varargs, ()),
            (bad_default, ()),
            (mutates_int, ("n",)),
            (mutates_int, ("q",)),
            (no_return, ()),
        ]
        rows = []
        for fn, mutates in cases:
            result = outcome(lambda f=fn, m=mutates: lib.library.infer_schema(f, mutates_args=m))
            rows.append((result[0], result[1].split(" Got func")[0]))
        return rows

    both(scenario)


@needs_torch
def test_custom_op_without_mutation_matches_torch():
    def scenario(lib, ns):
        @lib.library.custom_op(f"{ns}::scale", mutates_args=())
        def scale(x: lib.Tensor, factor: float) -> lib.Tensor:
            return x * factor

        rows = [repr(scale), str(scale._opoverload._schema), table(lib, f"{ns}::scale")]
        rows.append(values(scale(lib.ones(2), 2.5)))
        rows.append(outcome(lambda: list(scale(lib.ones(3, device="meta"), 2.0).shape)))

        @scale.register_fake
        def _(x, factor):
            return lib.empty_like(x)

        rows.append(list(scale(lib.ones(3, device="meta"), 2.0).shape))
        return rows

    both(scenario)


@needs_torch
def test_custom_op_with_mutation_bumps_versions_like_torch():
    def scenario(lib, ns):
        @lib.library.custom_op(f"{ns}::bump", mutates_args={"x"})
        def bump(x: lib.Tensor, y: lib.Tensor) -> None:
            x.add_(1)

        x, y = lib.zeros(2), lib.zeros(2)
        before = x._version, y._version
        bump(x, y)
        bumped = x._version - before[0], y._version - before[1]
        rows = [str(bump._opoverload._schema), bumped, values(x)]
        rows.append(table(lib, f"{ns}::bump"))
        return rows

    both(scenario)


@needs_torch
def test_custom_op_aliasing_output_error_matches_torch():
    def scenario(lib, ns):
        @lib.library.custom_op(f"{ns}::same", mutates_args=())
        def same(x: lib.Tensor) -> lib.Tensor:
            return x

        result = outcome(lambda: same(lib.ones(1)))
        return result[0], re.sub(r"implementation in [^)]*\)", "implementation in M)", result[1])

    both(scenario)


@needs_torch
@needs_autograd
def test_custom_op_autograd_and_missing_formula_match_torch():
    def scenario(lib, ns):
        @lib.library.custom_op(f"{ns}::sq", mutates_args=())
        def sq(x: lib.Tensor) -> lib.Tensor:
            return x * x

        x = lib.tensor([3.0], requires_grad=True)
        y = sq(x)
        rows = [type(y.grad_fn).__name__, outcome(lambda: y.sum().backward())]
        sq.register_autograd(
            lambda ctx, g: g * 2 * ctx.x,
            setup_context=lambda ctx, inputs, output: setattr(ctx, "x", inputs[0]),
        )
        sq(x).sum().backward()
        rows.append(values(x.grad))
        return rows

    both(scenario)


@needs_torch
def test_custom_op_kernels_per_device_and_disabling_match_torch():
    def scenario(lib, ns):
        @lib.library.custom_op(f"{ns}::pick", mutates_args=(), device_types="cpu")
        def pick(x: lib.Tensor) -> lib.Tensor:
            return x + 1

        rows = [table(lib, f"{ns}::pick"), values(pick(lib.zeros(1)))]

        @pick.register_kernel("cpu")
        def _(x):
            return x + 100

        rows.append(values(pick(lib.zeros(1))))
        with pick.set_kernel_enabled("cpu", enabled=False):
            rows.append(values(pick(lib.zeros(1))))
        rows.append(values(pick(lib.zeros(1))))
        return rows

    both(scenario)


def test_get_ctx_outside_fake_impl_and_get_kernel():
    lib = ember.library.Library(f"ecops{next(_names)}", "DEF")
    lib.define("k(Tensor x) -> Tensor")
    lib.impl("k", lambda x: x + 1, "CPU")
    kernel = ember.library.get_kernel(f"{lib.ns}::k", "CPU")
    assert kernel.call_boxed(
        ember._C.DispatchKeySet(ember._C.DispatchKey.CPU), ember.zeros(1)
    ).tolist() == [1.0]
    with pytest.raises(AssertionError):
        ember.library.get_ctx()
    lib._destroy()


# -- ember.ops: packets and overloads (facts §8.5) ---------------------------------------------------


@needs_torch
def test_op_overload_and_packet_faces_match_torch():
    def scenario(lib, ns):
        library = lib.library.Library(ns, "DEF")
        library.define("f(Tensor x) -> Tensor")
        library.define("f.two(Tensor x, Tensor y) -> Tensor")
        library.define("v(Tensor(a) x) -> Tensor(a)")
        library.define("w(Tensor(a!) x) -> Tensor(a!)")
        library.impl("f", lambda x: x + 1, "CPU")
        library.impl("f.two", lambda x, y: x + y, "CPU")
        library.impl("v", lambda x: x, "CPU")
        packet = getattr(lib.ops, ns).f
        rows = [repr(packet), str(packet), sorted(packet.overloads()), packet.__name__]
        for op in (packet.default, packet.two, getattr(lib.ops, ns).v.default):
            rows.append(
                (
                    str(op),
                    repr(op),
                    op.name(),
                    op.__name__,
                    op.__qualname__,
                    op._overloadname,
                    op.namespace,
                    op.is_view,
                    op._opname,
                )  # fmt: skip
            )
        rows.append(getattr(lib.ops, ns).w.default.is_view)
        rows.append(packet.default is packet.default)
        rows.append(values(packet(lib.ones(1))))
        rows.append(values(packet(lib.ones(1), lib.ones(1))))
        cpu = lib._C.DispatchKeySet(lib._C.DispatchKey.CPU)
        rows.append(values(packet.default.redispatch(cpu, lib.ones(1))))
        rows.append(outcome(lambda: packet.nosuch))
        library.define("f.three(Tensor x, int n) -> Tensor")
        rows.append(sorted(packet.overloads()))
        library._destroy()
        rows.append(outcome(lambda: getattr(lib.ops, ns).f))
        return rows

    both(scenario)


@needs_torch
def test_numbers_in_tensor_positions_match_torch():
    def scenario(lib, ns):
        import warnings

        seen = []
        library = lib.library.Library(ns, "DEF")
        library.define("f(Tensor x, Tensor other) -> Tensor")
        library.impl("f", lambda x, other: x.clone(), "CPU")
        rows = [values(lib.ops.aten.mul.Tensor(lib.ones(1), 3))]
        rows.append(outcome(lambda: getattr(lib.ops, ns).f(lib.ones(1), 3)))
        aten = lib.library.Library("aten", "IMPL")

        def mul(x, other):
            seen.append((type(other).__name__, other))
            return x.clone()

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            aten.impl("mul.Tensor", mul, "CPU")
        lib.ones(1) * 3
        lib.ops.aten.mul.Tensor(lib.ones(1), 2.5)
        aten._destroy()
        library._destroy()
        return rows + seen

    both(scenario)
