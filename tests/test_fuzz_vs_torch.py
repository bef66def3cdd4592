"""Differential fuzzing of 59 entry points with malformed arguments, PyTorch as the oracle.

Each example is one call (tests/fuzz_support.py: descriptors built the same way under both
libraries) run under real PyTorch and under ember. Where PyTorch refuses, ember must refuse
too, with the same exception type and message, never with an internal error (definition:
benchmarks/agreement/harness.py), and must leave every argument tensor (values, version
counter, requires_grad, grad), grad / inference mode, the thread-local key sets, the default
dtype, the mode stack and the touched operators' registrations as they were. Where PyTorch
accepts, ember must not fail internally, and a result it returns must equal PyTorch's
(ember may refuse cleanly what it does not implement). Bounded and deterministic:
derandomized hypothesis, no example database.
"""

from __future__ import annotations

import itertools
import operator
from pathlib import Path

import pytest
from fuzz_support import Call, D, Obj, T, describe, run, same_result  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from oracle import torch

import ember  # noqa: E402

EMBER_DIR = str(Path(ember.__file__).resolve().parent) + "/"
TORCH_DIR = str(Path(torch.__file__).resolve().parent) + "/"
USER_CODE = (__file__, str(Path(__file__).with_name("fuzz_support.py")))
NAMESPACES = itertools.count()

# -- argument kinds ------------------------------------------------------------

SHAPES = st.sampled_from([(), (0,), (1,), (3,), (2, 3), (3, 1), (1, 3), (2, 0), (2, 1, 3)])
DTYPES = st.sampled_from(["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8",
                          "bool", "complex64"])  # fmt: skip
LAYOUTS = st.sampled_from(["contiguous", "contiguous", "transposed", "expanded", "strided"])
DEVICES = st.sampled_from(["cpu"] * 6 + ["meta"])
TENSORS = st.builds(T, SHAPES, DTYPES, st.booleans(), LAYOUTS, DEVICES)
FLOAT_TENSORS = st.builds(T, SHAPES, st.just("float32"), st.booleans(), LAYOUTS)
LEAVES = st.builds(T, SHAPES, st.sampled_from(["float32", "float64"]), st.just(True))
INDICES = st.builds(T, SHAPES, st.sampled_from(["int64", "int64", "int32", "bool", "float32"]))
INTS = st.one_of(
    st.integers(-4, 4), st.sampled_from([2**40, 2**63, -(2**63) - 1, 2**64, 10**5])
)  # 2**40 elements: an allocation both refuse at once
FLOATS = st.sampled_from([0.5, -1.5, float("nan"), float("inf"), 1e300, -0.0])
SCALARS = st.one_of(INTS, FLOATS, st.booleans(), st.just(1j))
JUNK = st.sampled_from(["a", None, Obj(), [1, "a"], {}, b"x", (1, "a")])
OPERANDS = st.one_of(TENSORS, TENSORS, SCALARS, JUNK)
TENSORISH = st.one_of(TENSORS, TENSORS, TENSORS, SCALARS, JUNK)
OUTS = st.one_of(TENSORS, JUNK)
DIMS = st.one_of(st.integers(-4, 4), st.sampled_from([2**63, "a", 1.5, None]),
                 st.lists(st.integers(-3, 3), max_size=3).map(tuple))  # fmt: skip
SIZES = st.one_of(
    st.lists(st.integers(-2, 4), max_size=3).map(tuple),
    INTS,
    JUNK,
    st.lists(st.sampled_from([2, -1, 2.5, "a", 2**63, None]), min_size=1, max_size=3),
)
DTYPE_ARGS = st.one_of(DTYPES.map(D), st.sampled_from(["float32", float, int, 3, None]))
DEVICE_ARGS = st.sampled_from(["cpu", "meta", "cuda", "foo", "cpu:0", 1.5, None])
BOOLS = st.one_of(st.booleans(), st.sampled_from(["yes", 1, None]))
KEYS = st.one_of(INTS, st.none(), st.just(Ellipsis), INDICES, JUNK,
                 st.builds(slice, st.integers(-4, 4), st.integers(-4, 4), st.sampled_from([None, 1, 2, 0, -1])),
                 st.lists(st.integers(-4, 4), max_size=3), st.tuples(INTS, st.one_of(INTS, INDICES)))  # fmt: skip
TENSOR_LISTS = st.one_of(
    st.lists(TENSORS, max_size=3), st.lists(OPERANDS, min_size=1, max_size=2), JUNK, TENSORS
)


