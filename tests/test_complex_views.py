"""The complex views (view_as_real, view_as_complex, real, imag) and the complex
constructors (complex, polar) against PyTorch 2.13.

Each case runs the same program under both libraries and compares what it observes:
geometry (shapes, strides, storage offsets, dtypes, whether a result shares its input's
storage and is its view), values, writes through the views (in-place ops, setters,
indexing) seen in the base, the lazy math bits (`x.conj().imag` is a Negative view,
view_as_real refuses a conjugated tensor), grad_fn chains and gradients, errors (type
and message) and the aten calls a __torch_dispatch__ mode sees. Hypothesis draws
strided geometries.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from diff_support import ops_seen
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember


def _outcome(fn):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = fn()
        return "ok", value, [str(w.message) for w in caught]
    except Exception as error:  # noqa: BLE001 (compared with the other library's)
        return type(error).__name__, str(error).replace("ember.", "torch."), []


def _plain(value):
    """What a program can print of a value: tensors as their observable properties."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "dtype") and hasattr(value, "stride"):
        resolved = value.detach().resolve_conj().resolve_neg()
        if str(resolved.dtype).endswith("complex32"):
            data = None
        else:
            data = np.array(resolved.numpy() if resolved.numel() else [], copy=True).tolist()
        return (
            "tensor",
            str(value.dtype).split(".")[-1],
            tuple(value.shape),
            value.stride(),
            value.storage_offset(),
            value.is_conj(),
            value.is_neg(),
            value.requires_grad,
            None if value.grad_fn is None else type(value.grad_fn).__name__,
            data,
        )
    if hasattr(value, "__name__") and not isinstance(value, str):
        return value.__name__
    return value


def same(program):
    """program(lib) under both libraries: the same outcome, observed alike."""
    e_kind, e_value, e_warn = _outcome(lambda: _plain(program(ember)))
    t_kind, t_value, t_warn = _outcome(lambda: _plain(program(torch)))
    assert (e_kind, e_value) == (t_kind, t_value)
    assert e_warn == t_warn


def _complex(lib, shape, dtype="complex64", seed=0):
    rng = np.random.default_rng(seed)
    values = rng.integers(-8, 8, size=shape) + 1j * rng.integers(-8, 8, size=shape)
    return lib.tensor(values.astype(np.complex128)).to(getattr(lib, dtype))


def _shares(lib, a, b) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# -- geometry -------------------------------------------------------------------------------

