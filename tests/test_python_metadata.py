"""Sizes, strides, device and layout that ask ``__torch_dispatch__``, against PyTorch 2.13.

``_make_wrapper_subclass`` / ``_make_subclass`` with ``dispatch_sizes_strides_policy``,
``dispatch_device`` or ``dispatch_layout``: each case makes the same subclass on torch and on
ember, reads one piece of metadata with the handler answering from a table, and compares
the answer (or the error's type and text) and the operators the handler was called with.
"""

from __future__ import annotations

import re

import pytest
from oracle import torch

import ember


def _text(value) -> str:
    return re.sub(r"\btorch\b", "ember", str(value))


def _make(lib, answers, calls, policy=None, device=False, layout=False, wrapper=True):
    class Custom(lib.Tensor):
        @staticmethod
        def __new__(cls, data):
            kwargs = {}
            if policy is not None:
                kwargs["dispatch_sizes_strides_policy"] = policy
            if device:
                kwargs["dispatch_device"] = True
            if layout:
                kwargs["dispatch_layout"] = True
            if wrapper:
                return lib.Tensor._make_wrapper_subclass(
                    cls, data.size(), dtype=data.dtype, device=data.device, **kwargs
                )
            return lib.Tensor._make_subclass(cls, data, False, **kwargs)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            calls.append((str(func), [_text(a) for a in args[1:]]))
            answer = answers(lib).get(str(func), NotImplemented)
            if isinstance(answer, Exception):
                raise answer
            return answer

    return Custom(lib.randn(2, 3))


def _observe(lib, read, answers, **flags):
    calls = []
    tensor = _make(lib, answers, calls, **flags)
    del calls[:]
    try:
        outcome = ("ok", _text(read(lib, tensor)))
    except Exception as error:  # noqa: BLE001 (the differential compares the error)
        outcome = (type(error).__name__, _text(error))
    return outcome, calls


READS = {
    "dim": lambda lib, t: t.dim(),
    "ndim": lambda lib, t: t.ndim,
    "ndimension": lambda lib, t: t.ndimension(),
    "size": lambda lib, t: t.size(),
    "size(1)": lambda lib, t: t.size(1),
    "size(-1)": lambda lib, t: t.size(-1),
    "shape": lambda lib, t: t.shape,
    "len": lambda lib, t: len(t),
    "stride": lambda lib, t: t.stride(),
    "stride(1)": lambda lib, t: t.stride(1),
    "stride(5)": lambda lib, t: t.stride(5),
    "numel": lambda lib, t: t.numel(),
    "nelement": lambda lib, t: t.nelement(),
    "storage_offset": lambda lib, t: t.storage_offset(),
    "is_contiguous": lambda lib, t: t.is_contiguous(),
    "is_contiguous(contiguous_format)": lambda lib, t: t.is_contiguous(
        memory_format=lib.contiguous_format
    ),
    "is_contiguous(channels_last)": lambda lib, t: t.is_contiguous(memory_format=lib.channels_last),
    "is_contiguous(preserve_format)": lambda lib, t: t.is_contiguous(
        memory_format=lib.preserve_format
    ),
    "device": lambda lib, t: t.device,
    "is_cpu": lambda lib, t: t.is_cpu,
    "is_meta": lambda lib, t: t.is_meta,
    "get_device": lambda lib, t: t.get_device(),
    "layout": lambda lib, t: t.layout,
    "wrapper data_ptr is 0": lambda lib, t: t.data_ptr() == 0,
    "dtype": lambda lib, t: t.dtype,
    "nbytes": lambda lib, t: t.nbytes,
    "itemsize": lambda lib, t: t.itemsize,
    "is_cuda": lambda lib, t: t.is_cuda,
    "element_size": lambda lib, t: t.element_size(),
}


def _answers(table):
    return lambda lib: {
        name: value(lib) if callable(value) else value for name, value in table.items()
    }


