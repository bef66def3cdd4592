"""vmap's randomness modes and the fallback for ops without a batching rule, against
PyTorch (facts A7, A10, A11): 'error' refuses every random op, 'different' equals one
(B, ...) draw, 'same' one unbatched draw; the loop fallback with its warning as a Python
UserWarning (through a binding) or a glog line on stderr (through torch.ops), and the
switches that silence or refuse it."""

from __future__ import annotations

import re
import warnings

import pytest
from oracle import torch
from vmap_support import same

import ember

RANDOM = {
    "rand": lambda lib: lambda a: lib.rand(2),
    "rand_like": lambda lib: lambda a: lib.rand_like(a),
    "randn_like": lambda lib: lambda a: lib.randn_like(a),
    "normal_": lambda lib: lambda a: a.clone().normal_(),
    "uniform_": lambda lib: lambda a: a.clone().uniform_(-1, 1),
    "bernoulli_": lambda lib: lambda a: a.clone().bernoulli_(0.3),
    "dropout": lambda lib: lambda a: lib.nn.functional.dropout(a + 1, 0.5),
    "randint": lambda lib: lambda a: lib.randint(10, (3,)),
}


def _seeded(lib, fn, randomness, x_shape=(3, 2)):
    lib.manual_seed(0)
    return lib.vmap(fn(lib), randomness=randomness)(lib.zeros(*x_shape))


@pytest.mark.parametrize("name", list(RANDOM))
def test_randomness_error_refuses(name):
    same(lambda lib: _seeded(lib, RANDOM[name], "error"))


@pytest.mark.parametrize("name", list(RANDOM))
@pytest.mark.parametrize("randomness", ["same", "different"])
def test_randomness_same_and_different_draw_as_pytorch(name, randomness):
    same(lambda lib: _seeded(lib, RANDOM[name], randomness))


def test_different_equals_one_batched_draw_and_same_one_unbatched_draw():
    def program(lib):
        lib.manual_seed(0)
        a = lib.rand(3, 2)
        lib.manual_seed(0)
        b = lib.vmap(lambda t: lib.rand(2), randomness="different")(lib.zeros(3, 2))
        lib.manual_seed(0)
        c = lib.rand(2)
        lib.manual_seed(0)
        d = lib.vmap(lambda t: lib.rand(2), randomness="same")(lib.zeros(3, 2))
        return lib.equal(a, b), lib.equal(c, d[0]), lib.equal(d[0], d[1])

    assert same(program) == (True, True, True)


def test_in_place_randomness_on_an_unbatched_tensor():
    for randomness in ("different", "same"):
        same(lambda lib, r=randomness: lib.vmap(lambda a: lib.zeros(2).normal_() + a, randomness=r)(
            lib.zeros(3, 2)
        ).shape)  # fmt: skip


def test_dropout_different_matches_pytorch_values():
    def program(lib):
        lib.manual_seed(0)
        return lib.vmap(lambda a: lib.nn.functional.dropout(a, 0.5), randomness="different")(
            lib.ones(4, 6)
        )

    same(program)


def test_chunks_restore_the_rng_under_same():
    def program(lib):
        lib.manual_seed(0)
        return lib.vmap(lambda a: lib.rand(2), randomness="same", chunk_size=2)(lib.zeros(5, 2))

    same(program)


