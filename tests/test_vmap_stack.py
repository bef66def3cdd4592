"""The functorch layer stack as keys (facts A1-A3): tensor key sets, TLS inside vmap, levels,
the interpreter stack, BatchedTensor reprs and dumps, the enums, table entries, and what
the kernels of a custom op see at each key -- all against PyTorch."""

from __future__ import annotations

from oracle import torch
from vmap_support import same

import ember


def _probe(lib):
    C, fz = lib._C, lib._C._functorch
    seen = []

    def f(t):
        seen.append(str(C._dispatch_keys(t)))
        seen.append(str(C._dispatch_tls_local_include_set()))
        seen.append(str(C._dispatch_tls_local_exclude_set()))
        seen.append((fz.maybe_get_level(t), fz.is_batchedtensor(t), fz.is_gradtrackingtensor(t),
                     fz.is_functionaltensor(t), fz.maybe_current_level()))  # fmt: skip
        seen.append([(i.key().name, i.level()) for i in fz.get_interpreter_stack()])
        seen.append((type(t).__name__, tuple(t.shape), t.requires_grad, repr(t)))
        fz.dump_tensor(t)
        fz.dump_dls()
        return t.sin().sum()

    return f, seen


def _inside(lib, nest, in_dims=0):
    f, seen = _probe(lib)
    x = lib.arange(6.0).reshape(2, 3)
    g = f
    for _ in range(nest):
        g = lib.func.vmap(g, in_dims=in_dims)
    g(x)
    return seen


def test_inside_vmap_keys_tls_levels_repr():
    same(lambda lib: _inside(lib, 1))


def _printed(capfd, program):
    """What ``program`` printed (PyTorch's dumps write to the C++ stdout, so fd 1)."""
    capfd.readouterr()
    program()
    return capfd.readouterr().out


def test_dump_tensor_and_dump_dls(capfd):
    for nest, in_dims in ((1, 0), (1, 1), (2, 0)):
        ours = _printed(capfd, lambda n=nest, d=in_dims: _inside(ember, n, d))
        theirs = _printed(capfd, lambda n=nest, d=in_dims: _inside(torch, n, d))
        assert ours == theirs and "DynamicLayerStack[ 1:Vmap" in ours


def test_inside_vmap_in_dims_1():
    same(lambda lib: _inside(lib, 1, in_dims=1))


def test_inside_nested_vmap_one_key_bit_two_levels():
    same(lambda lib: _inside(lib, 2))


def test_outside_every_transform():
    def program(lib):
        fz = lib._C._functorch
        x = lib.ones(2)
        lib.func.vmap(lambda t: t)(x)
        return (fz.maybe_get_level(x), fz.maybe_current_level(), fz.get_interpreter_stack(),
                str(lib._C._dispatch_tls_local_include_set()),
                fz.is_batchedtensor(x), fz.maybe_get_bdim(x))  # fmt: skip

    same(program)


def test_enums():
    def program(lib):
        fz = lib._C._functorch
        return (
            {k: int(v) for k, v in fz.TransformType.__members__.items()},
            {k: int(v) for k, v in fz.RandomnessType.__members__.items()},
        )

    same(program)


def test_add_and_remove_batch_dim():
    def program(lib):
        fz = lib._C._functorch
        x = lib.arange(6.0).reshape(2, 3)
        b = fz._add_batch_dim(x, 1, 1)
        return (fz.maybe_get_bdim(b), tuple(b.shape), b.stride(), fz.get_unwrapped(b) is x,
                str(lib._C._dispatch_keys(b)))  # fmt: skip

    same(program)


_FT = ("FuncTorchDynamicLayerBackMode FuncTorchBatched BatchedNestedTensor FuncTorchVmapMode "
       "VmapMode FuncTorchGradWrapper FuncTorchDynamicLayerFrontMode").split()  # fmt: skip


def _entries(lib, op, keys=_FT):
    lines = lib._C._dispatch_dump_table(op).splitlines()
    out = []
    for key in keys:
        hit = [line for line in lines if line.split(": ")[0] == key]
        text = hit[0] if hit else f"{key}: <no entry>"
        head, _, tail = text.partition(" registered at ")
        out.append((head, tail[tail.index(" [") :] if " [" in tail else tail))
    return out