# -- the entry points -------------------------------------------------------------


def function(name):
    return lambda lib, ctx, *args, **kwargs: getattr(lib, name)(*args, **kwargs)


def method(name):
    return lambda lib, ctx, self, *args, **kwargs: getattr(self, name)(*args, **kwargs)


@st.composite
def calls(draw, label, fn, positional, keywords=None, self=None):
    """A call with drawn arguments, mangled now and then: one positional too few or too many,
    keywords drawn from those the entry point takes plus one it does not take."""
    args = [draw(s) for s in positional]
    if args and draw(st.integers(0, 9)) == 0:
        args.pop()
    if draw(st.integers(0, 9)) == 0:
        args.append(draw(OPERANDS))
    kwargs = {k: draw(s) for k, s in (keywords or {}).items() if draw(st.integers(0, 2)) == 0}
    if draw(st.integers(0, 14)) == 0:
        kwargs["bogus"] = 1
    if self is not None:
        args.insert(0, draw(self))
    return Call(fn, tuple(args), kwargs, label=label)


def fn_entry(name, positional, keywords=None):
    return calls(name, function(name), positional, keywords)


def method_entry(name, positional, keywords=None, self=TENSORS):
    return calls(f"Tensor.{name}", method(name), positional, keywords, self=self)


ARITH_KW = {"alpha": st.one_of(SCALARS, JUNK), "out": OUTS}
REDUCE_KW = {"dim": DIMS, "keepdim": BOOLS, "dtype": DTYPE_ARGS}

