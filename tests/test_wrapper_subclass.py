"""Tensor._make_wrapper_subclass and Tensor._make_subclass against PyTorch 2.13.

Each case runs on ``torch`` and on ``ember`` (``lib``) and compares what a program sees:
the key set, dtype, device, sizes, strides, offset, storage bytes, requires_grad, the
shared storage and version counter of ``_make_subclass``, and the errors (type and text).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember

LIBS = {"torch": lambda: torch, "ember": lambda: ember}


def _text(value) -> str:
    return re.sub(r"\btorch\b", "ember", str(value))


def _observe(fn, lib):
    try:
        return ("ok", _text(fn(lib)))
    except Exception as error:  # noqa: BLE001 (the differential compares the error)
        return (type(error).__name__, _text(error))


def _classes(lib):
    class Wrapper(lib.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    class Plain(lib.Tensor):
        pass

    return Wrapper, Plain


def _nbytes(storage) -> int:
    nbytes = storage.nbytes
    return nbytes() if callable(nbytes) else nbytes


def _describe(t, lib):
    return (
        type(t).__name__,
        lib._C._dispatch_keys(t),
        t.dtype,
        t.device,
        tuple(t.shape),
        t.stride(),
        t.storage_offset(),
        t.requires_grad,
        t.is_leaf,
        t.layout,
        _nbytes(t.untyped_storage()),
    )


WRAPPER_CASES = {
    "defaults": dict(),
    "requires_grad": dict(requires_grad=True),
    "float64": dict(dtype="float64"),
    "meta": dict(device="meta"),
    "strides": dict(strides=(1, 2)),
    "strides and offset": dict(strides=(3, 1), storage_offset=2),
    "offset without strides": dict(storage_offset=3),
    "storage_size": dict(storage_size=100),
    "memory_format ignored": dict(memory_format="channels_last"),
    "layout": dict(layout="strided"),
    "pin_memory": dict(pin_memory=False),
    "extra keys": dict(_extra_dispatch_keys="Negative"),
    "extra keys not a set": dict(_extra_dispatch_keys=3),
    "int requires_grad": dict(dtype="int64", requires_grad=True),
    "strides length": dict(strides=(1,)),
    "bad policy": dict(dispatch_sizes_strides_policy="bad"),
    "bad keyword": dict(bogus=1),
    "dtype not a dtype": dict(dtype=3),
}


def _resolve(lib, kwargs):
    out = dict(kwargs)
    for name, value in kwargs.items():
        if name in ("dtype", "memory_format", "layout") and isinstance(value, str):
            out[name] = getattr(lib, value)
        if name == "_extra_dispatch_keys" and isinstance(value, str):
            out[name] = lib._C.DispatchKeySet(getattr(lib._C.DispatchKey, value))
    return out


@pytest.mark.parametrize("name", sorted(WRAPPER_CASES))
def test_make_wrapper_subclass_matches_torch(name):
    kwargs = WRAPPER_CASES[name]

    def run(lib):
        wrapper, _ = _classes(lib)
        made = lib.Tensor._make_wrapper_subclass(wrapper, (2, 3), **_resolve(lib, kwargs))
        return _describe(made, lib)

    assert _observe(run, ember) == _observe(run, torch)


CALL_CASES = {
    "size not a tuple": lambda lib, W, P: lib.Tensor._make_wrapper_subclass(W, 2),
    "no size": lambda lib, W, P: lib.Tensor._make_wrapper_subclass(W),
    "Tensor itself": lambda lib, W, P: lib.Tensor._make_wrapper_subclass(lib.Tensor, (2,)),
    "no __torch_dispatch__": lambda lib, W, P: lib.Tensor._make_wrapper_subclass(P, (2,)),
    "not a Tensor class": lambda lib, W, P: lib.Tensor._make_wrapper_subclass(int, (2,)),
    "not a type": lambda lib, W, P: lib.Tensor._make_wrapper_subclass(3, (2,)),
    "positional strides": lambda lib, W, P: _describe(
        lib.Tensor._make_wrapper_subclass(W, (2,), (3,)), lib
    ),
    "subclass bad keyword": lambda lib, W, P: lib.Tensor._make_subclass(P, lib.ones(2), bogus=2),
    "subclass not a Tensor class": lambda lib, W, P: lib.Tensor._make_subclass(int, lib.ones(2)),
    "subclass not a type": lambda lib, W, P: lib.Tensor._make_subclass(3, lib.ones(2)),
    "subclass data not a tensor": lambda lib, W, P: lib.Tensor._make_subclass(P, 3),
    "subclass require_grad not bool": lambda lib, W, P: lib.Tensor._make_subclass(
        P, lib.ones(2), 1
    ),
    "subclass int require_grad": lambda lib, W, P: lib.Tensor._make_subclass(
        P, lib.ones(2, dtype=lib.int64), True
    ),
    "subclass plain": lambda lib, W, P: _describe(lib.Tensor._make_subclass(P, lib.ones(2)), lib),
    "subclass require_grad": lambda lib, W, P: _describe(
        lib.Tensor._make_subclass(P, lib.ones(2), True), lib
    ),
    "subclass dispatching": lambda lib, W, P: _describe(
        lib.Tensor._make_subclass(W, lib.ones(2)), lib
    ),
    "subclass meta": lambda lib, W, P: _describe(
        lib.Tensor._make_subclass(P, lib.ones(2, device="meta")), lib
    ),
    "subclass backend keys": lambda lib, W, P: lib._C._dispatch_keys(
        lib.Tensor._make_subclass(P, lib.ones(2), device_for_backend_keys=lib.device("meta"))
    ),
    "subclass of a non-leaf detaches": lambda lib, W, P: _describe(
        lib.Tensor._make_subclass(P, lib.ones(2, requires_grad=True) * 2), lib
    ),
    "subclass bad policy": lambda lib, W, P: lib.Tensor._make_subclass(
        P, lib.ones(2), dispatch_sizes_strides_policy="bad"
    ),
}


@pytest.mark.parametrize("name", sorted(CALL_CASES))
def test_calls_match_torch(name):
    def run(lib):
        return CALL_CASES[name](lib, *_classes(lib))

    assert _observe(run, ember) == _observe(run, torch)


@pytest.mark.parametrize("lib_name", ["torch", "ember"])
def test_make_subclass_shares_storage_and_version(lib_name):
    lib = LIBS[lib_name]()
    _, plain = _classes(lib)
    base = lib.ones(2, 3)
    made = lib.Tensor._make_subclass(plain, base)
    assert made.data_ptr() == base.data_ptr() and made is not base
    base.add_(1)
    assert made._version == base._version == 1
    assert made.tolist() == [[2.0] * 3] * 2


@pytest.mark.parametrize("lib_name", ["torch", "ember"])
def test_inference_mode_keys(lib_name):
    """A wrapper made in inference mode is an inference tensor without autograd keys;
    _make_subclass keeps the keys of its (non-inference) data."""
    lib = LIBS[lib_name]()
    wrapper, plain = _classes(lib)
    base = lib.ones(2)
    with lib.inference_mode():
        made = lib.Tensor._make_wrapper_subclass(wrapper, (2,))
        alias = lib.Tensor._make_subclass(plain, base)
    seen = (str(lib._C._dispatch_keys(made)), made.is_inference())
    seen += (str(lib._C._dispatch_keys(alias)), alias.is_inference())
    assert seen == (
        "DispatchKeySet(CPU, Python, AutocastCPU, PythonTLSSnapshot)",
        True,
        "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)",
        False,
    )


def _logging_class(lib, log):
    class Logging(lib.Tensor):
        @staticmethod
        def __new__(cls, elem):
            made = lib.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype)
            made.elem = elem
            return made

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            log.append(str(func))
            unwrapped = [a.elem if isinstance(a, Logging) else a for a in args]
            out = func(*unwrapped, **(kwargs or {}))
            return Logging(out) if isinstance(out, lib.Tensor) else out

    return Logging


ASSOCIATION_CASES = {
    "_make_subclass of a dispatching tensor": lambda lib, L, P: lib.Tensor._make_subclass(
        P, L(lib.ones(2))
    ),
    "as_subclass of a dispatching tensor": lambda lib, L, P: L(lib.ones(2)).as_subclass(P),
    "legacy constructor of a dispatching tensor": lambda lib, L, P: P(L(lib.ones(2))),
    "Tensor of a dispatching tensor": lambda lib, L, P: type(lib.Tensor(L(lib.ones(2)))).__name__,
    "as_subclass to Tensor": lambda lib, L, P: (
        type(L(lib.ones(2)).as_subclass(lib.Tensor)).__name__
    ),
    "as_subclass not a Tensor class": lambda lib, L, P: lib.ones(2).as_subclass(int),
    "as_subclass not a type": lambda lib, L, P: lib.ones(2).as_subclass(3),
    "as_subclass no argument": lambda lib, L, P: lib.ones(2).as_subclass(),
    "as_subclass keyword": lambda lib, L, P: type(lib.ones(2).as_subclass(cls=P)).__name__,
    "wrapper storage data_ptr": lambda lib, L, P: L(lib.ones(2)).untyped_storage().data_ptr(),
    "empty wrapper storage data_ptr": lambda lib, L, P: (
        lib.Tensor._make_wrapper_subclass(L, (0,)).untyped_storage().data_ptr()
    ),
    "meta storage data_ptr": lambda lib, L, P: (
        lib.ones(2, device="meta").untyped_storage().data_ptr()
    ),
    "wrapper data_ptr": lambda lib, L, P: L(lib.ones(2)).data_ptr(),
    "wrapper tolist": lambda lib, L, P: L(lib.ones(2)).tolist(),
    "wrapper numpy": lambda lib, L, P: L(lib.ones(2)).numpy(),
    "wrapper numpy force": lambda lib, L, P: L(lib.ones(2, requires_grad=True)).numpy(force=True),
    "plain subclass tolist": lambda lib, L, P: lib.ones(2).as_subclass(P).tolist(),
    "as_subclass keeps the alias history": lambda lib, L, P: (
        lambda base, made: (
            type(made).__name__,
            type(made.grad_fn).__name__,
            made.requires_grad,
            made._base is base,
        )
    )(*(lambda base: (base, base.as_subclass(P)))(lib.ones(2, requires_grad=True) * 2)),
}


@pytest.mark.parametrize("name", sorted(ASSOCIATION_CASES))
def test_python_object_association_matches_torch(name):
    """A result that already has a Python object of another type cannot become a subclass
    (THPVariable_NewWithVar); what the subclass's handler saw is compared too."""

    def run(lib):
        log = []
        _, plain = _classes(lib)
        try:
            return ASSOCIATION_CASES[name](lib, _logging_class(lib, log), plain), log
        except Exception as error:  # noqa: BLE001 (compared below)
            return (type(error).__name__, _text(error)), log

    assert _observe(run, ember) == _observe(run, torch)