GEOMETRIES = {
    "contiguous": lambda z: z,
    "transposed": lambda z: z.t(),
    "sliced": lambda z: z[1:, ::2],
    "row": lambda z: z[2],
    "element": lambda z: z[1, 2],
    "expanded": lambda z: z[:1].expand(3, 4),
    "empty": lambda z: z[:0],
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("geometry", list(GEOMETRIES))
@pytest.mark.parametrize("op", ["view_as_real", "real", "imag"])
def test_views_of_complex_tensors(op, geometry, dtype):
    def program(lib):
        z = GEOMETRIES[geometry](_complex(lib, (3, 4), dtype))
        view = getattr(lib, op)(z)
        return view, view._base is z._base or view._base is z, _shares(lib, view, z)

    same(program)


@pytest.mark.parametrize("geometry", list(GEOMETRIES))
def test_view_as_complex_round_trip(geometry):
    def program(lib):
        z = GEOMETRIES[geometry](_complex(lib, (3, 4)))
        back = lib.view_as_complex(lib.view_as_real(z))
        return back, _shares(lib, back, z)

    same(program)


def test_real_of_a_real_tensor_is_the_tensor_itself():
    def program(lib):
        x = lib.arange(6.0).reshape(2, 3)
        return lib.real(x) is x, x.real is x, lib.real(x)

    same(program)


VIEW_AS_COMPLEX_CASES = [
    ((1, 2), (3, 1), 0),
    ((3, 2), (3, 1), 0),
    ((3, 2), (4, 2), 0),
    ((1, 2), (4, 1), 1),
    ((3, 1, 2), (4, 3, 1), 0),
    ((3, 1, 2), (4, 5, 1), 0),
    ((1, 3, 2), (5, 4, 1), 0),
    ((0, 2), (3, 1), 0),
    ((0, 2), (4, 1), 0),
    ((3, 0, 2), (3, 5, 1), 0),
    ((2,), (5,), 0),
    ((2,), (1,), 0),
    ((2,), (1,), 4),
    ((4, 2), (2, 1), 6),
    ((3,), (1,), 0),
    ((), (), 0),
]


@pytest.mark.parametrize("sizes, strides, offset", VIEW_AS_COMPLEX_CASES)
def test_view_as_complex_geometries_and_errors(sizes, strides, offset):
    def program(lib):
        base = lib.arange(80.0)
        return lib.view_as_complex(base.as_strided(sizes, strides, offset))

    same(program)


@pytest.mark.parametrize("dtype", ["int64", "bfloat16", "bool", "complex64", "float16"])
def test_view_as_complex_dtypes(dtype):
    def program(lib):
        view = lib.view_as_complex(lib.zeros(3, 2, dtype=getattr(lib, dtype)))
        return str(view.dtype).split(".")[-1], view.shape, view.stride()

    same(program)


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 3), min_size=0, max_size=3),
    data=st.data(),
)
def test_hypothesis_strided_geometries(sizes, data):
    strides = [data.draw(st.integers(0, 7)) for _ in sizes]
    offset = data.draw(st.integers(0, 5))

    def program(lib):
        base = _complex(lib, (200,), "complex128")
        z = base.as_strided(sizes, strides, offset)
        parts = lib.view_as_real(z)
        return parts, lib.real(z), lib.imag(z), lib.view_as_complex(parts)

    same(program)

    def back(lib):
        base = lib.arange(400.0, dtype=lib.float64)
        return lib.view_as_complex(base.as_strided((*sizes, 2), (*strides, 1), offset))

    same(back)


# -- writes through the views ---------------------------------------------------------------


def test_writes_through_the_views_reach_the_base():
    def program(lib):
        z = lib.zeros(2, 3, dtype=lib.complex64)
        z.real[0, 1] = 5
        z.imag += 1
        lib.view_as_real(z)[1, 1, 0] = 7
        lib.imag(z)[1].mul_(3)
        r = lib.view_as_real(z)
        c = lib.view_as_complex(r)
        c[0, 0] = 2 - 4j
        return z, z._version, r._version, c._version

    same(program)


def test_in_place_ops_on_the_base_are_seen_by_the_views():
    def program(lib):
        z = _complex(lib, (3,))
        real, imag, parts = z.real, z.imag, lib.view_as_real(z)
        z.mul_(1j)
        return real, imag, parts, real._version

    same(program)


def test_setters():
    def program(lib):
        z = lib.zeros(3, dtype=lib.complex128)
        z.real = 2.5
        z.imag = lib.tensor([1.0, 2.0, 3.0])
        first = z.clone()
        z.imag = True
        z.real = lib.tensor([1, 2, 3])
        y = lib.zeros(2)
        y.real = 3
        return first, z, y

    same(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: setattr(lib.zeros(2), "imag", 3),
        lambda lib: setattr(lib.zeros(2, dtype=lib.complex64), "real", "a"),
        lambda lib: setattr(lib.zeros(2, dtype=lib.complex64), "imag", None),
        lambda lib: setattr(lib.zeros(2, dtype=lib.complex64), "real", [1, 2]),
        lambda lib: setattr(lib.zeros(2, dtype=lib.complex128), "imag", 1 + 2j),
        lambda lib: setattr(lib.zeros(2, dtype=lib.complex64, requires_grad=True), "real", 1.0),
        lambda lib: setattr(lib.zeros(2, dtype=lib.complex64), "real", lib.ones(3)),
    ],
)
def test_setter_errors(program):
    same(program)