ENTRIES = {
    "add": fn_entry("add", [TENSORISH, OPERANDS], ARITH_KW),
    "sub": fn_entry("sub", [TENSORISH, OPERANDS], ARITH_KW),
    "mul": fn_entry("mul", [TENSORISH, OPERANDS], {"out": OUTS}),
    "div": fn_entry(
        "div",
        [TENSORISH, OPERANDS],
        {"rounding_mode": st.sampled_from(["floor", "trunc", "round", None, 1]), "out": OUTS},
    ),  # fmt: skip
    "pow": fn_entry("pow", [TENSORISH, OPERANDS], {"out": OUTS}),
    "remainder": fn_entry("remainder", [TENSORISH, OPERANDS], {"out": OUTS}),
    "maximum": fn_entry("maximum", [TENSORISH, OPERANDS], {"out": OUTS}),
    "eq": fn_entry("eq", [TENSORISH, OPERANDS], {"out": OUTS}),
    "mm": fn_entry("mm", [TENSORISH, TENSORISH], {"out": OUTS}),
    "matmul": fn_entry("matmul", [TENSORISH, TENSORISH], {"out": OUTS}),
    "clamp": fn_entry("clamp", [TENSORISH, OPERANDS], {"max": OPERANDS, "out": OUTS}),
    "where": fn_entry("where", [TENSORISH, OPERANDS, OPERANDS], {"out": OUTS}),
    "Tensor.add_": method_entry("add_", [OPERANDS], {"alpha": st.one_of(SCALARS, JUNK)}),
    "Tensor.mul_": method_entry("mul_", [OPERANDS]),
    "Tensor.copy_": method_entry("copy_", [OPERANDS], {"non_blocking": BOOLS}),
    "Tensor.fill_": method_entry("fill_", [OPERANDS]),
    "Tensor.view": method_entry("view", [st.one_of(SIZES, DTYPE_ARGS)]),
    "Tensor.reshape": method_entry("reshape", [SIZES]),
    "Tensor.expand": method_entry("expand", [SIZES]),
    "Tensor.permute": method_entry("permute", [SIZES]),
    "Tensor.transpose": method_entry("transpose", [DIMS, DIMS]),
    "Tensor.squeeze": method_entry("squeeze", [DIMS]),
    "Tensor.unsqueeze": method_entry("unsqueeze", [DIMS]),
    "Tensor.narrow": method_entry("narrow", [DIMS, INTS, INTS]),
    "Tensor.select": method_entry("select", [DIMS, INTS]),
    "Tensor.flatten": method_entry("flatten", [DIMS, DIMS]),
    "Tensor.to": method_entry(
        "to",
        [st.one_of(DTYPE_ARGS, DEVICE_ARGS, TENSORS)],
        {"dtype": DTYPE_ARGS, "device": DEVICE_ARGS, "copy": BOOLS},
    ),  # fmt: skip
    "sum": fn_entry("sum", [TENSORISH], REDUCE_KW),
    "mean": fn_entry("mean", [TENSORISH], REDUCE_KW),
    "amax": fn_entry("amax", [TENSORISH, DIMS], {"keepdim": BOOLS, "out": OUTS}),
    "max": fn_entry("max", [TENSORISH, st.one_of(DIMS, TENSORS)], {"keepdim": BOOLS}),
    "argmax": fn_entry("argmax", [TENSORISH], {"dim": DIMS, "keepdim": BOOLS}),
    "std": fn_entry(
        "std", [TENSORISH, DIMS], {"correction": st.one_of(SCALARS, JUNK), "keepdim": BOOLS}
    ),
    "cumsum": fn_entry("cumsum", [TENSORISH, DIMS], {"dtype": DTYPE_ARGS, "out": OUTS}),
    "softmax": fn_entry("softmax", [TENSORISH, DIMS], {"dtype": DTYPE_ARGS}),
    "topk": fn_entry("topk", [TENSORISH, INTS], {"dim": DIMS, "largest": BOOLS}),
    "index_select": fn_entry(
        "index_select", [TENSORISH, DIMS, st.one_of(INDICES, JUNK)], {"out": OUTS}
    ),
    "gather": fn_entry("gather", [TENSORISH, DIMS, st.one_of(INDICES, JUNK)]),
    "Tensor.scatter_": method_entry("scatter_", [DIMS, st.one_of(INDICES, JUNK), OPERANDS]),
    "masked_fill": fn_entry("masked_fill", [TENSORISH, st.one_of(INDICES, JUNK), OPERANDS]),
    "cat": fn_entry("cat", [TENSOR_LISTS, DIMS], {"out": OUTS}),
    "stack": fn_entry("stack", [TENSOR_LISTS, DIMS], {"out": OUTS}),
    "zeros": fn_entry(
        "zeros", [SIZES], {"dtype": DTYPE_ARGS, "device": DEVICE_ARGS, "requires_grad": BOOLS}
    ),  # fmt: skip
    "full": fn_entry("full", [SIZES, OPERANDS], {"dtype": DTYPE_ARGS, "requires_grad": BOOLS}),
    "arange": fn_entry(
        "arange",
        [st.one_of(SCALARS, JUNK), st.one_of(SCALARS, JUNK)],
        {"step": st.one_of(SCALARS, JUNK), "dtype": DTYPE_ARGS},
    ),  # fmt: skip
    "tensor": fn_entry(
        "tensor",
        [st.one_of(SCALARS, JUNK, st.lists(st.one_of(SCALARS, JUNK), max_size=3))],
        {"dtype": DTYPE_ARGS, "requires_grad": BOOLS, "device": DEVICE_ARGS},
    ),  # fmt: skip
    "getitem": calls("getitem", lambda lib, ctx, x, key: x[key], [KEYS], self=TENSORS),
    "setitem": calls(
        "setitem",
        lambda lib, ctx, x, key, value: operator.setitem(x, key, value),
        [KEYS, OPERANDS],
        self=TENSORS,
    ),  # fmt: skip
}


# -- autograd misuse, inference tensors, overlap ---------------------------------


def _leaf_inplace(lib, ctx, w, op, operand):
    if op == "setitem":
        w[0] = operand
    elif op in ("zero_", "detach_", "t_"):
        getattr(w, op)()
    else:
        getattr(w, op)(operand)
    return w


def _backward(lib, ctx, w, reduce, gradient, twice):
    y = (w * 2).sum() if reduce else w * 2
    y.backward(gradient)
    if twice:
        y.backward(gradient)
    return w.grad


def _grad(lib, ctx, w, inputs, grad_outputs):
    y = (w * w).sum()
    if inputs == "w":
        inputs = w
    return lib.autograd.grad(y, inputs, grad_outputs=grad_outputs)


def _inference(lib, ctx, x, w, op):
    with lib.inference_mode():
        t = x.clone()
    if op == "requires_grad_":
        return t.requires_grad_()
    if op == "backward":
        (t * w).sum().backward()
        return w.grad
    if op == "setitem":
        t[0] = 1
        return t
    return getattr(t, op)(1) if op != "zero_" else t.zero_()


def _overlap(lib, ctx, base, first, second, op):
    a, b = base[first], base[second]
    if op == "exp-out":
        return lib.exp(b, out=a)
    if op == "add-out":
        return lib.add(b, 1, out=a)
    if op == "cat-out":
        return lib.cat([b, b], out=a)
    if op == "index_select-out":
        return lib.index_select(b, 0, lib.zeros(a.shape[0], dtype=lib.int64), out=a)
    return getattr(a, op)(b)


