"""torch.autograd.forward_ad against torch: levels, make_dual / unpack_dual, their errors
(type and message), the repr of a dual tensor, tangents through views and in-place
operators, backward through dual tensors, and the errors of operators without a
forward formula."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import torch

import ember


def _fw(lib):
    return lib.autograd.forward_ad


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001 (compared, type and message)
        return type(error).__name__, str(error)
    return None


def _both(fn):
    """fn(lib) -> what it shows; the same for ember and torch."""
    got, want = fn(ember), fn(torch)
    assert repr(got).replace("ember.", "torch.") == repr(want)
    return got


def test_level_numbers_and_nesting_error():
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level() as level:
            nested = _error(lambda: fw.enter_dual_level())
        return level, nested

    assert _both(run) == (
        0,
        ("RuntimeError", "Nested forward mode AD is not supported at the moment"),
    )


def test_enter_and_exit_by_hand():
    def run(lib):
        fw = _fw(lib)
        first = fw.enter_dual_level()
        wrong = _error(lambda: fw.exit_dual_level(level=3))
        fw.exit_dual_level()
        none_left = _error(lambda: fw.exit_dual_level())
        again = fw.enter_dual_level()
        fw.exit_dual_level(level=again)
        return first, wrong, none_left, again

    _both(run)


def test_make_dual_errors():
    def run(lib):
        fw = _fw(lib)
        outside = _error(lambda: fw.make_dual(lib.ones(3), lib.ones(3)))
        with fw.dual_level():
            found = [outside]
            found.append(_error(lambda: fw.make_dual(lib.ones(3), lib.ones(2))))
            found.append(_error(lambda: fw.make_dual(lib.ones(3), lib.ones(2, 2))))
            found.append(_error(lambda: fw.make_dual(lib.ones(3, dtype=lib.int64), lib.ones(3))))
            found.append(_error(lambda: fw.make_dual(lib.ones(3), lib.ones(3, dtype=lib.int32))))
            found.append(_error(lambda: fw.make_dual(lib.ones(3), lib.ones(3), level=1)))
            dual = fw.make_dual(lib.ones(3), lib.ones(3))
            found.append(_error(lambda: fw.make_dual(dual, lib.ones(3))))
            found.append(_error(lambda: fw.make_dual(lib.ones(3), dual)))
            found.append(_error(lambda: fw.unpack_dual(dual, level=1)))
        return found

    found = _both(run)
    assert found[1][1].endswith(
        "Tensor is of size [3] while the given forward gradient is of size [2]."
    )


def test_unpack_dual_outside_a_level_and_of_a_plain_tensor():
    def run(lib):
        fw = _fw(lib)
        x = lib.ones(2)
        outside = fw.unpack_dual(x)
        with fw.dual_level():
            inside = fw.unpack_dual(x)
        return (
            type(outside).__name__,
            outside.primal is x,
            outside.tangent,
            inside.tangent,
            inside.primal._is_view(),
            inside._fields,
        )

    _both(run)


def test_unpack_dual_gives_the_tangent_itself_and_a_primal_view():
    def run(lib):
        fw = _fw(lib)
        x = lib.randn(3, requires_grad=True)
        v = lib.randn(3)
        with fw.dual_level():
            dual = fw.make_dual(x, v)
            primal, tangent = fw.unpack_dual(dual)
            shown = (
                tangent is v,
                primal._base is x,
                dual._base is x,
                dual._is_view(),
                dual.grad_fn.name(),
                primal.grad_fn.name(),
                type(primal.grad_fn).__name__,
                fw.unpack_dual(primal).tangent,
                fw.unpack_dual(x).tangent,
            )
        return shown + (fw.unpack_dual(dual).tangent,)

    _both(run)


def test_a_tangent_with_another_layout_is_copied_into_the_primals():
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            a = fw.make_dual(lib.ones(2, 3), lib.ones(3, 2).t())
            b = fw.make_dual(lib.ones(2, 3).t(), lib.ones(3, 2))
            return (
                fw.unpack_dual(a).tangent.stride(),
                fw.unpack_dual(b).tangent.stride(),
                fw.unpack_dual(b).tangent.is_contiguous(),
            )

    _both(run)


def test_tangents_are_gone_after_the_level():
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            y = fw.make_dual(lib.ones(3), lib.ones(3)).exp()
            inside = fw.unpack_dual(y).tangent is not None
        return inside, fw.unpack_dual(y).tangent, repr(y)

    _both(run)


def test_repr_shows_the_tangent():
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
            dual = fw.make_dual(x, lib.tensor([0.5, 0.25, 0.125]))
            return repr(dual), repr(dual.sin()), repr(dual * 2), str(dual.double().sum())

    _both(run)


def test_dual_level_as_a_decorator():
    def run(lib):
        fw = _fw(lib)

        @fw.dual_level()
        def f():
            return fw.unpack_dual(fw.make_dual(lib.ones(2), lib.ones(2)) * 3).tangent.tolist()

        return f(), _error(lambda: fw.make_dual(lib.ones(2), lib.ones(2)))

    _both(run)


def test_integer_outputs_get_no_tangent():
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            dual = fw.make_dual(lib.tensor([1.5, -2.0]), lib.ones(2))
            return (
                fw.unpack_dual(dual.long()).tangent,
                fw.unpack_dual(dual > 0).tangent,
                fw.unpack_dual(dual.argmax()).tangent,
                fw.unpack_dual(dual.detach()).tangent,
            )

    _both(run)


def test_view_tangent_is_the_view_of_the_tangent():
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            tangent = lib.arange(6.0)
            dual = fw.make_dual(lib.ones(6), tangent)
            view = dual[2:].view(2, 2)
            t = fw.unpack_dual(view).tangent
            return (
                t.tolist(),
                t.storage_offset(),
                t.untyped_storage().data_ptr() == (tangent.untyped_storage().data_ptr()),
            )

    _both(run)


def test_in_place_updates_the_tangent_and_its_views():
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            dual = fw.make_dual(lib.ones(3), lib.ones(3))
            tangent = fw.unpack_dual(dual).tangent
            view = dual[1:]
            view.mul_(3)
            after_view = (fw.unpack_dual(dual).tangent.tolist(), tangent.tolist())
            dual.exp_()
            values = np.round(fw.unpack_dual(dual).tangent.numpy(), 5).tolist()
            return after_view, values, fw.unpack_dual(dual).tangent is tangent

    _both(run)


def test_in_place_from_a_dual_into_a_plain_tensor_and_its_views():
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            plain = lib.zeros(2, 3)
            row = plain[0]
            other_row = plain[1]
            plain.add_(fw.make_dual(lib.ones(2, 3), lib.arange(6.0).view(2, 3)))
            found = [
                fw.unpack_dual(row).tangent.tolist(),
                fw.unpack_dual(other_row).tangent.tolist(),
            ]
            base = lib.ones(3)
            part = base[1:]
            part.copy_(fw.make_dual(lib.ones(2), lib.full((2,), 5.0)))
            found.append(fw.unpack_dual(base).tangent.tolist())
            wide = lib.zeros(3, dtype=lib.float64)
            wide.copy_(fw.make_dual(lib.ones(3), lib.ones(3)))
            found.append(str(fw.unpack_dual(wide).tangent.dtype).rsplit(".")[-1])
            ints = lib.zeros(3, dtype=lib.int64)
            ints.copy_(fw.make_dual(lib.ones(3), lib.ones(3)))
            found.append(fw.unpack_dual(ints).tangent)
            return found

    _both(run)


def test_backward_through_dual_tensors():
    """A dual tensor that requires grad records the graph; its tangent too."""

    def run(lib):
        fw = _fw(lib)
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        v = lib.tensor([1.0, -1.0, 0.5], requires_grad=True)
        with fw.dual_level():
            out = fw.make_dual(x, v).sin() * 2
            primal, tangent = fw.unpack_dual(out)
            names = (out.grad_fn.name(), tangent.grad_fn.name())
            (primal.sum() + tangent.sum()).backward()
        return names, np.round(x.grad.numpy(), 5).tolist(), np.round(v.grad.numpy(), 5).tolist()

    _both(run)


def test_operator_without_a_forward_formula():
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            dual = fw.make_dual(lib.tensor([1.0, 2.0]), lib.ones(2))
            return [
                _error(lambda: lib.igamma(dual, dual)),
                _error(lambda: lib.special.zeta(dual, dual)),
                _error(lambda: lib.bincount(lib.tensor([0, 1]), dual)),
                _error(lambda: lib.igamma(lib.ones(2), lib.ones(2)).tolist()),
            ]

    found = _both(run)
    assert found[0][0] == "NotImplementedError"


def test_no_tangent_no_change():
    """Plain tensors under a level compute and record as without one."""

    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            x = lib.ones(2, requires_grad=True)
            y = (x * 3).exp().sum()
            return y.grad_fn.name(), fw.unpack_dual(y).tangent, round(y.item(), 4)

    _both(run)


@pytest.mark.parametrize("fw_enabled", [True, False])
def test_forward_grad_mode_off_hides_tangents(fw_enabled):
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            dual = fw.make_dual(lib.ones(2), lib.ones(2))
            with fw._set_fwd_grad_enabled(fw_enabled):
                out = dual * 2
                shown = fw._is_fwd_grad_enabled()
            return shown, fw.unpack_dual(out).tangent is None

    _both(run)


def test_out_variants_refuse_tangents():
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            dual = fw.make_dual(lib.tensor([1.0, -2.0, 0.0]), lib.ones(3))
            return [
                _error(lambda: lib.sin(dual, out=lib.empty(3))),
                _error(lambda: lib.add(dual, dual, out=lib.empty(3))),
                _error(lambda: lib.sum(dual, 0, out=lib.empty(()))),
                _error(lambda: lib.add(lib.ones(3), lib.ones(3), out=dual)),
                _error(lambda: lib.mm(dual.view(1, 3), dual.view(3, 1), out=lib.empty(1, 1))),
                lib.add(lib.ones(3), lib.ones(3), out=lib.empty(3)).tolist(),
            ]

    assert _both(run)[0][0] == "NotImplementedError"


def test_sgn_of_a_real_dual_has_a_plain_zero_tangent():
    def run(lib):
        fw = _fw(lib)
        with fw.dual_level():
            dual = fw.make_dual(lib.tensor([1.0, -2.0, 0.0]), lib.ones(3))
            tangent = fw.unpack_dual(lib.sgn(dual)).tangent
            return tangent._is_zerotensor(), tangent.tolist()

    _both(run)
