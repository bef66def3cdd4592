"""torch.linalg.lstsq against PyTorch 2.13: the return type and its fields, every driver's
shapes, strides and dtypes (solution as LAPACK's batched column-major buffer), the
broadcasting and vector rules, out=, the errors, and the values (to LAPACK rounding:
SciPy's LAPACK build is not the one in the torch wheel)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_support import same_outcome
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode

DRIVERS = [None, "gels", "gelsy", "gelsd", "gelss"]


def _pair(lib, sa, sb, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    return lib.tensor(a, dtype=getattr(lib, dtype)), lib.tensor(b, dtype=getattr(lib, dtype))


def _compare(e, t, rtol):
    assert type(e).__name__ == type(t).__name__ == "linalg_lstsq"
    for name in ("solution", "residuals", "rank", "singular_values"):
        x, y = getattr(e, name), getattr(t, name)
        assert tuple(x.shape) == tuple(y.shape), name
        assert tuple(x.stride()) == tuple(y.stride()), name
        assert x.dtype.name == str(y.dtype).removeprefix("torch."), name
        if name == "rank":
            assert x.tolist() == y.tolist()
        else:
            np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=rtol, atol=rtol)


SHAPES = [((4, 3), (4, 2)), ((2, 5, 3), (2, 5, 2)), ((3, 5), (3, 2)), ((4, 3), (4,)),
          ((2, 4, 3), (2, 4)), ((3, 4, 3), (1, 4, 2)), ((0, 3), (0, 2)), ((4, 0), (4, 2)),
          ((4, 3), (4, 0)), ((5, 3), (5,))]  # fmt: skip


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize(("sa", "sb"), SHAPES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_drivers_shapes_and_values(driver, sa, sb, dtype):
    if driver in ("gelsd", "gelss") and sb[-1] == 0 and len(sb) == len(sa):
        return  # nrhs 0: torch's MKL gelsd fails an internal assert and gelss crashes
    rtol = 1e-4 if dtype == "float32" else 1e-9
    e = ember.linalg.lstsq(*_pair(ember, sa, sb, dtype), driver=driver)
    t = torch.linalg.lstsq(*_pair(torch, sa, sb, dtype), driver=driver)
    _compare(e, t, rtol)


@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 6), n=st.integers(1, 6), k=st.integers(1, 3), seed=st.integers(0, 99),
       driver=st.sampled_from(DRIVERS))  # fmt: skip
def test_random_systems(m, n, k, seed, driver):
    if driver == "gels" and m < n:
        return  # gels assumes full rank; an underdetermined random system is handled alike
    e = ember.linalg.lstsq(*_pair(ember, (m, n), (m, k), seed=seed), driver=driver)
    t = torch.linalg.lstsq(*_pair(torch, (m, n), (m, k), seed=seed), driver=driver)
    _compare(e, t, 1e-8)


def test_rank_deficient_and_rcond():
    def run(lib, **kw):
        a = lib.ones(4, 3, dtype=lib.float64)
        a[:, 2] = a[:, 1]
        return lib.linalg.lstsq(a, lib.arange(8.0, dtype=lib.float64).reshape(4, 2), **kw)

    for kw in ({}, {"driver": "gelsd"}, {"rcond": 0.5}, {"driver": "gelss", "rcond": 1e-3}):
        e, t = run(ember, **kw), run(torch, **kw)
        assert e.rank.tolist() == t.rank.tolist()
        np.testing.assert_allclose(e.solution.numpy(), t.solution.numpy(), atol=1e-9)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(4, 2), driver="foo"),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(5, 2)),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(5)),
        lambda lib: lib.linalg.lstsq(lib.ones(2, 4, 3), lib.ones(4, 2)),
        lambda lib: lib.linalg.lstsq(lib.ones(2, 1, 4, 3), lib.ones(3, 4, 2)),
        lambda lib: lib.linalg.lstsq(lib.ones(3, 4, 3), lib.ones(3, 5)),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(2, 4, 2)),
        lambda lib: lib.linalg.lstsq(lib.ones(4), lib.ones(4, 2)),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3).double(), lib.ones(4, 2)),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3).int(), lib.ones(4, 2).int()),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3).int(), lib.ones(5, 2).int()),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3).int(), lib.ones(4, 2).int(), driver="x"),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3).half(), lib.ones(4, 2).half()),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(4, 2), out=_outs(lib, "solution")),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(4, 2), out=_outs(lib, "residuals")),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(4, 2), out=_outs(lib, "sv")),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(4, 2), out=_outs(lib, "rank")),
        lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(4, 2), out=_outs(lib, None))[0],
    ],
)
def test_errors_and_out(call):
    same_outcome(call, values=False)  # values: test_drivers_shapes_and_values (LAPACK rounding)


def _outs(lib, wrong):
    dtypes = {"solution": lib.float32, "residuals": lib.float32, "rank": lib.int64,
              "sv": lib.float32}  # fmt: skip
    if wrong == "rank":
        dtypes[wrong] = lib.float32  # a float rank is castable from int64
    elif wrong is not None:
        dtypes[wrong] = lib.int32
    return tuple(lib.empty(0, dtype=d) for d in dtypes.values())


def test_out_tensors_are_resized_as_torch_resizes_them():
    def run(lib):
        a, b = _pair(lib, (4, 3), (4, 2), "float32")
        outs = (lib.empty(7), lib.empty(9), lib.empty(0, dtype=lib.long), lib.empty(0))
        result = lib.linalg.lstsq(a, b, out=outs, driver="gelsd")
        assert all(x is y for x, y in zip(result, outs))
        assert type(result).__name__ == "linalg_lstsq_out"
        return [(tuple(x.shape), x.stride()) for x in result]

    assert run(ember) == run(torch)


def test_what_a_mode_sees():
    def run(lib, mode_base):
        seen = []

        class Log(mode_base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append((str(func), sorted(kwargs or {})))
                return func(*args, **(kwargs or {}))

        a, b = lib.ones(4, 3), lib.ones(4, 2)
        with Log():
            lib.linalg.lstsq(a, b)
            lib.linalg.lstsq(a, b, driver="gelsd", rcond=None)
        return seen

    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    assert run(ember, TorchDispatchMode) == run(torch, TorchMode)


@pytest.mark.parametrize(
    ("m", "n", "k", "driver", "vector"),
    [(5, 3, 2, "gelsd", False), (3, 5, 2, None, False), (4, 4, 1, None, False),
     (5, 3, 2, "gels", False), (5, 3, 1, None, True), (6, 2, 3, "gelss", False),
     (5, 3, 2, "gelsd", True)],
)  # fmt: skip
def test_gradients_equal_torchs(m, n, k, driver, vector):
    """LinalgLstsqBackward0: pinv_backward for A, pinv(A)^H gX for B, plus the residuals'
    terms when they are computed."""

    def run(lib):
        rng = np.random.default_rng(3)
        a = lib.tensor(rng.standard_normal((2, m, n))).requires_grad_()
        b = lib.tensor(rng.standard_normal((2, m) if vector else (2, m, k))).requires_grad_()
        result = lib.linalg.lstsq(a, b, driver=driver)
        weights = lib.arange(result.solution.numel(), dtype=lib.float64)
        loss = (result.solution * weights.reshape(result.solution.shape)).sum()
        if result.residuals.numel():
            loss = loss + (result.residuals * 0.3).sum()
        grads = lib.autograd.grad(loss, (a, b))
        flags = [t.requires_grad for t in result]
        return result.solution.grad_fn.name(), flags, [g.detach().numpy() for g in grads]

    (e_name, e_flags, e_grads), (t_name, t_flags, t_grads) = run(ember), run(torch)
    assert e_name == t_name == "LinalgLstsqBackward0"
    assert e_flags == t_flags
    for e, t in zip(e_grads, t_grads):
        np.testing.assert_allclose(e, t, rtol=1e-9, atol=1e-9)


def test_gradcheck():
    rng = np.random.default_rng(5)
    a = ember.tensor(rng.standard_normal((4, 3))).requires_grad_()
    b = ember.tensor(rng.standard_normal((4, 2))).requires_grad_()
    assert ember.autograd.gradcheck(lambda x, y: ember.linalg.lstsq(x, y).solution, (a, b))
