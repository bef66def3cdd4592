"""The view_copy operators (expand_copy, view_copy, unbind_copy, ...) against torch: what the
OpInfo samples do not reach. Fresh contiguous results that share nothing with the input, the
out= overloads (resizing, dtype and device refusals, Tensor[] outs), autograd on out=, the
grad_fn names, and what a dispatch mode sees of a call.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from diff_support import grads_agree, ops_seen
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

LIBS = (torch, ember)


def _outcome(fn, lib):
    """The result (values, shape, strides, dtype of each tensor) or the error fn(lib) gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(lib)
        except Exception as exc:  # noqa: BLE001 (compared with torch's)
            # dtypes print as ember.float32 while ember is not answering `import torch`
            return ("error", type(exc).__name__, str(exc).replace("ember.", "torch."))
    texts = [str(w.message).replace("ember", "torch") for w in caught]
    return ("ok", _describe(result), texts)


def _describe(value):
    if isinstance(value, (list, tuple)):
        return [_describe(v) for v in value]
    if hasattr(value, "stride"):
        return (
            tuple(value.shape),
            value.stride(),
            str(value.dtype).split(".")[-1],
            value.detach().resolve_conj().numpy().tolist() if value.device.type == "cpu" else None,
            type(value.grad_fn).__name__ if value.grad_fn is not None else None,
        )
    return value


def agree(fn):
    want, got = _outcome(fn, torch), _outcome(fn, ember)
    assert got == want
    return want


# -- functional results -------------------------------------------------------------------

FUNCTIONAL = {
    "expand_copy": lambda lib, x: lib.expand_copy(x[:, :1], [3, 2, 3]),
    "permute_copy": lambda lib, x: lib.permute_copy(x, [1, 0]),
    "as_strided_copy": lambda lib, x: lib.as_strided_copy(x, [2, 2], [1, 3], 1),
    "alias_copy": lambda lib, x: lib.alias_copy(x),
    "narrow_copy": lambda lib, x: lib.narrow_copy(x, 1, 1, 2),
    "narrow_copy method": lambda lib, x: x.narrow_copy(-1, 1, 2),
    "view_copy": lambda lib, x: lib.view_copy(x, [3, 2]),
    "view_copy of a transpose": lambda lib, x: lib.view_copy(x.t(), [6]),
    "view_copy.dtype": lambda lib, x: lib.view_copy(x.detach(), lib.int32),
    "unfold_copy": lambda lib, x: lib.unfold_copy(x, 1, 2, 1),
    "squeeze_copy": lambda lib, x: lib.squeeze_copy(x[:1]),
    "squeeze_copy.dim": lambda lib, x: lib.squeeze_copy(x[:1], 0),
    "squeeze_copy.dims": lambda lib, x: lib.squeeze_copy(x[:1], [0, 1]),
    "unsqueeze_copy": lambda lib, x: lib.unsqueeze_copy(x, 1),
    "transpose_copy": lambda lib, x: lib.transpose_copy(x, 0, 1),
    "t_copy": lambda lib, x: lib.t_copy(x),
    "split_with_sizes_copy": lambda lib, x: lib.split_with_sizes_copy(x, [1, 2], 1),
    "unbind_copy": lambda lib, x: lib.unbind_copy(x, 1),
}


def _input(lib, requires_grad=True):
    x = lib.arange(6.0, dtype=lib.float32).reshape(2, 3)
    return x.requires_grad_() if requires_grad else x


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_result_is_a_fresh_contiguous_copy(name):
    agree(lambda lib: FUNCTIONAL[name](lib, _input(lib)))
    for lib in LIBS:
        x = _input(lib, requires_grad=False)
        results = FUNCTIONAL[name](lib, x)
        for r in results if isinstance(results, (list, tuple)) else [results]:
            assert r.is_contiguous()
            assert r.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
            assert r._base is None


@pytest.mark.parametrize("name", sorted(set(FUNCTIONAL) - {"view_copy.dtype"}))
def test_gradients_and_node_names(name):
    grads_agree(lambda lib, x: FUNCTIONAL[name](lib, x), [np.arange(6.0).reshape(2, 3) / 7 - 0.3])


def test_narrow_copy_backward_of_a_negative_start():
    # NarrowCopyBackward0 slices [start, start + length) with start as given: torch's
    # backward of a negative start fails, or gives another gradient than narrow's
    def run(lib, start):
        x = lib.ones(2, 3, requires_grad=True)
        x.narrow_copy(-1, start, 2).sum().backward()
        return x.grad

    agree(lambda lib: run(lib, -2))
    agree(lambda lib: run(lib, -3))


