"""torch.func.functionalize: the Functionalize interpreter on the functorch layer stack.

Differential against PyTorch 2.13 (facts A2 and A13): results, input mutations copied
back, the ops a dispatch mode below Functionalize sees for both ``remove`` settings, the
key set / TLS / level / stack / repr seen inside, and the errors.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch
from test_functionalize_key import _MUTATIONS, _STEP, _VIEWS, _log_mode

import ember

LIBS = {"torch": torch, "ember": ember}


def _same(program):
    out = {name: program(lib) for name, lib in LIBS.items()}
    assert out["ember"] == out["torch"]
    return out["torch"]


def _f(a):
    v = a.view(-1)  # a view of the input
    v.add_(1)  # mutates the input through the view
    b = a * 2
    c = b[0]  # a view of an intermediate
    c.mul_(10)  # in place on that view
    return b, v


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_outputs_input_mutation_and_ops_seen_below(remove):
    def program(lib):
        x = lib.zeros(2, 2)
        log = _log_mode(lib)
        with log:
            out = lib.func.functionalize(_f, remove=remove)(x)
        return (
            x.tolist(), [o.tolist() for o in out], log.ops,
            out[1].data_ptr() == x.data_ptr(), out[0]._is_view(),
        )  # fmt: skip

    ops = _same(program)[2]
    assert ops[-1] == "aten.copy_.default"


def test_bad_remove_message():
    def program(lib):
        try:
            lib.func.functionalize(_f, remove="views")
        except RuntimeError as e:
            return str(e)

    assert "remove='mutations'" in _same(program)


def test_unmutated_input_is_not_copied_back_and_out_arguments():
    def program(lib):
        def with_out(a):
            out = lib.empty(2)
            lib.add(a, 1, out=out)
            return out

        z = lib.zeros(2)
        log = _log_mode(lib)
        with log:
            first = lib.func.functionalize(lambda a: a * 3)(z)
            second = lib.func.functionalize(with_out)(z)
        return first.tolist(), second.tolist(), log.ops, z.tolist()

    assert _same(program)[2] == ["aten.mul.Tensor", "aten.empty.memory_format", "aten.add.Tensor"]


def test_resize_of_an_input_is_copied_back():
    def g(a):
        a.resize_(4)
        return a

    def program(lib):
        x = lib.zeros(2)
        out = lib.func.functionalize(g)(x)
        return tuple(out.shape), tuple(x.shape), x[:2].tolist()

    _same(program)


def test_what_the_function_sees():
    """Keys, the TLS (the DynamicLayer keys added), level, stack and repr inside (A2)."""

    def program(lib):
        C = lib._C
        fz = C._functorch
        default_inc = C._dispatch_tls_local_include_set()
        seen = []

        def probe(t):
            seen.append(repr(C._dispatch_keys(t)))
            seen.append(repr(C._dispatch_tls_local_include_set() - default_inc))
            seen.append((fz.maybe_get_level(t), fz.is_functionaltensor(t), fz.is_batchedtensor(t)))
            seen.append(
                (
                    fz.maybe_current_level(),
                    [(i.key().name, i.level()) for i in fz.get_interpreter_stack()],
                )
            )
            seen.append((type(t).__name__, tuple(t.shape), t.requires_grad))
            seen.append(repr(t).replace("ember.", "torch."))
            made = lib.ones(2)
            seen.append((lib._is_functional_tensor(made), fz.maybe_get_level(made)))
            return t.sin().sum()

        out = lib.func.functionalize(probe)(lib.arange(6.0).reshape(2, 3))
        seen.append((lib._is_functional_tensor(out), fz.maybe_current_level()))
        seen.append(repr(C._dispatch_tls_local_include_set()))
        return seen

    _same(program)


def test_pytrees_kwargs_and_globals():
    def program(lib):
        g = lib.ones(2)

        def fn(pair, *, scale):
            a, b = pair
            a.add_(b)
            return {"sum": a + scale, "global": g, "n": 3}

        x, y = lib.zeros(2), lib.arange(2.0)
        out = lib.func.functionalize(fn)((x, y), scale=lib.full((2,), 2.0))
        return out["sum"].tolist(), out["global"] is g, out["n"], x.tolist(), y.tolist()

    _same(program)


def test_tensor_literals_inside():
    def program(lib):
        def fn(a):
            t = lib.tensor([1.0, 2.0])
            t.mul_(a)
            a.copy_(t)
            return t

        x = lib.full((2,), 3.0)
        out = lib.func.functionalize(fn, remove="mutations_and_views")(x)
        return out.tolist(), x.tolist()

    _same(program)


def _chain(lib, steps):
    def fn(base):
        tensors = [base]
        for kind, pick, which in steps:
            t = tensors[pick % len(tensors)]
            if kind == "view":
                tensors.append(_VIEWS[which % len(_VIEWS)](t))
            else:
                _MUTATIONS[which % len(_MUTATIONS)](t)
        return tensors

    return fn


@settings(max_examples=40, deadline=None)
@given(
    st.lists(_STEP, min_size=1, max_size=8), st.sampled_from(["mutations", "mutations_and_views"])
)
def test_random_chains_match_eager_torch(steps, remove):
    start = [[float(i * 4 + j) for j in range(4)] for i in range(3)]
    x_torch = torch.tensor(start)
    expected = [t.tolist() for t in _chain(torch, steps)(x_torch)]
    x_ember = ember.tensor(start)
    got = [
        t.tolist() for t in ember.func.functionalize(_chain(ember, steps), remove=remove)(x_ember)
    ]
    assert got == expected
    assert x_ember.tolist() == x_torch.tolist()


def _outcome(fn):
    try:
        result = fn()
    except Exception as e:  # noqa: BLE001 (the type and message are compared)
        return type(e).__name__, str(e)
    return "OK", result


def _plain(result):
    """Outputs as Python values (after the transform: tolist() of a functional tensor
    inside it is refused)."""
    if isinstance(result, (list, tuple)):
        return [_plain(r) for r in result]
    return result.tolist() if hasattr(result, "tolist") else result


_PROGRAMS = {
    "resize_ grows a view": lambda lib, a: a.view(4).resize_(8).shape,
    "resize_ shrinks": lambda lib, a: a.view(4).resize_(2).add_(1),
    "resize_ grows": lambda lib, a: a.resize_(6).fill_(2),
    "write through expand": lambda lib, a: a[0].expand(2, 2).add_(1),
    "write through overlapping unfold": lambda lib, a: a.view(4).unfold(0, 2, 1).add_(1),
    "write through unfold": lambda lib, a: a.view(4).unfold(0, 2, 2).add_(1),
    "item / float / bool / int / len": lambda lib, a: (
        a.sum().item(),
        float(a.sum()),
        bool(a.sum() > 0),
        int(a[0, 1]),
        len(a),
    ),  # fmt: skip
    "setitem": lambda lib, a: [a.__setitem__(0, 7.0), a[1:].add_(1), a.clone()][2],
    "masked_fill_ / index_put_": lambda lib, a: a.masked_fill_(a > 1, 5.0).index_put_(
        (lib.tensor([0]),), lib.tensor(9.0)
    ),
    "max out=": lambda lib, a: lib.max(a, 0, out=(lib.empty(0), lib.empty(0, dtype=lib.long))),
    "batch_norm running stats": lambda lib, a: _batch_norm(lib, a),
    "random in place keeps the shape": lambda lib, a: tuple(a.normal_().uniform_().shape),
    "to() then in place": lambda lib, a: a.to(lib.float64).add_(1),
    "detach then in place": lambda lib, a: a.detach().add_(1),
    "tolist inside": lambda lib, a: a.tolist(),
}


def _batch_norm(lib, a):
    mean, var = lib.zeros(2), lib.ones(2)
    lib.nn.functional.batch_norm(a, mean, var, training=True)
    return mean, var


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
@pytest.mark.parametrize("name", list(_PROGRAMS))
def test_programs_match_torch(name, remove):
    def program(lib):
        x = lib.arange(4.0).reshape(2, 2)
        lib.manual_seed(0)
        fn = lib.func.functionalize(lambda a: _PROGRAMS[name](lib, a), remove=remove)
        out = _outcome(lambda: _plain(fn(x)))
        return out, x.tolist() if x.numel() == 4 else tuple(x.shape)

    _same(program)


def test_in_place_check_is_out_of_a_modes_sight():
    """An in-place result of another dtype is checked on copies no mode sees, then cast back
    (replace_'s _to_copy)."""

    def program(lib):
        def fn(a):
            a.add_(lib.ones(2, dtype=lib.float64))
            return a * 1

        log = _log_mode(lib)
        with log:
            out = lib.func.functionalize(fn)(lib.zeros(2))
        return out.tolist(), str(out.dtype).split(".")[-1], log.ops

    _same(program)