def test_table_entries_of_a_batching_rule_a_decomposition_and_the_fallback():
    for op in ("aten::sin", "aten::flatten.using_ints", "aten::histc", "aten::add.Tensor",
               "aten::sum.dim_IntList", "aten::mm", "aten::matmul", "aten::reshape"):  # fmt: skip
        assert _entries(ember, op) == _entries(torch, op), op


def test_table_entries_of_a_fresh_op_and_the_random_ops():
    def fresh(lib):
        library = lib.library.Library("vmapstack", "FRAGMENT")
        library.define("f(Tensor x) -> Tensor")
        library.impl("f", lambda x: x * 2, "CPU")
        keys = ["FuncTorchBatched", "FuncTorchVmapMode", "FuncTorchGradWrapper"]
        return _entries(lib, "vmapstack::f", keys)

    assert fresh(ember) == fresh(torch)
    for op in ("aten::rand", "aten::normal_", "aten::dropout", "aten::randn_like"):
        assert _entries(ember, op, ["FuncTorchVmapMode"]) == _entries(
            torch, op, ["FuncTorchVmapMode"]
        ), op


def _kernel_view(lib, tag, unbatched=False):
    """A custom op whose kernels at FuncTorchVmapMode, FuncTorchBatched, AutogradCPU and CPU
    record the key set and TLS they see, each re-calling the op below its key."""
    C, fz, DK = lib._C, lib._C._functorch, lib._C.DispatchKey
    library = lib.library.Library(tag, "DEF")
    library.define("id(Tensor x) -> Tensor")
    op = getattr(lib.ops, tag).id
    seen = []

    def tls():
        return (str(C._dispatch_tls_local_include_set()), str(C._dispatch_tls_local_exclude_set()))

    def below(key, x):
        with C._ExcludeDispatchKeyGuard(C.DispatchKeySet(key)):
            return op(x)

    def vmapmode(ks, x):
        seen.append(("VmapMode", str(ks), tls()))
        return below(DK.FuncTorchVmapMode, x)

    def batched(ks, x):
        seen.append(("Batched", str(ks), fz.maybe_get_level(x), fz.maybe_get_bdim(x), tls()))
        out = below(DK.FuncTorchBatched, fz.get_unwrapped(x))
        return fz._add_batch_dim(out, fz.maybe_get_bdim(x), fz.maybe_get_level(x))

    def autograd(ks, x):
        seen.append(("AutogradCPU", str(ks), fz.is_gradtrackingtensor(x), tls()))
        with C._AutoDispatchBelowAutograd():
            return op(x)

    def cpu(ks, x):
        seen.append(("CPU", str(ks), tuple(x.shape), tls()))
        return x.clone()

    library.impl("id", vmapmode, "FuncTorchVmapMode", with_keyset=True)
    library.impl("id", batched, "FuncTorchBatched", with_keyset=True)
    library.impl("id", autograd, "AutogradCPU", with_keyset=True)
    library.impl("id", cpu, "CPU", with_keyset=True)
    x = lib.ones(2, 3)
    if unbatched:
        lib.func.vmap(lambda t: op(x))(x)
    else:
        lib.func.vmap(op)(x)
    del library
    return seen


def test_what_each_kernel_sees_inside_vmap():
    same(lambda lib: _kernel_view(lib, "vmapkv1"))


def test_vmap_mode_is_reached_without_a_batched_input():
    same(lambda lib: _kernel_view(lib, "vmapkv2", unbatched=True))


def test_the_tls_is_restored_after_an_error_inside_vmap():
    def program(lib):
        try:
            lib.func.vmap(lambda t: t.sum().item())(lib.ones(2, 3))
        except RuntimeError:
            pass
        return (str(lib._C._dispatch_tls_local_include_set()),
                str(lib._C._dispatch_tls_local_exclude_set()),
                lib._C._functorch.maybe_current_level())  # fmt: skip

    same(program)


def test_trace_shows_the_functorch_keys_in_order():
    x = ember.ones(2, 3)
    with ember.dispatch.trace() as t:
        ember.vmap(ember.sin)(x)
    keys = [line.split("key=[")[1].rstrip("]") for line in str(t).splitlines() if "key=[" in line]
    assert keys == ["FuncTorchDynamicLayerFrontMode", "FuncTorchBatched",
                    "FuncTorchDynamicLayerBackMode", "AutogradCPU", "CPU"]  # fmt: skip
