"""torch.signal.windows against PyTorch 2.13: every window, symmetric and periodic, in
float32 and float64, its parameters, and its errors (ValueError texts; ember names its
dtypes and layouts `ember.X` unless it answers `import torch`, so the texts are compared
with that prefix swapped)."""

import warnings

import numpy as np
import pytest
from oracle import torch

import ember

WINDOWS = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "hamming", "hann",
           "nuttall", "general_hamming"]  # fmt: skip


def _run(fn, lib):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib), None
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, error


def _compare(fn):
    e, e_error = _run(fn, ember)
    t, t_error = _run(fn, torch)
    if e_error is not None or t_error is not None:
        assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
        assert str(e_error).replace("ember.", "torch.") == str(t_error)
        return
    assert tuple(e.shape) == tuple(t.shape)
    assert e.dtype.name == str(t.dtype).removeprefix("torch.")
    assert e.requires_grad == t.requires_grad
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("M", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", [None, "float64"])
def test_windows(name, M, sym, dtype):
    def call(lib):
        kwargs = {"sym": sym}
        if dtype is not None:
            kwargs["dtype"] = getattr(lib, dtype)
        return getattr(lib.signal.windows, name)(M, **kwargs)

    _compare(call)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.signal.windows.exponential(6, center=1.5, tau=2.0, sym=False),
        lambda lib: lib.signal.windows.gaussian(7, std=0.5),
        lambda lib: lib.signal.windows.general_cosine(6, a=[0.5, 0.3, 0.2]),
        lambda lib: lib.signal.windows.general_hamming(6, alpha=0.6, requires_grad=True),
        lambda lib: lib.signal.windows.hann(4, dtype=lib.float32),
    ],
)
def test_parameters(call):
    _compare(call)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.signal.windows.hann(-1),
        lambda lib: lib.signal.windows.hann(4, dtype=lib.int64),
        lambda lib: lib.signal.windows.cosine(4, dtype=lib.float16),
        lambda lib: lib.signal.windows.bartlett(4, layout=lib.sparse_coo),
        lambda lib: lib.signal.windows.exponential(4, tau=0),
        lambda lib: lib.signal.windows.exponential(4, center=1.0),
        lambda lib: lib.signal.windows.gaussian(4, std=-1.0),
        lambda lib: lib.signal.windows.kaiser(4, beta=-1.0),
        lambda lib: lib.signal.windows.general_cosine(4, a=[]),
        lambda lib: lib.signal.windows.general_cosine(4, a=3),
    ],
)
def test_errors(call):
    _compare(call)