SLICES = st.builds(slice, st.integers(0, 3), st.integers(2, 6), st.sampled_from([None, 1, 2]))
OPERAND_OR_TENSOR = st.one_of(SCALARS, FLOAT_TENSORS, JUNK)

ENTRIES |= {
    "leaf in-place": st.builds(
        lambda w, op, operand: Call(_leaf_inplace, (w, op, operand), label="leaf in-place"),
        LEAVES, st.sampled_from(["add_", "mul_", "zero_", "fill_", "copy_", "setitem", "sin_",
                                 "detach_", "t_", "resize_"]), OPERAND_OR_TENSOR),
    "backward": st.builds(
        lambda w, reduce, gradient, twice: Call(_backward, (w, reduce, gradient, twice), label="backward"),
        LEAVES, st.booleans(), st.one_of(st.none(), TENSORS, SCALARS, JUNK), st.booleans()),
    "autograd.grad": st.builds(
        lambda w, inputs, grad_outputs: Call(_grad, (w, inputs, grad_outputs), label="autograd.grad"),
        LEAVES, st.one_of(st.just("w"), st.lists(TENSORS, max_size=2), JUNK),
        st.one_of(st.none(), TENSORS, JUNK)),
    "inference tensor": st.builds(
        lambda x, w, op: Call(_inference, (x, w, op), label="inference tensor"),
        FLOAT_TENSORS, LEAVES, st.sampled_from(["requires_grad_", "backward", "setitem", "add_",
                                                "mul_", "zero_", "resize_", "mul", "add"])),
    "overlap": st.builds(
        lambda base, a, b, op: Call(_overlap, (base, a, b, op), label="overlap"),
        st.builds(T, st.just((6,))), SLICES, SLICES,
        st.sampled_from(["add_", "mul_", "copy_", "sub_", "exp-out", "add-out", "cat-out",
                         "index_select-out"])),
}  # fmt: skip


# -- torch.library misuse -----------------------------------------------------------

SCHEMA_NAMES = st.sampled_from(
    ["foo", "foo.bar", "f..", "foo ", "1foo", "", "OTHER::foo", "foo.default"]
)
SCHEMA_ARGS = st.sampled_from(["(Tensor x)", "(Tensor x", "(Tensor x, Tensor x)", "(Tensor(a!) x)",
                               "(Floaty x)", "(Tensor x=1)", "()", "(int[] x, *, Tensor y)"])  # fmt: skip
SCHEMA_RETURNS = st.sampled_from([" -> Tensor", " -> Tensor ", " ->", " -> (Tensor, Tensor)",
                                  " -> Tensor(b)", ""])  # fmt: skip
DISPATCH_KEYS = st.sampled_from(["CPU", "Foo", "Conjugate", "Autograd", "CompositeImplicitAutograd",
                                 "cpu", "", "Meta", "CUDA", "AutogradCPU", 3])  # fmt: skip
QUALNAMES = ("{ns}::foo", "{ns}::missing")


def _define_foo(lib, ctx):
    ctx.library(lib, ctx.ns, "DEF").define("foo(Tensor x) -> Tensor")


def _define(lib, ctx, kind, schema):
    ctx.library(lib, ctx.ns, kind).define(schema)


def _impl(lib, ctx, lib_key, name, kernel, key):
    name = name.replace("NS", ctx.ns) if isinstance(name, str) else name
    fn = {"identity": lambda x: x, "junk": "notcallable", "none": None}[kernel]
    ctx.library(lib, ctx.ns, "IMPL", lib_key).impl(name, fn, key)


def _register(lib, ctx, which, name, fn):
    name = name.replace("NS", ctx.ns) if isinstance(name, str) else name
    fn = {"identity": lambda *a: a[-1], "junk": 3}[fn]
    register = getattr(lib.library, which)
    return register(name, fn, lib=ctx.library(lib, ctx.ns, "FRAGMENT"))


def _kernel_returns(lib, ctx, returned, x):
    results = {"oops": lambda t: "oops", "int": lambda t: 3, "none": lambda t: None,
               "tuple": lambda t: (t, t), "list": lambda t: [t], "clone": lambda t: t.clone()}  # fmt: skip
    ctx.library(lib, ctx.ns, "IMPL").impl("foo", results[returned], "CPU")
    return getattr(lib.ops, ctx.ns).foo(x)