def test_the_usual_call_skips_the_parser_and_gets_what_it_would_give():
    """_make_wrapper_subclass's fast path (exact types, the usual keywords) returns exactly
    the parser's values; anything else goes to the parser."""
    from ember import _tensor_subclass as S

    class W(ember.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    cases = [
        ((W, ember.Size([2, 3])), {}),
        ((W, (2, 3)), {"dtype": ember.float64, "device": ember.device("cpu")}),
        ((W, [4]), {"strides": (1,), "requires_grad": True, "layout": ember.strided}),
        ((W, ()), {"dtype": ember.int32, "strides": []}),
    ]
    for args, kwargs in cases:
        assert S._fast_parse(args, kwargs) == tuple(S._wrapper_parser.parse(args, kwargs)[1])
    for args, kwargs in [
        ((W, (2, True)), {}),
        ((W, (2,)), {"device": "cpu"}),
        ((W, (2,)), {"requires_grad": 1}),
        ((W, (2,)), {"storage_offset": 0, "strides": (1,)}),
        ((W, (2,), (1,)), {}),
    ]:
        assert S._fast_parse(args, kwargs) is None


def _slots(tensor) -> tuple:
    return (
        type(tensor), tensor._sizes, tensor._strides, tensor._storage_offset, tensor.dtype,
        tensor.device, tensor._key_bits, tensor._is_inference, tensor._requires_grad,
        tensor._grad_fn, tensor._python_dispatch, tensor._storage.nbytes, tensor._storage.device,
        tensor._storage.data,
    )  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    sizes=st.lists(st.integers(-1, 4), max_size=3),
    strides=st.one_of(st.none(), st.lists(st.integers(-1, 6), max_size=3)),
    dtype=st.sampled_from([None, "float32", "float64", "int64", "bool", "complex64"]),
    device=st.sampled_from([None, "cpu", "meta"]),
    requires_grad=st.booleans(),
    inference=st.booleans(),
    container=st.sampled_from([list, tuple]),
)
def test_the_usual_wrapper_is_what_the_general_path_builds(
    sizes, strides, dtype, device, requires_grad, inference, container
):
    """_usual_wrapper builds the usual call at once: the same tensor, slot for slot, as the
    general path (parser and checks), or None to leave the call to it."""
    from ember import _tensor_subclass as S

    class W(ember.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    kwargs = {"requires_grad": requires_grad}
    if strides is not None:
        kwargs["strides"] = container(strides)
        if container is tuple and len(strides) == len(sizes) and all(n > 0 for n in sizes):
            kwargs["strides"] = ember.empty(sizes).stride()  # the contiguous ones, often
    if dtype is not None:
        kwargs["dtype"] = getattr(ember, dtype)
    if device is not None:
        kwargs["device"] = ember.device(device)
    with ember.inference_mode(inference):
        made = S._usual_wrapper(
            W, sizes, kwargs.get("strides"), kwargs.get("dtype"), kwargs.get("device"),
            kwargs["requires_grad"], ember.strided,
        )  # fmt: skip
        try:  # make_wrapper_subclass is the general path alone (the entry tries the usual)
            general = S.make_wrapper_subclass(W, sizes, **kwargs)
        except Exception:  # noqa: BLE001 (an error is the general path's to give)
            general = None
    if made is not None:
        assert general is not None
        assert _slots(made) == _slots(general)
        from ember._c10.tensor_impl import TensorImpl

        for name in TensorImpl.__slots__:  # every field set, a slot added later too
            assert name == "__dict__" or hasattr(made, name), name
    usual = all(n >= 0 for n in sizes) and (
        strides is None or (len(strides) == len(sizes) and all(s >= 0 for s in strides))
    )
    if usual and not (requires_grad and dtype in ("int64", "bool")):
        assert made is not None  # the usual call takes the fast path


def test_the_usual_wrapper_leaves_unusual_calls_to_the_general_path():
    from ember import _tensor_subclass as S

    class W(ember.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    class Plain(ember.Tensor):
        pass

    class Unset(ember.Tensor):
        __torch_dispatch__ = None

    for args, kwargs in [
        ((W, (2, True)), {}),
        ((W, (2,)), {"device": "cpu"}),
        ((W, (2,)), {"requires_grad": 1}),
        ((W, (2,)), {"storage_offset": 0, "strides": (1,)}),
        ((W, (2,), (1,)), {}),
        ((W, (2**62, 4)), {}),  # the storage size overflows: the general path's error
        ((Plain, (2,)), {}),  # no __torch_dispatch__: the general path's error
        ((Unset, (2,)), {}),
        ((W, (2,)), {"strides": (1.0,)}),
        ((W, (2,)), {"strides": (True,)}),
        ((int, (2,)), {}),
        ((W, (2,)), {"dtype": "float32"}),
    ]:
        calls = []
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(S, "make_wrapper_subclass", lambda *a, c=calls, **k: c.append((a, k)))
            S._wrapper_entry(*args, **kwargs)
        assert calls == [(args, kwargs)]  # handed on unchanged


@settings(max_examples=150, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 4), max_size=3),
    dtype=st.sampled_from([None, "float32", "float64", "int64", "bool", "complex128"]),
    requires_grad=st.booleans(),
    inference=st.booleans(),
    give_strides=st.booleans(),
)
def test_the_one_frame_path_builds_what_the_general_path_builds(
    sizes, dtype, requires_grad, inference, give_strides
):
    """The second usual call of a class and sizes is built in _wrapper_entry's own frame:
    slot for slot the general path's tensor, or the general path's error."""
    from ember import _tensor_subclass as S

    class W(ember.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    size = ember.Size(sizes)
    kwargs = {"requires_grad": requires_grad}
    if dtype is not None:
        kwargs["dtype"] = getattr(ember, dtype)
    if give_strides:
        kwargs["strides"] = ember.empty(sizes).stride()
    with ember.inference_mode(inference):
        made = []
        for _ in range(2):  # the first call teaches the one-frame path the class and sizes
            try:
                made.append(_slots(S._wrapper_entry(W, size, **kwargs)))
            except Exception as error:  # noqa: BLE001 (compared with the general path's)
                made.append((type(error), str(error)))
        try:
            general = _slots(S.make_wrapper_subclass(W, size, **kwargs))
        except Exception as error:  # noqa: BLE001
            general = (type(error), str(error))
    assert made == [general, general]


def _after_a_change(lib, change):
    class W(lib.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    base = lib.ones(2, 3)
    results = []
    for step in range(2):
        if step == 1:
            change(W, lib)
        try:
            made = lib.Tensor._make_wrapper_subclass(W, base.shape, strides=base.stride())
            results.append(("ok", type(made).__name__))
        except Exception as error:  # noqa: BLE001 (the differential compares the error)
            results.append((type(error).__name__, _text(error)))
    return results


def _drop_dispatch(cls, lib):
    del cls.__torch_dispatch__


def _disable_dispatch(cls, lib):
    cls.__torch_dispatch__ = lib._C._disabled_torch_dispatch_impl


@pytest.mark.parametrize("change", [_drop_dispatch, _disable_dispatch])
def test_a_class_that_loses_its_torch_dispatch_gets_torchs_error(change):
    """The one-frame path remembers a class with the handler it had: a class whose
    __torch_dispatch__ is deleted or disabled afterwards gets the general path's answer."""
    assert _after_a_change(ember, change) == _after_a_change(torch, change)


def test_a_storage_too_large_for_a_dtype_is_refused_on_the_one_frame_path():
    """Sizes the one-frame path knows from a float32 wrapper overflow the storage size as
    complex128: the general path's refusal (PyTorch wraps the byte count around instead)."""
    from ember import _tensor_subclass as S

    class W(ember.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    size = ember.Size([2**60])
    ember.Tensor._make_wrapper_subclass(W, size, dtype=ember.float32)  # 2**62 bytes: fits
    found = []
    for make in (ember.Tensor._make_wrapper_subclass, S.make_wrapper_subclass):
        with pytest.raises(RuntimeError) as info:
            make(W, size, dtype=ember.complex128)
        found.append(str(info.value))
    assert (
        found[0]
        == found[1]
        == ("Storage size calculation overflowed with sizes=[1152921504606846976]")
    )