# -- the math bits --------------------------------------------------------------------------


def test_parts_of_a_conjugated_tensor():
    def program(lib):
        z = _complex(lib, (2, 3))
        w = z.conj()
        return w.imag, w.real, lib.imag(w).is_neg(), w.imag._base is z, w.imag.resolve_neg()

    same(program)


def test_writes_through_the_parts_of_a_conjugated_tensor():
    def program(lib):
        z = _complex(lib, (2, 2))
        w = z.conj()
        w.imag[0, 0] = 3
        w.real[1, 1] = -6
        w.imag.add_(1)
        return z, w

    same(program)


def test_view_as_real_refuses_a_conjugated_tensor():
    same(lambda lib: lib.view_as_real(_complex(lib, (2,)).conj()))
    same(lambda lib: lib.view_as_real(_complex(lib, (2,)).conj().resolve_conj()))


def test_negative_bit_survives_the_views():
    def program(lib):
        z = _complex(lib, (2, 3))._neg_view()
        parts = lib.view_as_real(z)
        back = lib.view_as_complex(parts)
        return (
            parts,
            back,
            z.real,
            z.imag,
            lib.view_as_complex(z.conj().imag.unsqueeze(-1).expand(2, 3, 2).contiguous()),
        )

    same(program)


def test_imag_of_negative_imag_of_conj_round_trips():
    def program(lib):
        z = _complex(lib, (3,))
        part = z.conj().imag
        stacked = lib.stack([z.real, part], -1)
        return lib.view_as_complex(stacked), lib.complex(z.real, part)

    same(program)


# -- autograd -------------------------------------------------------------------------------


def _chain(t) -> list:
    names, node = [], t.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        node = node.next_functions[0][0] if node.next_functions else None
    return names


