"""torch.autocast on CPU as a dispatch key (AutocastCPU): state, policies, casts, cache, errors.

Differential against PyTorch 2.13 in one process (each library keeps its own thread
state). See ember/amp/ and Note [Autocast policies].
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from oracle import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode as EmberMode


def _name(dtype) -> str:
    return str(dtype).split(".")[-1]


def _state(lib) -> tuple:
    C = lib._C
    return (
        lib.is_autocast_enabled("cpu"), _name(lib.get_autocast_dtype("cpu")),
        lib.is_autocast_enabled(), lib.is_autocast_cache_enabled(),
        repr(C._dispatch_tls_local_include_set()), repr(C._dispatch_tls_local_exclude_set()),
    )  # fmt: skip


def _state_trail(lib) -> list:
    trail = [_state(lib)]
    with lib.autocast("cpu"):
        trail.append(_state(lib))
    with lib.autocast("cpu", dtype=lib.float16):
        trail.append(_state(lib))
        with lib.autocast("cpu", enabled=False):
            trail.append(_state(lib))
        with lib.autocast("cpu", dtype=lib.bfloat16):
            trail.append(_state(lib))
        trail.append(_state(lib))
    with lib.autocast("cpu", enabled=False):
        trail.append(_state(lib))
    with lib.autocast("cpu", cache_enabled=False):
        trail.append(_state(lib))
    lib.set_autocast_enabled("cpu", True)
    trail.append(_state(lib))
    lib.set_autocast_enabled("cpu", False)
    lib.set_autocast_dtype("cpu", lib.float16)
    trail.append(_state(lib))
    lib.set_autocast_dtype("cpu", lib.bfloat16)
    counts = [lib.autocast_increment_nesting(), lib.autocast_increment_nesting()]
    counts += [lib.autocast_decrement_nesting(), lib.autocast_decrement_nesting()]
    trail.append(counts)
    trail.append(
        {
            d: _name(lib.get_autocast_dtype(d))
            for d in ("cuda", "xpu", "mps", "hpu", "xla", "mtia", "maia", "ipu")
        }
    )
    trail.append(_state(lib))
    return trail


def test_autocast_state_and_thread_local_sets_are_torch():
    """autocast('cpu') only takes AutocastCPU out of the exclude set; nesting restores."""
    ours = [
        s if not isinstance(s, tuple) else tuple(str(x).replace("ember", "torch") for x in s)
        for s in _state_trail(ember)
    ]
    theirs = [
        s if not isinstance(s, tuple) else tuple(str(x) for x in s) for s in _state_trail(torch)
    ]
    assert ours == theirs


def test_autocast_is_torch_amp_autocast_and_a_decorator():
    assert ember.amp.autocast is ember.autocast
    with ember.amp.autocast("cpu") as ac:
        assert (type(ac).__name__, ac.fast_dtype, ac.device, ac._enabled) == (
            "autocast",
            ember.bfloat16,
            "cpu",
            True,
        )

    @ember.autocast("cpu")
    def fn():
        return ember.is_autocast_enabled("cpu"), ember.mm(ember.ones(2, 2), ember.ones(2, 2)).dtype

    assert fn() == (True, ember.bfloat16)
    assert not ember.is_autocast_enabled("cpu")


def _table(lib):
    r = lambda *s, dt: lib.ones(*s, dtype=dt) / 3  # noqa: E731
    F = lib.nn.functional
    ops = {
        "mm": lambda dt: lib.mm(r(2, 3, dt=dt), r(3, 2, dt=dt)),
        "matmul": lambda dt: lib.matmul(r(2, 3, dt=dt), r(3, 2, dt=dt)),
        "addmm": lambda dt: lib.addmm(r(2, 2, dt=dt), r(2, 3, dt=dt), r(3, 2, dt=dt)),
        "bmm": lambda dt: lib.bmm(r(1, 2, 3, dt=dt), r(1, 3, 2, dt=dt)),
        "linear": lambda dt: F.linear(r(2, 3, dt=dt), r(4, 3, dt=dt), r(4, dt=dt)),
        "add": lambda dt: r(2, dt=dt) + r(2, dt=dt),
        "mul": lambda dt: r(2, dt=dt) * r(2, dt=dt),
        "sum": lambda dt: r(2, 3, dt=dt).sum(),
        "mean": lambda dt: r(2, 3, dt=dt).mean(),
        "exp": lambda dt: r(2, dt=dt).exp(),
        "relu": lambda dt: F.relu(r(2, dt=dt)),
        "softmax": lambda dt: F.softmax(r(2, 3, dt=dt), 1),
        "log_softmax": lambda dt: F.log_softmax(r(2, 3, dt=dt), 1),
        "prod": lambda dt: r(2, 3, dt=dt).prod(),
        "prod.dim_int": lambda dt: r(2, 3, dt=dt).prod(1),
        "mse_loss": lambda dt: F.mse_loss(r(2, 3, dt=dt), r(2, 3, dt=dt)),
        "cross_entropy": lambda dt: F.cross_entropy(r(2, 3, dt=dt), lib.tensor([0, 2])),
        "nll_loss": lambda dt: F.nll_loss(r(2, 3, dt=dt), lib.tensor([0, 2])),
        "cat": lambda dt: lib.cat([r(2, dt=dt), r(2, dt=dt)]),
        "stack": lambda dt: lib.stack([r(2, dt=dt), r(2, dt=dt)]),
        "cat mixed": lambda dt: lib.cat([r(2, dt=lib.bfloat16), r(2, dt=dt)]),
        "mm int": lambda dt: lib.mm(
            lib.ones(2, 2, dtype=lib.int64), lib.ones(2, 2, dtype=lib.int64)
        ),
    }
    columns = [(lib.float32, lib.bfloat16), (lib.float32, lib.float16), (lib.bfloat16, lib.bfloat16),
               (lib.float16, lib.float16), (lib.float64, lib.bfloat16), (lib.bfloat16, None)]  # fmt: skip
    table = {}
    for name, fn in ops.items():
        row = []
        for dt, ac in columns:
            try:
                if ac is None:
                    row.append(_name(fn(dt).dtype))
                else:
                    with lib.autocast("cpu", dtype=ac):
                        row.append(_name(fn(dt).dtype))
            except RuntimeError as e:
                row.append(str(e))
        table[name] = row
    return table


def test_output_dtypes_follow_torch_policies():
    """lower precision (mm, matmul, addmm, bmm, linear), fp32 (prod, the losses), promote
    (cat, stack), untouched (pointwise, reductions, integers, float64)."""
    assert _table(ember) == _table(torch)


def test_values_under_autocast_are_torch():
    for lib in (torch, ember):
        lib.manual_seed(0)
    outs = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        a, b, bias = lib.randn(8, 33), lib.randn(33, 5), lib.randn(5)
        with lib.autocast("cpu"):
            got = [lib.mm(a, b), lib.matmul(a, b), lib.addmm(lib.randn(8, 5), a, b),
                   lib.nn.functional.linear(a, b.t(), bias), lib.bmm(a[None], b[None])]  # fmt: skip
        with lib.autocast("cpu", dtype=lib.float16):
            got.append(lib.mm(a, b))
        outs.append([t.float().numpy() for t in got])
    for ours, theirs in zip(outs[1], outs[0], strict=True):
        np.testing.assert_array_equal(ours, theirs)


def test_mixed_dtype_errors_are_torch():
    for make in (lambda lib: lib.mm(lib.ones(2, 2, dtype=lib.float64), lib.ones(2, 2)),):
        messages = []
        for lib in (torch, ember):
            with lib.autocast("cpu"), pytest.raises(RuntimeError) as info:
                make(lib)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


def _logged(lib, mode_base, body):
    log = []

    class Log(mode_base):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = str(func)
            if name == "aten._to_copy.default":
                name += f"({_name(args[0].dtype)}->{_name(kwargs['dtype'])})"
            log.append(name)
            return func(*args, **kwargs)

    body(lib, Log, log)
    return log


def _cache_programs(lib, Log, log):
    F = lib.nn.functional
    x, w = lib.ones(2, 3), lib.ones(4, 3, requires_grad=True)
    runs = {}
    for label, kw in (("cache on", {}), ("cache off", {"cache_enabled": False})):
        with lib.autocast("cpu", **kw), Log():
            F.linear(x, w)
            F.linear(x, w)
        runs[label], log[:] = list(log), []
    with lib.no_grad(), lib.autocast("cpu"), Log():
        F.linear(x, w)
        F.linear(x, w)
    runs["no_grad"], log[:] = list(log), []
    plain = lib.ones(4, 3)
    with lib.autocast("cpu"), Log():
        F.linear(x, plain)
        F.linear(x, plain)
    runs["no requires_grad"], log[:] = list(log), []
    with lib.autocast("cpu"), Log():
        F.linear(x.bfloat16(), w.bfloat16().detach())
    runs["already bf16"], log[:] = list(log), []
    with lib.autocast("cpu"), Log():
        lib.nn.functional.mse_loss(
            lib.cat([x.bfloat16(), x]).bfloat16(), lib.cat([x, x]).bfloat16()
        )
    runs["promote then fp32"], log[:] = list(log), []
    with lib.autocast("cpu"):
        with lib.autocast("cpu"):
            F.linear(x, w)
        with Log():
            F.linear(x, w)
    runs["inner exit keeps the cache"], log[:] = list(log), []
    with lib.autocast("cpu"):
        F.linear(x, w)
    with lib.autocast("cpu"), Log():
        F.linear(x, w)
    runs["outer exit clears it"], log[:] = list(log), []
    with lib.autocast("cpu"):
        F.linear(x, w)
        lib.clear_autocast_cache()
        with Log():
            F.linear(x, w)
    runs["clear_autocast_cache"], log[:] = list(log), []
    return runs


def test_casts_and_the_weight_cache_are_what_a_mode_sees_in_torch():
    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    holder = {}
    _logged(
        torch, TorchMode, lambda lib, Log, log: holder.update(torch=_cache_programs(lib, Log, log))
    )
    _logged(
        ember, EmberMode, lambda lib, Log, log: holder.update(ember=_cache_programs(lib, Log, log))
    )
    assert holder["ember"] == holder["torch"]


def test_autocast_kernels_are_registered_where_torch_has_them():
    """Every ember operator with an AutocastCPU kernel in torch has one in ember (from one
    line, as PyTorch's come from autocast_mode.cpp), every other falls through."""
    ours = {}
    for name in ember._C._dispatch_get_all_op_names():
        line = next(
            (
                row
                for row in ember._C._dispatch_dump_table(name).splitlines()
                if row.startswith("AutocastCPU:")
            ),
            "",
        )
        ours[name] = line
    checked = 0
    for name, line in ours.items():
        theirs = next(
            (
                row
                for row in torch._C._dispatch_dump_table(name).splitlines()
                if row.startswith("AutocastCPU:")
            ),
            None,
        )
        if theirs is None:
            continue  # an operator torch does not have
        checked += 1
        assert ("fallthrough" in line) == ("fallthrough" in theirs), name
        assert line.endswith(theirs.rsplit(" ", 1)[-1]), name
    assert checked > 500
    kernels = {
        row.split("registered at ")[1].split(" [")[0]
        for row in ours.values()
        if "fallthrough" not in row and row
    }
    assert len(kernels) == 1 and "amp/autocast_kernels.py" in kernels.pop()


def test_a_fallthrough_registered_for_autocastcpu_turns_one_op_off():
    """PyTorch's test_register_fallthrough, in ember's words."""
    a, b = ember.randn(2, 3), ember.randn(3, 2)
    with ember.library._scoped_library("aten", "IMPL") as lib:
        lib.impl("mm", ember.library.fallthrough_kernel, "AutocastCPU")
        with ember.autocast("cpu", dtype=ember.bfloat16):
            assert ember.mm(a, b).dtype is ember.float32
            assert ember.matmul(a, b).dtype is ember.bfloat16
    with ember.autocast("cpu", dtype=ember.bfloat16):
        assert ember.mm(a, b).dtype is ember.bfloat16


def _errors(lib):
    seen = []

    def go(*a, **k):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            try:
                with lib.autocast(*a, **k):
                    out = (lib.is_autocast_enabled("cpu"), _name(lib.get_autocast_dtype("cpu")),
                           _name(lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype))  # fmt: skip
            except Exception as e:  # noqa: BLE001 (compared with torch's)
                out = (type(e).__name__, str(e).replace("ember", "torch"))
        seen.append(
            (out, [(w.category.__name__, str(w.message).replace("ember", "torch")) for w in ws])
        )

    for dtype in (lib.float64, lib.float32, lib.int32, "bfloat16"):
        go("cpu", dtype=dtype)
    for device in ("cpu:0", lib.device("cpu"), "foo", "cuda", "meta", "privateuseone"):
        go(device)
    return seen


def test_bad_autocast_arguments_warn_and_raise_as_torch():
    assert _errors(ember) == _errors(torch)
    for fn in (lambda lib: lib.is_autocast_enabled(3), lambda lib: lib.set_autocast_enabled("cpu", "x"),
               lambda lib: lib.get_autocast_dtype("meta"), lambda lib: lib.is_autocast_enabled("meta"),
               lambda lib: lib.set_autocast_dtype(3, lib.float16), lambda lib: lib.set_autocast_cache_enabled(3)):  # fmt: skip
        caught = []
        for lib in (torch, ember):
            with pytest.raises(Exception) as info:
                fn(lib)
            caught.append((type(info.value).__name__, str(info.value)))
        assert caught[0] == caught[1]


def test_deprecated_spellings_warn_as_torch():
    for fn in (lambda lib: lib.is_autocast_cpu_enabled(), lambda lib: lib.get_autocast_cpu_dtype(),
               lambda lib: lib.set_autocast_cpu_enabled(False), lambda lib: lib.set_autocast_cpu_dtype(lib.bfloat16),
               lambda lib: lib.cpu.amp.autocast().fast_dtype):  # fmt: skip
        seen = []
        for lib in (torch, ember):
            with warnings.catch_warnings(record=True) as ws:
                warnings.simplefilter("always")
                out = fn(lib)
            seen.append(
                (
                    str(out).replace("ember", "torch"),
                    [(w.category.__name__, str(w.message)) for w in ws],
                )
            )
        assert seen[0] == seen[1]


class _Scale:
    @staticmethod
    def program(lib):
        from functools import partial

        seen = {}

        class MyMM(lib.autograd.Function):
            @staticmethod
            @partial(lib.amp.custom_fwd, device_type="cpu", cast_inputs=lib.float32)
            def forward(ctx, a, b):
                seen["fwd"] = (_name(a.dtype), lib.is_autocast_enabled("cpu"))
                ctx.save_for_backward(a, b)
                return a.mm(b)

            @staticmethod
            @partial(lib.amp.custom_bwd, device_type="cpu")
            def backward(ctx, grad):
                seen["bwd"] = lib.is_autocast_enabled("cpu")
                a, b = ctx.saved_tensors
                return grad.mm(b.t()), a.t().mm(grad)

        x = lib.ones(2, 3, requires_grad=True)
        w = lib.ones(3, 2, requires_grad=True)
        with lib.autocast("cpu"):
            y = lib.mm(x, w)
            seen["graph"] = (y.grad_fn.name(), [n[0].name() for n in y.grad_fn.next_functions])
            out = MyMM.apply(x.bfloat16(), w)
            seen["custom out"] = _name(out.dtype)
        y.float().sum().backward()
        seen["leaf grads"] = (_name(x.grad.dtype), _name(w.grad.dtype))
        with lib.no_grad(), lib.autocast("cpu"):
            z = lib.mm(x, w)
        seen["no_grad"] = (_name(z.dtype), z.requires_grad)
        out.sum().backward()
        return seen


def test_autograd_under_autocast_and_custom_fwd_bwd_are_torch():
    assert _Scale.program(ember) == _Scale.program(torch)