def _warned(program, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", program(lib))
        except RuntimeError as error:
            result = ("error", str(error))
    return result, [(w.category.__name__, str(w.message)) for w in caught]


FALLBACK = {
    "histc": lambda lib: lib.vmap(lambda t: lib.histc(t, bins=3))(lib.arange(6.0).reshape(2, 3)),
    "bincount": lambda lib: lib.vmap(lib.bincount)(lib.tensor([[0, 1], [2, 2]])),
    "renorm_": lambda lib: lib.vmap(lambda t: t.renorm_(2, 0, 1.0))(
        lib.arange(6.0).reshape(2, 3, 1)
    ),
    "take": lambda lib: lib.vmap(lambda t: lib.take(t, lib.tensor([0, 2])))(lib.ones(2, 3)),
}


@pytest.mark.parametrize("name", list(FALLBACK))
def test_fallback_loops_and_warns_through_a_binding(name):
    ours, theirs = _warned(FALLBACK[name], ember), _warned(FALLBACK[name], torch)
    assert ours[1] == theirs[1] and ours[1]
    same(FALLBACK[name])


def _probe_lib(lib, tag):
    library = lib.library.Library(tag, "DEF")
    library.define("f(Tensor x) -> Tensor")
    library.impl("f", lambda x: x * 2, "CPU")
    return library, getattr(lib.ops, tag).f


_GLOG = re.compile(r"^\[W\d{4} \d\d:\d\d:\d\d\.\d{9} BatchedFallback\.cpp:82\] Warning: (.*)$")


def _glog(capfd, lib, tag, calls=2):
    library, op = _probe_lib(lib, tag)
    capfd.readouterr()
    result = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(calls):
            result = lib.vmap(op)(lib.ones(2, 3))
        result = lib.vmap(lambda t: lib.ops.aten.histc.default(t, 3))(lib.ones(2, 3))
    err = capfd.readouterr().err
    del library
    lines = [m.group(1) for m in map(_GLOG.match, err.splitlines()) if m]
    return lines, [str(w.message) for w in caught], result.shape


def test_fallback_through_torch_ops_logs_each_call_to_stderr(capfd):
    ours = _glog(capfd, ember, "vmapfb1")
    theirs = _glog(capfd, torch, "vmapfb2")
    assert ours[0] == [line.replace("vmapfb2", "vmapfb1") for line in theirs[0]]
    assert len(ours[0]) == 3 and ours[1] == theirs[1] == []
    assert ours[2] == theirs[2]


def test_fallback_switches():
    def program(lib):
        fz = lib._C._functorch
        library, op = _probe_lib(lib, "vmapfbsw" + lib.__name__)
        out = [fz._is_vmap_fallback_enabled()]
        try:
            fz._set_vmap_fallback_warning_enabled(False)
            out.append(_warned(lambda lib: lib.vmap(lambda t: lib.histc(t, bins=3))(
                lib.ones(2, 3)), lib)[1])  # fmt: skip
            fz._set_vmap_fallback_enabled(False)
            out.append(_warned(lambda lib: lib.vmap(op)(lib.ones(2, 3)), lib)[0][1]
                       .replace(lib.__name__, "LIB"))  # fmt: skip
            out.append(_warned(lambda lib: lib.vmap(lambda t: lib.histc(t, bins=3))(
                lib.ones(2, 3)), lib)[0])  # fmt: skip
        finally:
            fz._set_vmap_fallback_enabled(True)
            fz._set_vmap_fallback_warning_enabled(True)
        del library
        return out

    same(program)


def _custom_ops(lib, tag):
    seen = []

    @lib.library.custom_op(f"{tag}::twice", mutates_args=(), schema="(Tensor x) -> Tensor")
    def twice(x):
        seen.append(("twice", tuple(x.shape)))
        return x * 2

    @lib.library.custom_op(f"{tag}::thrice", mutates_args=(), schema="(Tensor x) -> Tensor")
    def thrice(x):
        seen.append(("thrice", tuple(x.shape)))
        return x * 3

    def thrice_vmap(info, in_dims, x):
        seen.append((info.batch_size, info.randomness, in_dims))
        return thrice(x), in_dims[0]

    lib.library.register_vmap(f"{tag}::thrice", thrice_vmap)
    return twice, thrice, seen


def test_custom_op_without_and_with_register_vmap():
    def program(lib):
        twice, thrice, seen = _custom_ops(lib, "vmapco" + lib.__name__)
        x = lib.arange(6.0).reshape(2, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = [lib.vmap(twice)(x), lib.vmap(thrice)(x), lib.vmap(thrice, in_dims=1)(x)]
        return results, seen

    same(program)


def test_autograd_function_under_vmap():
    def program(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(a):
                return a * 4

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, g):
                return g * 4

        class G(F):
            generate_vmap_rule = True

        class H(F):
            @staticmethod
            def vmap(info, in_dims, a):
                return a * 5 + info.batch_size, in_dims[0]

        class Old(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 4

            @staticmethod
            def backward(ctx, g):
                return g * 4

        x = lib.arange(6.0).reshape(2, 3)
        out = []
        for cls in (F, G, H, Old):
            try:
                out.append(lib.vmap(cls.apply)(x))
            except RuntimeError as error:
                out.append(str(error))
        out.append(Old.apply(x))  # outside any transform: the plain apply
        return out

    same(program)
