"""addmv / addmv_ / mv and the test op aten::_foobar against PyTorch 2.13: values, dtypes,
strides, errors, gradients, and the arguments a __torch_dispatch__ mode receives
(a keyword-only argument left at its default is not passed on)."""

import pytest
from ops_support import same, same_outcome
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode


def _m(lib):
    return lib.arange(6.0).reshape(2, 3)


def _v(lib):
    return lib.tensor([1.0, 2.0, 3.0])


def _s(lib):
    return lib.tensor([10.0, 20.0])


CASES = [
    lambda lib: lib.addmv(_s(lib), _m(lib), _v(lib)),
    lambda lib: lib.addmv(_s(lib), _m(lib), _v(lib), beta=2, alpha=0.5),
    lambda lib: lib.addmv(lib.tensor(1.0), _m(lib), _v(lib)),
    lambda lib: lib.addmv(lib.tensor([1.0]), _m(lib), _v(lib)),
    lambda lib: lib.addmv(lib.tensor([1.0, 2, 3]), _m(lib), _v(lib)),
    lambda lib: lib.addmv(lib.tensor(1.0), _m(lib), lib.ones(4)),
    lambda lib: lib.addmv(_s(lib), _m(lib).t(), _v(lib)),
    lambda lib: lib.addmv(_s(lib), _m(lib), _m(lib)),
    lambda lib: lib.addmv(_s(lib).double(), _m(lib), _v(lib)),
    lambda lib: lib.addmv(_s(lib), _m(lib), _v(lib).double()),
    lambda lib: lib.addmv(_s(lib).double(), _m(lib), lib.ones(4)),
    lambda lib: lib.addmv(_s(lib).long(), _m(lib).long(), _v(lib).long(), beta=0.5, alpha=1.7),
    lambda lib: lib.addmv(_s(lib).bool(), _m(lib).bool(), _v(lib).bool()),
    lambda lib: lib.addmv(_s(lib), lib.ones(2, 0), lib.ones(0), beta=2),
    lambda lib: lib.addmv(_s(lib), lib.ones(2, 0), lib.ones(0), beta=0),
    lambda lib: lib.addmv(lib.tensor([float("nan"), 1.0]), _m(lib), _v(lib), beta=0),
    lambda lib: lib.addmv(_s(lib).half(), _m(lib).half(), _v(lib).half()),
    lambda lib: lib.addmv(_s(lib), _m(lib)[:, ::2], _v(lib)[::2]),
    lambda lib: lib.addmv(_s(lib).cfloat(), _m(lib).cfloat(), _v(lib).cfloat(), beta=1j, alpha=2),
    lambda lib: lib.addmv(_s(lib), _m(lib), _v(lib), beta=1j),
    lambda lib: lib.addmv(_s(lib).long(), _m(lib).long(), _v(lib).long(), beta=1.5e30),
    lambda lib: _s(lib).addmv_(_m(lib), _v(lib), beta=3),
    lambda lib: lib.addmv_(_s(lib), _m(lib), _v(lib)),
    lambda lib: lib.tensor([1.0]).addmv_(_m(lib), _v(lib)),
    lambda lib: _s(lib).double().addmv_(_m(lib), _v(lib)),
    lambda lib: lib.ones(1).addmm_(lib.ones(2, 2), lib.ones(2, 2)),
    lambda lib: lib.addmv(_s(lib), _m(lib), _v(lib), out=lib.empty(2, dtype=lib.double)),
    lambda lib: lib.addmv(_s(lib), _m(lib), _v(lib), out=lib.empty(0)),
    lambda lib: lib.addmv(_s(lib), _m(lib), _v(lib), out=lib.empty(4)[::2]),
    lambda lib: lib.mv(_m(lib), _v(lib)),
    lambda lib: lib.mv(_m(lib), _v(lib).double()),
    lambda lib: _m(lib).mv(lib.ones(4)),
    lambda lib: lib.mv(_m(lib).long(), _v(lib).long()),
    lambda lib: lib.mv(_m(lib), _v(lib), out=lib.empty(0)),
    lambda lib: lib.mv(lib.ones(1, 3), _v(lib), out=lib.ones(1)),
    lambda lib: lib.matmul(_m(lib), _v(lib), out=lib.empty(2, dtype=lib.double)),
    lambda lib: lib.matmul(lib.ones(4, 2, 3), _v(lib), out=lib.empty(4, 2, dtype=lib.int32)),
    lambda lib: lib.addmv(_s(lib), _m(lib), _v(lib), out=lib.empty(2, device="meta")),
    lambda lib: lib.addmv(_s(lib).to("meta"), _m(lib).to("meta"), _v(lib).to("meta")),
    lambda lib: lib.mv(_m(lib).to("meta"), _v(lib).to("meta"), out=lib.empty(0, device="meta")),
    lambda lib: lib.mv(_m(lib), _v(lib), out=lib.empty(2, device="meta")),
    lambda lib: lib.addmv(2, _s(lib), 3, _m(lib), _v(lib)),  # the deprecated signatures
    lambda lib: lib.addmv(2, _s(lib), _m(lib), _v(lib)),
    lambda lib: lib.addmv(_s(lib), _m(lib)),
    lambda lib: lib.ops.aten._foobar(_s(lib)),
    lambda lib: lib.ops.aten._foobar(_s(lib), False, True, arg3=False),
    lambda lib: lib.ops.aten._foobar(_m(lib).long().t()),
]