def _custom_op(lib, ctx, returned, mutates, x):
    def kernel(t):
        return {"oops": "oops", "none": None, "self": t, "clone": t.clone()}[returned]

    kernel.__annotations__ = {"t": lib.Tensor, "return": lib.Tensor}
    op = lib.library.custom_op(f"{ctx.ns}::g", kernel, mutates_args=mutates)
    ctx.libraries.append(op._lib)
    return op(x)


def _mode_returns(lib, ctx, returned, x):
    class Mode(lib.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return {"oops": "oops", "none": None, "int": 3}[returned]

    with Mode():
        return x + 1


ENTRIES |= {
    "Library.define": st.builds(
        lambda kind, n, a, r: Call(_define, (kind, n + a + r), qualnames=QUALNAMES, label="Library.define"),
        st.sampled_from(["DEF", "FRAGMENT", "IMPL", "def", "FOO"]), SCHEMA_NAMES, SCHEMA_ARGS, SCHEMA_RETURNS),
    "Library.impl": st.builds(
        lambda lib_key, name, kernel, key: Call(_impl, (lib_key, name, kernel, key), setup=_define_foo,
                                                qualnames=QUALNAMES, label="Library.impl"),
        st.sampled_from(["", "CPU", "Foo"]), st.sampled_from(["foo", "missing", "OTHER::foo", "NS::foo", 123]),
        st.sampled_from(["identity", "identity", "junk", "none"]), DISPATCH_KEYS),
    "register_fake/autograd": st.builds(
        lambda which, name, fn: Call(_register, (which, name, fn), setup=_define_foo, qualnames=QUALNAMES,
                                     label="register"),
        st.sampled_from(["register_fake", "register_autograd"]),
        st.sampled_from(["NS::foo", "NS::missing", "nonamespace", 3]), st.sampled_from(["identity", "junk"])),
    "kernel returns": st.builds(
        lambda returned, x: Call(_kernel_returns, (returned, x), setup=_define_foo, qualnames=QUALNAMES,
                                 label="kernel returns"),
        st.sampled_from(["oops", "int", "none", "tuple", "list", "clone"]), FLOAT_TENSORS),
    "custom_op": st.builds(
        lambda returned, mutates, x: Call(_custom_op, (returned, mutates, x), qualnames=("{ns}::g",),
                                          label="custom_op"),
        st.sampled_from(["oops", "none", "self", "clone"]), st.sampled_from([(), ("t",), ("u",), "t"]),
        st.one_of(FLOAT_TENSORS, JUNK)),
    "dispatch mode returns": st.builds(
        lambda returned, x: Call(_mode_returns, (returned, x), label="mode returns"),
        st.sampled_from(["oops", "none", "int"]), FLOAT_TENSORS),
}  # fmt: skip


# -- the test ------------------------------------------------------------------------


def compare(call: Call) -> None:
    ns = f"fuzz_{next(NAMESPACES)}"
    theirs = run(call, torch, ns, TORCH_DIR, USER_CODE)
    ours = run(call, ember, ns, EMBER_DIR, USER_CODE)
    t, o = theirs.outcome, ours.outcome
    where = f"{call!r}\n  torch: {_show(t)}\n  ember: {_show(o)}"
    if t.raised:
        assert o.raised, f"accepted where torch refuses: {where}"
        assert not (o.internal and o.type_name != t.type_name), (
            f"internal error at {o.origin}: {where}"
        )
        if not theirs.changed:
            assert not ours.changed, f"state changed by a failed call: {ours.changed}\n{where}"
        assert o.type_name == t.type_name, f"exception type differs: {where}"
        assert o.message == t.message, f"message differs: {where}"
    else:
        assert not (o.raised and o.internal), (
            f"internal error at {o.origin} where torch accepts: {where}"
        )
        if not o.raised:
            assert same_result(t, o), f"result differs: {where}"


def _show(outcome) -> str:
    return outcome.short() if outcome.raised else describe(outcome.summary)


# No shrinking: a failing example is reported as drawn (its assertion message spells the
# call out), which keeps the run bounded when many entry points fail.
FUZZ = settings(
    max_examples=40,
    phases=(Phase.explicit, Phase.generate),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@FUZZ
@given(data=st.data())
def test_malformed_call_matches_torch(entry, data):
    compare(data.draw(ENTRIES[entry], label=entry))