def test_node_names_are_the_views_with_copy():
    def names(lib):
        x = _input(lib)
        return [
            lib.expand_copy(x[:1], [4, 3]).grad_fn.name(),
            lib.unbind_copy(x)[0].grad_fn.name(),
            lib.squeeze_copy(x, 0).grad_fn.name(),
            lib.squeeze_copy(x, [0]).grad_fn.name(),
            x.narrow_copy(0, 0, 1).grad_fn.name(),
        ]

    assert names(ember) == names(torch)
    assert names(ember)[0] == "ExpandBackward0_copy"


@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=3),
    data=st.data(),
)
def test_view_copy_reshapes_any_layout(shape, data):
    ndim = len(shape)
    order = data.draw(st.permutations(range(ndim)))
    values = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)

    def run(lib):
        x = lib.tensor(values).permute(*order)
        return lib.view_copy(x, [-1])

    agree(run)


# -- dispatch -------------------------------------------------------------------------


def test_a_mode_sees_the_copy_operator_only():
    def program(lib):
        x = lib.ones(2, 3)
        lib.t_copy(x)
        lib.unbind_copy(x)
        x.narrow_copy(0, 0, 1)
        lib.view_copy(x.t(), [6])
        lib.expand_copy(x, [2, 2, 3], out=lib.empty(0))
        lib.split_with_sizes_copy(x, [1, 1], out=[lib.empty(0), lib.empty(0)])

    assert ops_seen(program, ember) == ops_seen(program, torch)
    assert "aten.view_copy.default" in ops_seen(program, ember)


# -- out= -------------------------------------------------------------------------------


def _z(lib):
    return lib.arange(6.0).reshape(2, 3)


OUT_CALLS = {
    "resized with a warning": lambda lib: lib.t_copy(_z(lib), out=lib.empty(5)),
    "resized silently": lambda lib: lib.expand_copy(_z(lib), [2, 2, 3], out=lib.empty(0)),
    "written in place": lambda lib: lib.permute_copy(_z(lib), [1, 0], out=lib.zeros(3, 2)),
    "non-contiguous out": lambda lib: lib.view_copy(_z(lib), [3, 2], out=lib.zeros(2, 3).t()),
    "wrong dtype": lambda lib: lib.expand_copy(
        _z(lib), [2, 2, 3], out=lib.empty(0, dtype=lib.int64)
    ),
    "dtype view, wrong dtype": lambda lib: lib.view_copy(_z(lib), lib.int32, out=lib.empty(0)),
    "dtype view": lambda lib: lib.view_copy(_z(lib), lib.int32, out=lib.empty(0, dtype=lib.int32)),
    "meta out": lambda lib: lib.t_copy(_z(lib), out=lib.empty(0, device="meta")),
    "meta input": lambda lib: lib.t_copy(lib.ones(2, 3, device="meta"), out=lib.empty(0)),
    "narrow_copy wrong dtype": lambda lib: lib.narrow_copy(
        _z(lib), 0, 0, 1, out=lib.empty(0, dtype=lib.int64)
    ),
    "narrow_copy out": lambda lib: lib.narrow_copy(_z(lib), 1, 1, 2, out=lib.empty(4)),
    "narrow_copy dim too big": lambda lib: lib.narrow_copy(_z(lib), 5, 0, 1),
    "narrow_copy negative length": lambda lib: lib.narrow_copy(_z(lib), 1, 0, -1),
    "narrow_copy start": lambda lib: lib.narrow_copy(_z(lib), 1, -4, 1),
    "narrow_copy 0-d": lambda lib: lib.narrow_copy(lib.tensor(1.0), 0, 0, 1),
    "split out": lambda lib: lib.split_with_sizes_copy(
        _z(lib), [1, 2], 1, out=[lib.empty(1), lib.empty(3)]
    ),
    "split out tuple": lambda lib: lib.split_with_sizes_copy(
        _z(lib), [1, 2], 1, out=(lib.empty(0), lib.empty(0))
    ),
    "split out too short": lambda lib: lib.split_with_sizes_copy(
        _z(lib), [1, 2], 1, out=[lib.empty(1)]
    ),
    "unbind out": lambda lib: lib.unbind_copy(_z(lib), 0, out=[lib.empty(0), lib.empty(0)]),
    "unbind out too short": lambda lib: lib.unbind_copy(_z(lib), 0, out=[lib.empty(0)]),
    "diagonal_copy out": lambda lib: lib.diagonal_copy(_z(lib), 1, out=lib.empty(3)),
    "diagonal_copy out dtype": lambda lib: lib.diagonal_copy(
        _z(lib), out=lib.empty(0, dtype=lib.int32)
    ),
    "narrow_copy meta out": lambda lib: lib.narrow_copy(
        _z(lib), 0, 0, 1, out=lib.empty(0, device="meta")
    ),
    "narrow_copy meta input": lambda lib: lib.narrow_copy(
        lib.ones(4, 3, device="meta"), 0, 0, 1, out=lib.empty(0)
    ),
    "narrow_copy on meta": lambda lib: (
        lib.narrow_copy(
            lib.ones(4, 3, device="meta"), 0, 1, 2, out=lib.empty(5, device="meta")
        ).shape
    ),
    "narrow_copy on meta, dtype": lambda lib: lib.narrow_copy(
        lib.ones(4, 3, device="meta"), 0, 1, 2, out=lib.empty(0, device="meta").double()
    ),
    "narrow_copy on meta, start": lambda lib: lib.narrow_copy(
        lib.ones(4, 3, device="meta"), 0, 7, 1, out=lib.empty(0, device="meta")
    ),
    "narrow_copy functional on meta, dim": lambda lib: lib.narrow_copy(
        lib.ones(4, 3, device="meta"), 5, 0, 1
    ),
    "unfold_copy, a step whose stride overflows": lambda lib: lib.unfold_copy(_z(lib), 0, 1, 2**62),
    "unbind out on meta": lambda lib: lib.unbind_copy(
        _z(lib), out=[lib.empty(0, device="meta"), lib.empty(0, device="meta")]
    ),
}