@pytest.mark.parametrize("case", CASES)
def test_against_torch(case):
    same_outcome(case)


@pytest.mark.parametrize("fn", ["addmv", "mv", "matmul"])
def test_gradients_and_node_names(fn):
    def run(lib):
        s = _s(lib).requires_grad_()
        m = _m(lib).requires_grad_()
        v = _v(lib).requires_grad_()
        if fn == "addmv":
            result = lib.addmv(s, m, v, beta=2, alpha=3)
        else:
            result = getattr(lib, fn)(m, v)
        (result * lib.tensor([1.0, -2.0])).sum().backward()
        grads = [t.grad for t in (s, m, v) if t.grad is not None]
        return result.grad_fn.name(), grads

    (e_name, e_grads), (t_name, t_grads) = run(ember), run(torch)
    assert e_name == t_name
    assert len(e_grads) == len(t_grads)
    for e, t in zip(e_grads, t_grads):
        same(e, t)


def test_scalar_self_gradient_is_summed():
    def run(lib):
        s = lib.tensor(1.0, requires_grad=True)
        lib.addmv(s, _m(lib), _v(lib), beta=2).sum().backward()
        return s.grad

    same(run(ember), run(torch))


def _mode_log(lib, mode_base, calls):
    seen = []

    class Log(mode_base):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(
                (str(func), len(args), sorted((k, repr(v)) for k, v in (kwargs or {}).items()))
            )
            return func(*args, **(kwargs or {}))

    with Log():
        calls(lib)
    return seen


def test_defaulted_keyword_only_arguments_are_not_passed_to_a_mode():
    def calls(lib):
        x, y, z = lib.ones(1), lib.ones(1, 1), lib.ones(1)
        lib.addmv(x, y, z)
        lib.addmv(x, y, z, beta=1)
        lib.addmv(x, y, z, beta=2)
        lib.addmv(x, y, z, alpha=2)
        lib.addmv(x, y, z, beta=2, alpha=2)
        lib.ops.aten._foobar(x)
        lib.ops.aten._foobar(x, False)
        lib.ops.aten._foobar(x, arg3=False)
        lib.ops.aten._foobar(x, True, False, arg3=False)
        lib.mv(y, z)

    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    assert _mode_log(ember, TorchDispatchMode, calls) == _mode_log(torch, TorchMode, calls)


def test_foobar_has_no_meta_kernel_and_no_derivative():
    same_outcome(lambda lib: lib.ops.aten._foobar(lib.ones(2, device="meta")))
    x = ember.ones(2, requires_grad=True)
    assert (
        ember.ops.aten._foobar(x).grad_fn.name()
        == torch.ops.aten._foobar(torch.ones(2, requires_grad=True)).grad_fn.name()
    )


def test_meta_mv_out_takes_the_python_reference():
    """mv.out's Meta kernel is out_wrapper(exact_dtype=True): the dtype text names dtypes."""

    def run(lib):
        m, v = _m(lib).to("meta"), _v(lib).to("meta")
        try:
            lib.mv(m, v, out=lib.empty(0, device="meta", dtype=lib.int32))
        except RuntimeError as error:
            return str(error).replace("torch.", "ember.")
        return None

    assert run(ember) == run(torch) is not None