ANSWERS = {
    "all NotImplemented": {},
    "all None": {
        name: None
        for name in (
            "aten.dim.default",
            "aten.sym_size.default",
            "aten.sym_stride.default",
            "aten.sym_numel.default",
            "aten.numel.default",
            "aten.sym_storage_offset.default",
            "aten.is_contiguous.default",
            "aten.is_contiguous.memory_format",
            "prim.device.default",
            "prim.layout.default",
        )
    },  # fmt: skip
    "custom": {
        "aten.dim.default": 2,
        "aten.sym_size.default": [5, 3],
        "aten.sym_stride.default": (4, 2),
        "aten.sym_numel.default": 15,
        "aten.numel.default": 15,
        "aten.sym_storage_offset.default": 7,
        "aten.is_contiguous.default": False,
        "aten.is_contiguous.memory_format": True,
        "prim.device.default": lambda lib: lib.device("meta"),
        "prim.layout.default": lambda lib: lib.sparse_csr,
    },
    "strings": {
        "aten.dim.default": "x",
        "aten.sym_size.default": "x",
        "aten.sym_stride.default": "x",
        "aten.sym_numel.default": "x",
        "aten.numel.default": "x",
        "aten.sym_storage_offset.default": "x",
        "aten.is_contiguous.default": "x",
        "aten.is_contiguous.memory_format": "x",
        "prim.device.default": "meta",
        "prim.layout.default": "x",
    },
    "bools and floats": {
        "aten.dim.default": True,
        "aten.sym_size.default": (2.0, 3),
        "aten.sym_stride.default": (True, 1),
        "aten.sym_numel.default": True,
        "aten.numel.default": 2.5,
        "aten.sym_storage_offset.default": 1.0,
        "aten.is_contiguous.default": 1,
        "aten.is_contiguous.memory_format": 0,
        "prim.device.default": 3,
        "prim.layout.default": None,
    },
    "tensors": {
        "aten.dim.default": lambda lib: lib.tensor(2),
        "aten.sym_size.default": lambda lib: (lib.tensor(2), 3),
        "aten.sym_numel.default": lambda lib: lib.tensor(6),
        "aten.sym_storage_offset.default": lambda lib: lib.tensor(1),
        "aten.is_contiguous.default": lambda lib: lib.tensor(True),
        "prim.device.default": None,
    },
    "raises": {
        name: ValueError("boom")
        for name in (
            "aten.dim.default",
            "aten.sym_size.default",
            "aten.sym_stride.default",
            "aten.sym_numel.default",
            "aten.sym_storage_offset.default",
            "aten.is_contiguous.default",
            "aten.is_contiguous.memory_format",
            "prim.device.default",
            "prim.layout.default",
        )
    },  # fmt: skip
}
FLAGS = {
    "strides": dict(policy="strides"),
    "sizes": dict(policy="sizes"),
    "device": dict(device=True),
    "layout": dict(layout=True),
    "all": dict(policy="sizes", device=True, layout=True),
}


CASES = [
    (read, answers, flags, wrapper)
    for read in sorted(READS)
    for answers in sorted(ANSWERS)
    for flags in sorted(FLAGS)
    for wrapper in (True, False)
    if wrapper or read != "wrapper data_ptr is 0"  # a _make_subclass tensor has an address
]


@pytest.mark.parametrize(("read", "answers", "flags", "wrapper"), CASES)
def test_metadata_reads_match_torch(read, answers, flags, wrapper):
    table = _answers(ANSWERS[answers])
    kwargs = dict(FLAGS[flags], wrapper=wrapper)
    got = _observe(ember, READS[read], table, **kwargs)
    want = _observe(torch, READS[read], table, **kwargs)
    assert got == want


def test_data_ptr_asks_numel_and_keeps_the_address():
    for lib in (torch, ember):
        calls = []
        data = lib.randn(2, 2)
        answers = _answers({"aten.dim.default": 2, "aten.numel.default": None})
        tensor = _make(lib, answers, calls, policy="sizes", wrapper=False)
        del calls[:]
        assert tensor.data_ptr() != 0
        assert calls == [("aten.numel.default", [])]
        zero = _make(lib, _answers({"aten.numel.default": 0}), calls, policy="sizes")
        assert zero.data_ptr() == 0
        del data


def _observe_composite(lib, op_name, answers):
    calls = []
    tensor = _make(lib, answers, calls, policy="strides", wrapper=False)
    del calls[:]
    op = getattr(lib.ops.aten, op_name).default
    args = (tensor, lib.channels_last) if op_name == "is_strides_like_format" else (tensor,)
    try:
        outcome = ("ok", _text(op(*args)))
    except Exception as error:  # noqa: BLE001
        outcome = (type(error).__name__, _text(error))
    return outcome, calls


@pytest.mark.parametrize("answer", [None, True, False, "x", NotImplemented])
@pytest.mark.parametrize("op_name", ["is_strides_like_format", "is_non_overlapping_and_dense"])
def test_stride_predicates_match_torch(op_name, answer):
    table = _answers({f"aten.{op_name}.default": answer})
    assert _observe_composite(ember, op_name, table) == _observe_composite(torch, op_name, table)


def test_contiguous_asks_is_contiguous():
    """contiguous() asks is_contiguous first: True returns the tensor, False goes on to clone
    (which the handler refuses)."""
    for answer in (True, False, None):
        results = []
        for lib in (torch, ember):
            calls = []
            table = _answers({"aten.is_contiguous.default": answer})
            tensor = _make(lib, table, calls, policy="strides")
            del calls[:]
            try:
                outcome = tensor.contiguous() is tensor
            except TypeError as error:
                outcome = _text(error).split(";")[0]
            names = [name for name, _ in calls]
            results.append((outcome, names[0], names[-1]))  # PyTorch asks once more in clone
        assert results[0] == results[1]