@pytest.mark.parametrize(
    "build",
    [
        lambda lib, z, x: lib.real(z),
        lambda lib, z, x: lib.imag(z),
        lambda lib, z, x: z.conj().imag,
        lambda lib, z, x: z.conj().real,
        lambda lib, z, x: lib.view_as_real(z),
        lambda lib, z, x: lib.view_as_complex(lib.view_as_real(z) * 2),
        lambda lib, z, x: lib.view_as_complex(x),
        lambda lib, z, x: lib.view_as_real(lib.view_as_complex(x).conj().resolve_conj()),
        lambda lib, z, x: lib.complex(x[..., 0], x[..., 1]),
        lambda lib, z, x: lib.polar(x[..., 0].abs() + 0.5, x[..., 1]),
        lambda lib, z, x: lib.complex(x[0, :, 0], x[..., 1]),
    ],
)
def test_grad_fns_and_gradients(build):
    results = {}
    for lib in (torch, ember):
        rng = np.random.default_rng(3)
        z = lib.tensor(rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)))
        z.requires_grad_()
        x = lib.tensor(rng.standard_normal((2, 3, 2)), requires_grad=True)
        out = build(lib, z, x)
        cotangent = lib.tensor(rng.standard_normal(tuple(out.shape)))
        if out.is_complex():
            cotangent = lib.complex(cotangent, lib.tensor(rng.standard_normal(tuple(out.shape))))
        grads = lib.autograd.grad([out], [z, x], [cotangent], allow_unused=True)
        results[lib] = (
            _chain(out),
            _plain(out),
            [None if g is None else g.detach().resolve_conj().numpy() for g in grads],
        )
    (t_chain, t_out, t_grads), (e_chain, e_out, e_grads) = results[torch], results[ember]
    assert e_chain == t_chain
    assert e_out[:9] == t_out[:9]
    np.testing.assert_allclose(e_out[9], t_out[9], rtol=1e-12, atol=1e-12)
    for e, t in zip(e_grads, t_grads):
        assert (e is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(e, t, rtol=1e-12, atol=1e-12)


def test_out_overloads_refuse_inputs_that_require_grad():
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        return lib.complex(x, x, out=lib.empty(2, dtype=lib.complex64))

    same(program)
    same(
        lambda lib: lib.polar(
            lib.ones(2, requires_grad=True), lib.ones(2), out=lib.empty(2, dtype=lib.complex64)
        )
    )


# -- complex and polar ----------------------------------------------------------------------


@pytest.mark.parametrize("op", ["complex", "polar"])
@pytest.mark.parametrize(
    "make",
    [
        lambda lib: (lib.ones(2, 3).t() * 2, lib.ones(3, 1) * 0.5),
        lambda lib: (lib.arange(6.0).reshape(2, 3), lib.arange(3.0)),
        lambda lib: (lib.tensor(1.5), lib.tensor(-2.0)),
        lambda lib: (lib.arange(6.0, dtype=lib.float64), lib.ones(6, dtype=lib.float64)),
        lambda lib: (lib.ones(0, 2), lib.ones(2)),
    ],
)
def test_constructors_values_and_layouts(op, make):
    same(lambda lib: getattr(lib, op)(*make(lib)))


@pytest.mark.parametrize("op", ["complex", "polar"])
@pytest.mark.parametrize(
    "make",
    [
        lambda lib: (lib.ones(2, dtype=lib.int32), lib.ones(2)),
        lambda lib: (lib.ones(2), lib.ones(2, dtype=lib.int32)),
        lambda lib: (lib.ones(2), lib.ones(2, dtype=lib.float64)),
        lambda lib: (lib.ones(2, dtype=lib.complex64), lib.ones(2, dtype=lib.complex64)),
        lambda lib: (lib.ones(2, dtype=lib.bfloat16), lib.ones(2, dtype=lib.bfloat16)),
        lambda lib: (lib.ones(2), lib.ones(3)),
        lambda lib: (lib.ones(2), lib.ones(3, dtype=lib.float64)),
        lambda lib: (lib.ones(2, dtype=lib.float16), lib.ones(3, dtype=lib.float16)),
        lambda lib: (lib.ones(2, dtype=lib.float16), lib.ones(2)),
    ],
)
def test_constructors_errors(op, make):
    def program(lib):
        result = getattr(lib, op)(*make(lib))
        return str(result.dtype).split(".")[-1], result.shape

    same(program)


@pytest.mark.parametrize("op", ["complex", "polar"])
@pytest.mark.parametrize(
    "out",
    [
        lambda lib: lib.empty(2, 3, dtype=lib.complex64),
        lambda lib: lib.empty(5, dtype=lib.complex64),
        lambda lib: lib.empty(0, dtype=lib.complex64),
        lambda lib: lib.empty(3, 2, dtype=lib.complex64).t(),
        lambda lib: lib.empty(2, 3, dtype=lib.complex128),
        lambda lib: lib.empty(2, 3),
    ],
)
def test_constructors_out(op, out):
    def program(lib):
        target = out(lib)
        result = getattr(lib, op)(lib.ones(2, 3), lib.arange(3.0), out=target)
        return result is target, result

    same(program)


def test_complex32_results():
    """PyTorch makes a ComplexHalf tensor (polar's kernel refuses Half); ember cannot hold
    one and says so rather than computing something else."""
    half = (ember.ones(2, dtype=ember.float16), ember.ones(2, dtype=ember.float16))
    with pytest.raises(NotImplementedError, match="ember cannot hold complex32"):
        ember.complex(*half)
    assert torch.complex(torch.ones(2).half(), torch.ones(2).half()).dtype == torch.complex32
    same(lambda lib: lib.polar(lib.ones(2, dtype=lib.float16), lib.ones(2, dtype=lib.float16)))


def test_out_overlapping_an_input():
    def program(lib):
        z = lib.zeros(2, dtype=lib.complex64)
        parts = lib.view_as_real(z)
        lib.complex(parts[:, 0] + 1, lib.ones(2), out=z)
        lib.complex(lib.view_as_real(z)[:, 1], lib.ones(2) * 3, out=z)
        return z

    same(program)


# -- what a dispatch mode sees --------------------------------------------------------------


@pytest.mark.parametrize(
    "program",
    [
        lambda lib, z: z.real,
        lambda lib, z: z.imag,
        lambda lib, z: z.conj().imag,
        lambda lib, z: z.conj().real,
        lambda lib, z: lib.view_as_real(z),
        lambda lib, z: lib.view_as_complex(lib.view_as_real(z)),
        lambda lib, z: lib.real(lib.ones(2)),
        lambda lib, z: lib.complex(lib.ones(2), lib.ones(2)),
        lambda lib, z: lib.polar(lib.ones(2), lib.ones(2)),
        lambda lib, z: setattr(z, "real", 2.0),
        lambda lib, z: setattr(z, "imag", lib.ones(3)),
        lambda lib, z: lib.view_as_real(z._neg_view()),
        lambda lib, z: z.conj().resolve_conj(),
        lambda lib, z: z._neg_view().resolve_neg(),
    ],
)
def test_mode_sees_the_calls(program):
    def run(lib):
        z = _complex(lib, (3,))
        return program(lib, z)

    assert ops_seen(run, ember) == ops_seen(run, torch)


# -- in-place changes through the views, under autograd (view functions) -------------------


def _names(t) -> list:
    names, node = [], t.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def _grad_of(lib, make, mutate, loss):
    rng = np.random.default_rng(5)
    leaf = lib.tensor(rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)))
    leaf.requires_grad_()
    tensor = make(lib, leaf)
    views = mutate(lib, tensor)
    chains = [_names(v) for v in (tensor, *views)]
    loss(lib, tensor, views).backward()
    return chains, leaf.grad.detach().numpy()


