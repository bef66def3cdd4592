"""nn.MultiheadAttention and F.multi_head_attention_forward against PyTorch 2.13: seeded
initialisation, repr, state_dict keys, forward values / shapes / strides / grad_fn names
and gradients over constructor arguments, masks (bool and float, 2-D and 3-D, with a key
padding mask), bias_k / bias_v, add_zero_attn, static_k / static_v, is_causal, unbatched
and batch_first inputs; the fast path (aten::_native_multi_head_attention) taken and
refused under PyTorch's conditions, as the operators a TorchDispatchMode sees; PyTorch's
warnings and errors (type and full message)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

LIBS = (torch, ember)


def _text(value) -> str:
    return str(value).replace("ember", "torch")


def _tensor(lib, array, dtype="float32", requires_grad=False):
    if array.dtype == bool:
        return lib.tensor(array)
    return lib.tensor(array, dtype=getattr(lib, dtype), requires_grad=requires_grad)


def _record_ops(lib, fn):
    """fn() under a TorchDispatchMode: its result and the operators the mode saw."""
    seen = []

    class Recorder(lib.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(_text(func))
            return func(*args, **(kwargs or {}))

    with Recorder():
        result = fn()
    return result, seen


def _outcome(fn, lib):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn(lib)
        return result, None, [(w.category.__name__, str(w.message)) for w in caught]
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return None, error, None


def same_error(fn):
    """Both libraries raise the same exception type with the same message."""
    _, e_error, _ = _outcome(fn, ember)
    _, t_error, _ = _outcome(fn, torch)
    assert t_error is not None, "torch did not raise"
    assert e_error is not None, f"ember did not raise; torch raised {t_error!r}"
    assert type(e_error).__name__ == type(t_error).__name__, (e_error, t_error)
    assert _text(e_error) == str(t_error)


def assert_same_tensor(e, t, rtol, atol, strides=True):
    if t is None:
        assert e is None
        return
    assert _text(e.dtype) == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    if strides:
        assert e.stride() == t.stride(), (e.stride(), t.stride())
    t_fn, e_fn = t.grad_fn, e.grad_fn
    assert (e_fn is None) == (t_fn is None)
    if t_fn is not None:
        assert e_fn.name() == t_fn.name()
    np.testing.assert_allclose(
        e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True
    )


def _tolerance(dtype):
    return (1e-10, 1e-10) if dtype == "float64" else (2e-5, 2e-5)


# -- construction -----------------------------------------------------------------------

CONFIGS = [
    {"embed_dim": 8, "num_heads": 2},
    {"embed_dim": 6, "num_heads": 3, "bias": False},
    {"embed_dim": 8, "num_heads": 4, "kdim": 5, "vdim": 3},
    {"embed_dim": 4, "num_heads": 1, "add_bias_kv": True, "add_zero_attn": True},
    {"embed_dim": 8, "num_heads": 2, "batch_first": True, "dropout": 0.25},
    {"embed_dim": 4, "num_heads": 2, "kdim": 4, "vdim": 2, "bias": False, "add_bias_kv": True},
]


@pytest.mark.parametrize("config", CONFIGS)
def test_seeded_parameters_repr_and_state_dict(config):
    def build(lib):
        lib.manual_seed(7)
        return lib.nn.MultiheadAttention(**config, dtype=lib.float64)

    e, t = build(ember), build(torch)
    assert _text(repr(e)) == repr(t)
    assert list(e.state_dict().keys()) == list(t.state_dict().keys())
    e_params, t_params = dict(e.named_parameters()), dict(t.named_parameters())
    assert list(e_params) == list(t_params)
    for name, value in t_params.items():
        np.testing.assert_array_equal(e_params[name].detach().numpy(), value.detach().numpy())
    for attribute in ("embed_dim", "kdim", "vdim", "_qkv_same_embed_dim", "num_heads",
                      "dropout", "batch_first", "head_dim", "add_zero_attn"):  # fmt: skip
        assert getattr(e, attribute) == getattr(t, attribute)
    for attribute in ("in_proj_weight", "q_proj_weight", "bias_k", "bias_v", "in_proj_bias"):
        assert (getattr(e, attribute) is None) == (getattr(t, attribute) is None)
    assert type(e.out_proj).__name__ == type(t.out_proj).__name__
    assert type(e.out_proj).__module__.replace("ember", "torch") == type(t.out_proj).__module__


@pytest.mark.parametrize(
    "args",
    [
        {"embed_dim": 0, "num_heads": 2},
        {"embed_dim": 4, "num_heads": -1},
        {"embed_dim": 6, "num_heads": 4},
    ],
)
def test_constructor_errors(args):
    same_error(lambda lib: lib.nn.MultiheadAttention(**args))


# -- forward and backward -----------------------------------------------------------------


def _inputs(rng, length, source, batch, embed, kdim, vdim, batched, kind):
    lead = (batch,) if batched else ()

    def shaped(n, e):
        return rng.standard_normal((n, *lead, e)) if batched else rng.standard_normal((n, e))

    query = shaped(length, embed)
    if kind == "self":
        return query, None, None
    key = shaped(source, kdim)
    return query, key, (None if kind == "kv" else shaped(source, vdim))


def _masks(rng, mask, padding, length, source, batch, heads, batched):
    attn_mask = kpm = None
    if mask is not None:
        kind, dims = mask
        shape = (length, source) if dims == 2 else (batch * heads if batched else heads,
                                                    length, source)  # fmt: skip
        allowed = rng.random(shape) < 0.7
        allowed[..., 0] = True  # no row is masked whole (that row is NaN in both)
        attn_mask = ~allowed if kind == "bool" else np.where(allowed, 0.0, -1e4)
    if padding is not None:
        shape = (batch, source) if batched else (source,)
        padded = rng.random(shape) < 0.3
        padded[..., 0] = False
        kpm = padded if padding == "bool" else np.where(padded, -np.inf, 0.0)
    return attn_mask, kpm


@settings(max_examples=40, deadline=None)
@given(
    length=st.integers(1, 4), source=st.integers(1, 4), batch=st.integers(1, 3),
    heads=st.sampled_from([1, 2]), head_dim=st.integers(1, 3),
    kdims=st.sampled_from([None, (3, 2)]), bias=st.booleans(), bias_kv=st.booleans(),
    zero_attn=st.booleans(), batch_first=st.booleans(), batched=st.booleans(),
    kind=st.sampled_from(["self", "kv", "qkv"]),
    mask=st.sampled_from([None, ("bool", 2), ("float", 2), ("bool", 3), ("float", 3)]),
    padding=st.sampled_from([None, "bool", "float"]), need_weights=st.booleans(),
    average=st.booleans(), dtype=st.sampled_from(["float64", "float32"]),
    seed=st.integers(0, 2**16),
)  # fmt: skip
def test_module_against_torch(length, source, batch, heads, head_dim, kdims, bias, bias_kv,
                              zero_attn, batch_first, batched, kind, mask, padding,
                              need_weights, average, dtype, seed):  # fmt: skip
    embed = heads * head_dim
    kdim, vdim = kdims if kdims is not None else (embed, embed)
    if kdims is not None and kind != "qkv":
        kind = "qkv"
    if kind == "self":
        source = length
    if mask is not None and padding is not None and mask[0] != padding:
        padding = mask[0]  # mismatched types only warn: test_mismatched_mask_types_warn
    rng = np.random.default_rng(seed)
    query, key, value = _inputs(rng, length, source, batch, embed, kdim, vdim, batched, kind)
    attn_mask, kpm = _masks(rng, mask, padding, length, source, batch, heads, batched)
    if batched and batch_first:
        query, key, value = (None if a is None else a.swapaxes(0, 1) for a in (query, key, value))

    def run(lib):
        lib.manual_seed(seed)
        module = lib.nn.MultiheadAttention(
            embed, heads, bias=bias, add_bias_kv=bias_kv, add_zero_attn=zero_attn,
            kdim=kdims and kdim, vdim=kdims and vdim, batch_first=batch_first,
            dtype=getattr(lib, dtype),
        )  # fmt: skip
        q = _tensor(lib, query, dtype, requires_grad=True)
        k = q if key is None else _tensor(lib, key, dtype, requires_grad=True)
        v = k if value is None else _tensor(lib, value, dtype, requires_grad=True)
        options = {"need_weights": need_weights, "average_attn_weights": average}
        if attn_mask is not None:
            options["attn_mask"] = _tensor(lib, attn_mask, dtype)
        if kpm is not None:
            options["key_padding_mask"] = _tensor(lib, kpm, dtype)
        output, weights = module(q, k, v, **options)
        total = output.sum() if weights is None else output.sum() + (weights * 0.5).sum()
        # each leaf once (ember's autograd.grad does not yet give a repeated input its
        # gradient twice)
        leaves = [q] + ([k] if k is not q else []) + ([v] if v is not k else [])
        leaves += list(module.parameters())
        grads = lib.autograd.grad(total, leaves, allow_unused=True)
        return output, weights, grads

    (e_out, e_w, e_grads), (t_out, t_w, t_grads) = run(ember), run(torch)
    rtol, atol = _tolerance(dtype)
    assert_same_tensor(e_out, t_out, rtol, atol)
    assert_same_tensor(e_w, t_w, rtol, atol)
    assert len(e_grads) == len(t_grads)
    for e_grad, t_grad in zip(e_grads, t_grads, strict=True):
        assert_same_tensor(e_grad, t_grad, rtol * 10, atol * 10, strides=False)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("padding", [False, True])
def test_is_causal(need_weights, padding):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 2, 4))
    causal = np.triu(np.ones((3, 3), bool), 1)
    kpm = np.array([[False, False, True], [False, False, False]])

    def run(lib):
        lib.manual_seed(0)
        module = lib.nn.MultiheadAttention(4, 2, dtype=lib.float64)
        q = _tensor(lib, x, "float64", requires_grad=True)
        options = {"attn_mask": lib.tensor(causal), "is_causal": True}
        if padding:
            options["key_padding_mask"] = lib.tensor(kpm)
        (output, weights), ops = _record_ops(
            lib, lambda: module(q, q, q, need_weights=need_weights, **options)
        )
        return output, weights, lib.autograd.grad(output.sum(), q)[0], ops

    e, t = run(ember), run(torch)
    for e_value, t_value in zip(e[:3], t[:3], strict=True):
        assert_same_tensor(e_value, t_value, 1e-10, 1e-10)
    assert e[3] == t[3]


def test_training_dropout_draws_torchs_mask():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 2, 4))

    def run(lib):
        lib.manual_seed(11)
        module = lib.nn.MultiheadAttention(4, 2, dropout=0.5, dtype=lib.float64)
        q = _tensor(lib, x, "float64", requires_grad=True)
        output, weights = module(q, q, q)
        return output, weights, lib.autograd.grad(output.sum(), q)[0]

    for e_value, t_value in zip(run(ember), run(torch), strict=True):
        assert_same_tensor(e_value, t_value, 1e-10, 1e-10)


@pytest.mark.parametrize("zero_attn", [False, True])
def test_functional_static_k_v_and_separate_weights(zero_attn):
    rng = np.random.default_rng(5)
    arrays = {
        "q": rng.standard_normal((3, 2, 4)),
        "k": rng.standard_normal((5, 2, 3)),
        "v": rng.standard_normal((5, 2, 2)),
        "wq": rng.standard_normal((4, 4)),
        "wk": rng.standard_normal((4, 3)),
        "wv": rng.standard_normal((4, 2)),
        "b": rng.standard_normal(12),
        "ow": rng.standard_normal((4, 4)),
        "ob": rng.standard_normal(4),
        "sk": rng.standard_normal((4, 6, 2)),
        "sv": rng.standard_normal((4, 6, 2)),
    }

    def run(lib):
        t = {n: _tensor(lib, a, "float64", requires_grad=True) for n, a in arrays.items()}
        output, weights = lib.nn.functional.multi_head_attention_forward(
            t["q"], t["k"], t["v"], 4, 2, None, t["b"], None, None, zero_attn, 0.0, t["ow"],
            t["ob"], use_separate_proj_weight=True, q_proj_weight=t["wq"],
            k_proj_weight=t["wk"], v_proj_weight=t["wv"], static_k=t["sk"], static_v=t["sv"],
            average_attn_weights=False,
        )  # fmt: skip
        grads = lib.autograd.grad(output.sum() + weights.sum(), list(t.values()),
                                  allow_unused=True)  # fmt: skip
        return (output, weights, *grads)

    for e_value, t_value in zip(run(ember), run(torch), strict=True):
        assert_same_tensor(e_value, t_value, 1e-10, 1e-10, strides=False)


# -- the fast path --------------------------------------------------------------------------


def _fast_path_program(module_kwargs=None, call=None, grad=False, eval_mode=True,
                       dtype="float32", masks=(None, None), same=True):  # fmt: skip
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 8))
    attn_mask, kpm = masks

    def run(lib):
        lib.manual_seed(1)
        options = {"batch_first": True, "num_heads": 2, **(module_kwargs or {})}
        module = lib.nn.MultiheadAttention(8, dtype=getattr(lib, dtype), **options)
        if eval_mode:
            module.eval()
        q = _tensor(lib, x, dtype)
        k = q if same else _tensor(lib, x, dtype)
        kwargs = dict(call or {})
        if attn_mask is not None:
            kwargs["attn_mask"] = _tensor(lib, attn_mask, dtype)
        if kpm is not None:
            kwargs["key_padding_mask"] = _tensor(lib, kpm, dtype)
        if grad:
            return _record_ops(lib, lambda: module(q, k, k, **kwargs))
        with lib.no_grad():
            return _record_ops(lib, lambda: module(q, k, k, **kwargs))

    return run


ATTN = np.array([[False, True, False], [False, False, True], [True, False, False]])
PADDING = np.array([[False, False, True], [False, False, False]])

FAST_PATH_CASES = {
    "taken": {},
    "taken without weights": {"call": {"need_weights": False}},
    "taken per head": {"call": {"average_attn_weights": False}},
    "taken with a padding mask": {"masks": (None, PADDING)},
    "taken with an attention mask": {"masks": (ATTN, None)},
    "taken with both masks": {"masks": (ATTN, PADDING), "call": {"need_weights": False}},
    "float64": {"dtype": "float64"},
    "float mask": {"masks": (np.where(ATTN, -np.inf, 0.0), None)},
    "grad": {"grad": True},
    "training": {"eval_mode": False},
    "odd heads": {"module_kwargs": {"num_heads": 1}},
    "not batch first": {"module_kwargs": {"batch_first": False}},
    "bias_kv": {"module_kwargs": {"add_bias_kv": True}},
    "zero attention": {"module_kwargs": {"add_zero_attn": True}},
    "no bias": {"module_kwargs": {"bias": False}},
    "not self-attention": {"same": False},
}


@pytest.mark.parametrize("case", list(FAST_PATH_CASES))
def test_fast_path_taken_or_refused_as_in_torch(case):
    options = FAST_PATH_CASES[case]
    run = _fast_path_program(**options)
    (e_result, e_ops), (t_result, t_ops) = run(ember), run(torch)
    assert e_ops == t_ops
    tol = 1e-10 if options.get("dtype") == "float64" else 2e-5
    for e_value, t_value in zip(e_result, t_result, strict=True):
        assert_same_tensor(e_value, t_value, tol, tol)


def test_fastpath_switch():
    run = _fast_path_program()

    def switched(lib):
        lib.backends.mha.set_fastpath_enabled(False)
        try:
            assert lib.backends.mha.get_fastpath_enabled() is False
            return run(lib)
        finally:
            lib.backends.mha.set_fastpath_enabled(True)

    (e_result, e_ops), (t_result, t_ops) = switched(ember), switched(torch)
    assert e_ops == t_ops
    assert "aten._native_multi_head_attention.default" not in t_ops
    for e_value, t_value in zip(e_result, t_result, strict=True):
        assert_same_tensor(e_value, t_value, 2e-5, 2e-5)


def test_copy_pickle_load_state_dict_and_old_checkpoints():
    import copy
    import pickle

    def run(lib):
        lib.manual_seed(2)
        module = lib.nn.MultiheadAttention(4, 2, kdim=3, vdim=2, add_bias_kv=True)
        copied, pickled = copy.deepcopy(module), pickle.loads(pickle.dumps(module))
        other = lib.nn.MultiheadAttention(4, 2, kdim=3, vdim=2, add_bias_kv=True)
        loaded = other.load_state_dict(module.state_dict())
        state = module.__getstate__()
        del state["_qkv_same_embed_dim"]  # a PyTorch 1.1 checkpoint
        old = lib.nn.MultiheadAttention.__new__(lib.nn.MultiheadAttention)
        old.__setstate__(state)
        names = [type(m).__module__ + "." + type(m).__qualname__ for m in module.modules()]
        same = all(
            lib.equal(a, b) and lib.equal(a, c) and lib.equal(a, d)
            for a, b, c, d in zip(module.parameters(), copied.parameters(),
                                  pickled.parameters(), other.parameters(), strict=True)
        )  # fmt: skip
        return (repr(copied), repr(loaded), old._qkv_same_embed_dim, names, same,
                lib.nn.modules.activation.MultiheadAttention is lib.nn.MultiheadAttention)  # fmt: skip

    assert [_text(v) for v in run(ember)] == [str(v) for v in run(torch)]


@settings(max_examples=25, deadline=None)
@given(
    batch=st.integers(1, 3), length=st.integers(1, 4), heads=st.sampled_from([2, 4]),
    head_dim=st.integers(1, 3), mask=st.sampled_from([None, 2, 3]), padding=st.booleans(),
    need_weights=st.booleans(), average=st.booleans(), seed=st.integers(0, 2**16),
)  # fmt: skip
def test_fast_path_against_torch(batch, length, heads, head_dim, mask, padding, need_weights,
                                 average, seed):  # fmt: skip
    """Eval, no grad, batch_first self-attention: aten::_native_multi_head_attention with
    the module's merged boolean masks (turned into -inf / 0 and back to bool)."""
    rng = np.random.default_rng(seed)
    embed = heads * head_dim
    x = rng.standard_normal((batch, length, embed))
    attn_mask, kpm = _masks(rng, mask and ("bool", mask), "bool" if padding else None,
                            length, length, batch, heads, True)  # fmt: skip

    def run(lib):
        lib.manual_seed(seed)
        module = lib.nn.MultiheadAttention(embed, heads, batch_first=True).eval()
        q = _tensor(lib, x)
        options = {"need_weights": need_weights, "average_attn_weights": average}
        if attn_mask is not None:
            options["attn_mask"] = lib.tensor(attn_mask)
        if kpm is not None:
            options["key_padding_mask"] = lib.tensor(kpm)
        with lib.no_grad():
            return _record_ops(lib, lambda: module(q, q, q, **options))

    (e_result, e_ops), (t_result, t_ops) = run(ember), run(torch)
    assert e_ops == t_ops
    assert "aten._native_multi_head_attention.default" in t_ops
    for e_value, t_value in zip(e_result, t_result, strict=True):
        assert_same_tensor(e_value, t_value, 2e-5, 2e-5)