@pytest.mark.parametrize("name", sorted(OUT_CALLS))
def test_out_overloads(name):
    def run(lib):
        outs = []
        result = OUT_CALLS[name](lib)
        outs.append(result)
        return outs

    agree(run)


def test_out_tensors_hold_the_result():
    for lib in LIBS:
        pieces = [lib.empty(0), lib.empty(7)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert lib.split_with_sizes_copy(_z(lib), [1, 2], 1, out=pieces) is None
        assert [tuple(p.shape) for p in pieces] == [(2, 1), (2, 2)]
    ember_out = [ember.empty(0), ember.empty(0)]
    torch_out = [torch.empty(0), torch.empty(0)]
    ember.unbind_copy(_z(ember), 1, out=ember_out + [ember.empty(0)])
    torch.unbind_copy(_z(torch), 1, out=torch_out + [torch.empty(0)])
    assert [t.tolist() for t in ember_out] == [t.tolist() for t in torch_out]


def test_a_refused_list_out_writes_nothing():
    # torch writes the first out tensor before it checks the second's dtype; ember checks
    # every out tensor first, so a refused call leaves them all as they were
    first, second = ember.zeros(3), ember.empty(3, dtype=ember.int64)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got"):
        ember.unbind_copy(_z(ember), 0, out=[first, second])
    assert first.tolist() == [0.0, 0.0, 0.0]


def _leaf(lib):
    return lib.ones(2, 2, requires_grad=True)


AUTOGRAD_OUT = {
    "view_copy, input requires grad": lambda lib: lib.view_copy(_leaf(lib), [4], out=lib.empty(0)),
    "diagonal_copy, input requires grad": lambda lib: lib.diagonal_copy(
        _leaf(lib), out=lib.empty(0)
    ),
    "view_copy, out requires grad": lambda lib: lib.view_copy(
        lib.ones(2, 2), [4], out=lib.empty(0, requires_grad=True)
    ),
    "permute_copy's NotImplemented edges": lambda lib: [
        f[0].__class__.__name__
        for f in lib.permute_copy(_leaf(lib), [1, 0], out=lib.empty(0)).grad_fn.next_functions
    ],
    "narrow_copy, input requires grad": lambda lib: lib.narrow_copy(
        _leaf(lib), 0, 0, 1, out=lib.empty(0)
    ),
    "unbind_copy, out requires grad": lambda lib: lib.unbind_copy(
        lib.ones(2, 2), 0, out=[lib.empty(0), lib.empty(0, requires_grad=True)]
    ),
    "unbind_copy, input requires grad": lambda lib: lib.unbind_copy(
        _leaf(lib), 0, out=[lib.empty(0), lib.empty(0)]
    ),
    "split_with_sizes_copy, out requires grad": lambda lib: lib.split_with_sizes_copy(
        lib.ones(2, 2), [1, 1], out=[lib.empty(0, requires_grad=True), lib.empty(0)]
    ),
}


@pytest.mark.parametrize("name", sorted(AUTOGRAD_OUT))
def test_autograd_of_out_overloads(name):
    agree(AUTOGRAD_OUT[name])


def test_unbind_copy_out_requiring_grad_under_no_grad():
    def run(lib):
        with lib.no_grad():
            outs = [lib.empty(0, requires_grad=True), lib.empty(0)]
            lib.unbind_copy(lib.ones(2, 2), 0, out=outs)
        return outs

    agree(run)


def test_signature_of_list_out_in_errors():
    def run(lib):
        return lib.unbind_copy(_z(lib), 0, out=_z(lib))

    outcome = agree(run)
    assert outcome[0] == "error"