@pytest.mark.parametrize(
    "make, mutate, loss",
    [
        # a write through real / imag / view_as_real of a non-leaf: CopySlices on the base
        (
            lambda lib, a: a * 1,
            lambda lib, z: (z.real.mul_(2), lib.view_as_real(z)[0, 1].fill_(5)),
            lambda lib, z, v: z.abs().sum(),
        ),
        # the views' grad_fns after their base changed: replayed from the base
        (
            lambda lib, a: a * 1,
            lambda lib, z: (z.real, z.imag, lib.view_as_real(z), z.conj(), z.mul_(2)),
            lambda lib, z, v: v[0].sum() + v[1].sum() * 2 + v[2].sum() + v[3].abs().sum(),
        ),
        # writes through conjugated views and the parts of one
        (
            lambda lib, a: a.clone(),
            lambda lib, z: (z.conj().mul_(1j), z.conj().imag.add_(1), z.real[0].mul_(3)),
            lambda lib, z, v: (z * lib.tensor([1, 2j, 3])).real.sum(),
        ),
        # view_as_complex of a real view, written through
        (
            lambda lib, a: lib.view_as_real(a).clone(),
            lambda lib, x: (lib.view_as_complex(x).mul_(1j), lib.view_as_complex(x).real),
            lambda lib, x, v: (x * x).sum() + v[1].sum(),
        ),
    ],
)
def test_in_place_through_views_under_autograd(make, mutate, loss):
    e_chains, e_grad = _grad_of(ember, make, mutate, loss)
    t_chains, t_grad = _grad_of(torch, make, mutate, loss)
    assert e_chains == t_chains
    np.testing.assert_allclose(e_grad, t_grad, rtol=1e-12, atol=1e-12)


def test_torch_function_sees_the_getters_not_the_setters():
    def program(lib):
        seen = []

        class Sub(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(getattr(func, "__name__", str(func)))
                return super().__torch_function__(func, types, args, kwargs or {})

        z = lib.zeros(2, dtype=lib.complex64).as_subclass(Sub)
        parts = (type(z.real).__name__, type(z.imag).__name__)
        z.real = 1.0
        z.imag = lib.ones(2)
        lib.view_as_real(z)
        return seen, parts

    assert program(ember) == program(torch)
