"""torch.Stream and Tensor.record_stream against PyTorch 2.13 CPU: both constructor
signatures and their errors, the attributes (read-only), repr, hash, comparisons, the
device, query/synchronize/is_capturing/native_handle per device type, ``with``, subclasses;
record_stream refused on CPU (no kernel), its argument errors, and a Stream passed through
``__torch_dispatch__`` both as an argument and as a custom op's return value.

Each program runs with ``torch`` and with ``ember`` standing for it; what it prints must be
the same (ember spells its own types ``ember.X`` where torch prints ``torch.X``).
"""

from __future__ import annotations

import importlib

import pytest
from oracle import torch as _torch

import ember


def _outcome(f):
    try:
        result = f()
    except Exception as error:  # noqa: BLE001 (the outcome is the exception)
        return (type(error).__name__, str(error).split("\n")[0])
    return result if isinstance(result, (bool, int, type(None))) else repr(result)


def _normalised(lines):
    return [str(line).replace("ember.", "torch.") for line in lines]


CONSTRUCTIONS = [
    ((), {}),
    ((), {"stream_id": 1, "device_index": 2, "device_type": 3}),
    ((1, 2, 3), {}),
    ((), {"stream_id": 5}),
    ((), {"device_type": 0}),
    ((1,), {}),
    ((1, 2), {}),
    (("cpu",), {}),
    (("cpu:1",), {}),
    (("meta:3",), {"priority": -1}),
    ((None,), {}),
    ((), {"device": None, "priority": 5}),
    (("cuda",), {}),
    (("opengl",), {}),
    (("xla",), {}),
    (("privateuseone",), {}),
    ((), {"stream_id": "a", "device_index": 2, "device_type": 3}),
    ((), {"stream_id": 2**70, "device_index": 2, "device_type": 3}),
    ((), {"stream_id": 1, "device_index": 200, "device_type": 3}),
    ((), {"stream_id": 1, "device_index": 2, "device_type": 300}),
    ((), {"stream_id": 1, "device_index": 2, "device_type": 256}),
    ((), {"stream_id": 1, "device_index": 2, "device_type": -1}),
    ((), {"stream_id": 1, "device_index": 2, "device_type": 21}),
    ((), {"stream_id": 1, "device_index": 2, "device_type": 3, "priority": 4}),
]


@pytest.mark.parametrize("args, kwargs", CONSTRUCTIONS)
def test_construction_as_torch(args, kwargs):
    def run(torch):
        return _outcome(lambda: torch.Stream(*args, **kwargs))

    assert _normalised([run(ember)]) == _normalised([run(_torch)])


def _per_device_type(torch, device_type):
    stream = torch.Stream(
        stream_id=device_type, device_index=device_type - 1, device_type=device_type
    )

    def enter_exit():
        with stream as entered:
            return entered is stream

    return [
        repr(stream), repr(stream.device), str(stream),
        (stream.stream_id, stream.device_index, stream.device_type, hash(stream)),
        _outcome(stream.query), _outcome(stream.synchronize), _outcome(stream.is_capturing),
        _outcome(lambda: stream.native_handle), _outcome(enter_exit),
    ]  # fmt: skip


@pytest.mark.parametrize("device_type", range(21))
def test_each_device_type_as_torch(device_type):
    assert _normalised(_per_device_type(ember, device_type)) == _normalised(
        _per_device_type(_torch, device_type)
    )


def _value_semantics(torch):
    stream_type = torch.Stream
    out = []
    triples = [(0, -1, 0), (-1, -1, 0), (2**62, 127, 20), (-(2**63), -128, 1), (7, 3, 14)]
    out.append(
        [hash(stream_type(stream_id=i, device_index=j, device_type=k)) for i, j, k in triples]
    )
    a = stream_type(stream_id=1, device_index=2, device_type=3)
    b = stream_type(1, 2, 3)
    out.append((a == b, a != b, a == stream_type(), a != stream_type(), a < b, a > b, a <= b))
    out.append((a >= b, a == None, a != None, len({a, b, stream_type()})))  # noqa: E711
    out.append(_outcome(lambda: setattr(a, "stream_id", 1)))
    out.append(_outcome(lambda: setattr(a, "device", 1)))
    out.append(_outcome(lambda: setattr(a, "foo", 1)))
    out.append(_outcome(lambda: setattr(a, "query", 1)))
    for call in (lambda: a.query(1), lambda: a.synchronize(x=1), lambda: a.__enter__(1)):
        out.append(_outcome(call))

    class Sub(stream_type):
        pass

    sub = Sub(stream_id=1, device_index=2, device_type=3)
    sub.extra = 1
    out.append((type(sub).__name__, repr(sub), sub == a, type(Sub()).__name__, sub.extra))
    out.append((isinstance(stream_type(), stream_type), stream_type.__name__))
    return out


def test_value_semantics_as_torch():
    assert _normalised(_value_semantics(ember)) == _normalised(_value_semantics(_torch))


def _record_stream(torch):
    dispatch = importlib.import_module(torch.__name__ + ".utils._python_dispatch")
    out = []
    t = torch.tensor(5.0)
    s = torch.Stream(stream_id=1, device_index=2, device_type=3)
    for call in (
        lambda: t.record_stream(torch.Stream()),
        lambda: t.record_stream(s),
        lambda: t.record_stream(1),
        lambda: t.record_stream(None),
        lambda: t.record_stream(),
        lambda: t.record_stream(s, s),
        lambda: t.record_stream(s=s),
        lambda: torch.ops.aten.record_stream.default(t, s),
    ):
        out.append(_outcome(call))
    out.append(str(torch.ops.aten.record_stream.default._schema))

    class Mode(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out.append((str(func), [type(a).__name__ for a in args], repr(args[1]), kwargs))
            return None

    with Mode():
        out.append(t.record_stream(s))
        out.append(torch.ops.aten.record_stream.default(t, torch.Stream()))
    out.append(t._version)
    has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key
    out.append([has_kernel("aten::record_stream", key) for key in ("CPU", "ADInplaceOrView")])
    return out


def test_record_stream_as_torch():
    assert _normalised(_record_stream(ember)) == _normalised(_record_stream(_torch))


def _returned_stream(torch, namespace):
    library = importlib.import_module(torch.__name__ + ".library")
    dispatch = importlib.import_module(torch.__name__ + ".utils._python_dispatch")
    out = []
    lib = library.Library(namespace, "DEF")
    lib.define("give_stream(Tensor self) -> Stream")
    impl = library.Library(namespace, "IMPL", "CPU")
    impl.impl("give_stream", lambda t: torch.Stream(stream_id=0, device_index=1, device_type=2))
    op = getattr(torch.ops, namespace).give_stream
    t = torch.tensor(5.0)
    out.append(repr(op(t)))

    class Mode(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return torch.Stream(stream_id=1, device_index=2, device_type=3)

    with Mode():
        out.append(repr(op(t)))
    out.append(str(op.default._schema))
    return out


def test_a_stream_returned_through_a_mode_as_torch():
    assert _normalised(_returned_stream(ember, "ember_stream_test")) == _normalised(
        _returned_stream(_torch, "ember_stream_test")
    )