def test_a_mode_sees_the_metadata_calls():
    def run(lib):
        from_mode = []

        class Mode(lib.utils._python_dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                from_mode.append(str(func))
                return func(*args, **(kwargs or {}))

        calls = []
        answers = _answers({"aten.dim.default": 2, "aten.sym_size.default": None,
                            "prim.device.default": lambda lib: lib.device("meta")})  # fmt: skip
        tensor = _make(lib, answers, calls, policy="sizes", device=True)
        del calls[:]
        with Mode():
            seen = (tensor.dim(), _text(tensor.size()), _text(tensor.device))
        return seen, from_mode, [name for name, _ in calls]

    assert run(ember) == run(torch)


def test_plain_instances_of_the_class_keep_stored_metadata():
    """A subclass that made one tensor with Python metadata answers for its other tensors
    (and for plain tensors) as before."""
    for lib in (torch, ember):
        calls = []
        custom = _make(lib, _answers({"aten.sym_size.default": [9]}), calls, policy="sizes")
        plain = lib.Tensor._make_wrapper_subclass(type(custom), (4, 5), dtype=lib.float32)
        del calls[:]
        assert plain.size() == (4, 5) and plain.dim() == 2 and plain.device.type == "cpu"
        assert calls == []
        assert lib.ones(2).size() == (2,)


def test_type_as_reads_the_device():
    for lib in (torch, ember):
        calls = []
        answers = _answers({"prim.device.default": lambda lib: lib.device("meta")})
        custom = _make(lib, answers, calls, device=True)
        assert lib.rand(1).type_as(custom).device.type == "meta"


def test_bad_policy_is_refused_as_torch():
    for lib in (torch, ember):
        with pytest.raises(ValueError, match="Unknown sizes_strides_policy: bad"):
            _make(lib, _answers({}), [], policy="bad")


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize(
    "fmt", ["contiguous_format", "preserve_format", "channels_last", "channels_last_3d"]
)
def test_plain_is_contiguous_in_each_format_matches_torch(fmt, transposed):
    def run(lib):
        t = lib.randn(2, 3, 4, 5)
        if transposed:
            t = t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
        return t.is_contiguous(memory_format=getattr(lib, fmt))

    assert run(ember) == run(torch)


def test_other_layouts_are_names_and_factories_refuse_them():
    for name in ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged"):
        assert _text(getattr(ember, name)) == _text(getattr(torch, name))
        assert isinstance(getattr(ember, name), ember.layout)
    with pytest.raises(NotImplementedError, match="ember has no ember.sparse_coo tensors"):
        ember.zeros(2, layout=ember.sparse_coo)


def test_torch_function_comes_first_as_in_torch():
    """A metadata read consults __torch_function__ (the class's, or a mode's) before the
    handler, as PyTorch's Tensor methods do."""

    def run(lib):
        log = []

        class Sized(lib.Tensor):
            @staticmethod
            def __new__(cls, data):
                return lib.Tensor._make_wrapper_subclass(
                    cls, data.size(), dtype=data.dtype, dispatch_sizes_strides_policy="sizes"
                )

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                log.append(("dispatch", str(func)))
                return {"aten.dim.default": 2, "aten.sym_size.default": [7, 8]}.get(str(func))

        class Functioned(Sized):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                log.append(("function", func.__name__))
                return super().__torch_function__(func, types, args, kwargs or {})

        class Mode(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                log.append(("mode", func.__name__))
                return func(*args, **(kwargs or {}))

        sized, functioned = Sized(lib.randn(2, 3)), Functioned(lib.randn(2, 3))
        seen = [_text(sized.size()), _text(functioned.size()), functioned.dim()]
        with Mode():
            seen += [_text(sized.size()), _text(functioned.shape), sized.size(1)]
        return seen, log

    assert run(ember) == run(torch)


@pytest.mark.parametrize(
    "read", ["dim", "size", "stride", "numel", "storage_offset", "is_contiguous", "device"]
)
def test_a_class_without_torch_dispatch_fails_as_torch(read):
    """No __torch_dispatch__ of its own (no Python key): PyTorch's internal asserts, not a
    recursion through Tensor's default handler."""

    def run(lib):
        class Plain(lib.Tensor):
            pass

        tensor = lib.Tensor._make_subclass(
            Plain, lib.randn(2, 3), dispatch_sizes_strides_policy="sizes", dispatch_device=True
        )
        try:
            READS[read](lib, tensor)
        except RuntimeError as error:
            return str(error).split("overloaded_args = ")[0]  # then an address
        return "no error"

    assert run(ember) == run(torch)
