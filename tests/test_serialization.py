"""ember.save / ember.load against torch.save / torch.load (PyTorch 2.13): round trips of
tensors (dtype, shape, strides, values, requires_grad), views that share a storage loading
as views of one storage, containers, Size, dtypes, devices; paths, pathlib.Path and
BytesIO; map_location; weights_only's refusal with PyTorch's exception and message; the
errors of bad files; an optimizer's state_dict saved and resumed."""

import collections
import io
import pathlib
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch

import ember


class Unlisted:
    """A class no weights_only load admits."""

    def __init__(self, value=3) -> None:
        self.value = value

    def __eq__(self, other) -> bool:
        return isinstance(other, Unlisted) and other.value == self.value


def _round_trip(lib, obj, **load_options):
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return lib.load(buffer, **load_options)


def _describe(value):
    """What a loaded object looks like, the same way for both libraries."""
    if hasattr(value, "untyped_storage"):
        return (
            "tensor",
            str(value.dtype).split(".")[-1],
            tuple(value.shape),
            tuple(value.stride()),
            value.storage_offset(),
            value.requires_grad,
            value.is_leaf,
            value.device.type,
            value.detach().numpy().tolist() if value.device.type != "meta" else None,
        )
    if isinstance(value, collections.OrderedDict):
        return ("OrderedDict", [(k, _describe(v)) for k, v in value.items()])
    if isinstance(value, dict):
        return {k: _describe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and type(value).__name__ == "Size":
        return ("Size", tuple(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_describe(v) for v in value])
    if type(value).__name__ in ("dtype", "device"):
        return (type(value).__name__, str(value).replace("ember.", "torch."))
    return (type(value).__name__, value)


def _objects(lib):
    x = lib.arange(12.0).reshape(3, 4)
    return {
        "plain": x,
        "transposed": x.t(),
        "row": x[1],
        "strided": x[:, ::2],
        "int": lib.tensor([[1, -2], [3, 4]], dtype=lib.int16),
        "bool": lib.tensor([True, False]),
        "half": lib.tensor([0.5, 1.25], dtype=lib.float16),
        "double": lib.tensor(2.5, dtype=lib.float64),
        "empty": lib.zeros(0, 3),
        "leaf": lib.tensor([1.0, 2.0], requires_grad=True),
        "state": collections.OrderedDict([("w", lib.ones(2, 2)), ("b", lib.zeros(2))]),
        "containers": [
            1,
            2.5,
            "text",
            None,
            True,
            (3, 4),
            {5, 6},
            b"bytes",
            1 + 2j,
            bytearray(b"q"),
        ],
        "size": lib.Size([2, 3]),
        "dtype": lib.float64,
        "device": lib.device("cpu"),
        "nested": {"a": [lib.ones(1), {"b": (lib.zeros(2),)}]},
    }


def test_round_trips_equal_torch():
    ours = _describe(_round_trip(ember, _objects(ember)))
    theirs = _describe(_round_trip(torch, _objects(torch)))
    assert ours == theirs


def test_views_load_as_views_of_one_storage():
    for lib in (ember, torch):
        x = lib.arange(6.0)
        loaded = _round_trip(lib, [x, x[2:], x.view(2, 3).t()])
        base, tail, view = loaded
        assert tail.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
        assert view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
        assert (tail.storage_offset(), view.stride()) == (2, (1, 3))
        base[3] = 100.0
        assert tail[1].item() == 100.0 and view[0, 1].item() == 100.0
        separate = _round_trip(lib, x[2:])
        storage = separate.untyped_storage()
        # the whole storage is saved (ember's Storage has nbytes as an attribute)
        assert (storage.nbytes if lib is ember else storage.nbytes()) == 6 * 4


@settings(max_examples=25, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=0, max_size=3),
    dtype=st.sampled_from(["float32", "float64", "int64", "int8", "uint8", "bool", "float16"]),
    seed=st.integers(0, 1000),
)
def test_hypothesis_round_trip(shape, dtype, seed):
    values = np.random.default_rng(seed).integers(-5, 6, size=shape)
    results = []
    for lib in (ember, torch):
        tensor = lib.tensor(values).to(getattr(lib, dtype))
        results.append(_describe(_round_trip(lib, {"t": tensor, "view": tensor.flatten()[1:]})))
    assert results[0] == results[1]


def test_paths_and_file_objects(tmp_path):
    for lib in (ember, torch):
        obj = {"t": lib.arange(3), "n": 7}
        path = tmp_path / f"{lib.__name__}.pt"
        lib.save(obj, str(path))
        assert _describe(lib.load(str(path))) == _describe(obj)
        lib.save(obj, pathlib.Path(path))
        assert _describe(lib.load(pathlib.Path(path))) == _describe(obj)
        with open(path, "wb") as handle:
            lib.save(obj, handle)
        with open(path, "rb") as handle:
            assert _describe(lib.load(handle)) == _describe(obj)


@pytest.mark.parametrize(
    "map_location",
    [
        "cpu",
        lambda lib: lib.device("cpu"),
        {"cpu": "cpu"},
        lambda lib: lambda storage, location: storage,
        "meta",
        lambda lib: lib.device("meta"),
    ],
)
def test_map_location(map_location):
    results = []
    for lib in (ember, torch):
        location = map_location(lib) if callable(map_location) else map_location
        loaded = _round_trip(
            lib, [lib.arange(4.0), lib.ones(2, requires_grad=True)], map_location=location
        )
        results.append(_describe(loaded))
    assert results[0] == results[1]


def _message(error) -> tuple:
    return type(error).__name__, str(error).replace("ember.", "torch.")


@pytest.mark.parametrize(
    "obj",
    [
        lambda lib: {"a": Unlisted()},
        lambda lib: [lib.ones(2), print],
        lambda lib: frozenset([1]),
        lambda lib: slice(1, 2),
        lambda lib: np.zeros(2),
    ],
)
def test_weights_only_refusal_equals_torch(obj):
    outcomes = []
    for lib in (ember, torch):
        buffer = io.BytesIO()
        lib.save(obj(lib), buffer)
        buffer.seek(0)
        with pytest.raises(pickle.UnpicklingError) as caught:
            lib.load(buffer)
        outcomes.append(_message(caught.value))
        buffer.seek(0)
        unsafe = lib.load(buffer, weights_only=False)
        if isinstance(unsafe, np.ndarray):
            np.testing.assert_array_equal(unsafe, obj(lib))
        else:
            assert _describe(unsafe) == _describe(obj(lib))
    assert outcomes[0] == outcomes[1]


def test_safe_globals_admit_a_class():
    for lib in (ember, torch):
        buffer = io.BytesIO()
        lib.save({"a": Unlisted(5)}, buffer)
        buffer.seek(0)
        before = lib.serialization.get_safe_globals()
        with lib.serialization.safe_globals([Unlisted]):
            assert lib.load(buffer) == {"a": Unlisted(5)}
        assert {id(g) for g in lib.serialization.get_safe_globals()} == {id(g) for g in before}
        lib.serialization.add_safe_globals([Unlisted])
        buffer.seek(0)
        assert lib.load(buffer) == {"a": Unlisted(5)}
        lib.serialization.clear_safe_globals()
        lib.serialization.add_safe_globals(before)


def _outcome(call, lib, tmp_path):
    try:
        result = call(lib, tmp_path)
        return ("ok", _describe(result))
    except Exception as error:  # noqa: BLE001 (compared with torch's)
        return _message(error)


def _zip(names):
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in names:
            archive.writestr(name, b"x")
    buffer.seek(0)
    return buffer


class _Unseekable:
    def read(self, n=-1):
        return b""

    def readline(self):
        return b""

    def seek(self, *args):
        raise io.UnsupportedOperation("seek")

    def tell(self):
        raise io.UnsupportedOperation("tell")


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, tmp: lib.load(str(tmp / "missing.pt")),
        lambda lib, tmp: lib.save(lib.ones(1), str(tmp / "no" / "dir" / "x.pt")),
        lambda lib, tmp: lib.save(lib.ones(1), 3),
        lambda lib, tmp: lib.load(3),
        lambda lib, tmp: lib.load(_Unseekable()),
        lambda lib, tmp: lib.load(io.BytesIO(b"")),
        lambda lib, tmp: lib.load(io.BytesIO(b"")),
        lambda lib, tmp: lib.load(io.BytesIO(b"\x80\x02K\x05.")),
        lambda lib, tmp: lib.load(io.BytesIO(b"\x80\x02K\x05."), weights_only=False),
        lambda lib, tmp: lib.load(_zip(["foo.txt"])),
        lambda lib, tmp: lib.load(_zip(["archive/foo.txt"])),
        lambda lib, tmp: lib.load(io.BytesIO(), pickle_module=pickle, weights_only=True),
    ],
)
def test_errors_equal_torch(call, tmp_path):
    assert _outcome(call, ember, tmp_path) == _outcome(call, torch, tmp_path)


def test_optimizer_state_dict_saved_and_resumed():
    """An Adam checkpoint (weights, optimizer state with its 'step' tensors) saved and
    loaded resumes training as if never interrupted."""
    rng = np.random.default_rng(0)
    w0, x, y = rng.standard_normal(3), rng.standard_normal((4, 3)), rng.standard_normal(4)

    def train(lib, w, opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            (((lib.tensor(x) * w).sum(1) - lib.tensor(y)) ** 2).mean().backward()
            opt.step()

    for lib in (ember, torch):
        w = lib.tensor(w0, requires_grad=True)
        opt = lib.optim.Adam([w], lr=0.05)
        train(lib, w, opt, 5)
        buffer = io.BytesIO()
        lib.save({"w": w.detach(), "opt": opt.state_dict()}, buffer)
        train(lib, w, opt, 5)
        buffer.seek(0)
        checkpoint = lib.load(buffer)
        w2 = checkpoint["w"].clone().requires_grad_()
        opt2 = lib.optim.Adam([w2], lr=0.05)
        opt2.load_state_dict(checkpoint["opt"])
        assert str(opt2.state[w2]["step"].dtype).endswith("float32")
        train(lib, w2, opt2, 5)
        np.testing.assert_array_equal(w2.detach().numpy(), w.detach().numpy())


def test_requires_grad_of_a_non_leaf_is_kept():
    for lib in (ember, torch):
        a = lib.ones(2, requires_grad=True)
        loaded = _round_trip(lib, a * 2)
        assert loaded.requires_grad and loaded.is_leaf and loaded.grad_fn is None


@pytest.mark.parametrize("writer, reader", [(ember, torch), (torch, ember)])
def test_checkpoints_cross_between_ember_and_torch(writer, reader):
    """ember writes PyTorch's checkpoint format: each library reads what the other saved,
    views still sharing their storage."""
    buffer = io.BytesIO()
    writer.save(_objects(writer), buffer)
    buffer.seek(0)
    loaded = reader.load(buffer)
    assert _describe(loaded) == _describe(_objects(reader))
    assert (
        loaded["row"].untyped_storage().data_ptr() == loaded["plain"].untyped_storage().data_ptr()
    )
    buffer.seek(0)
    meta = reader.load(buffer, map_location="meta")
    assert meta["plain"].device.type == "meta" and tuple(meta["plain"].shape) == (3, 4)


def test_a_torch_optimizer_checkpoint_resumes_in_ember():
    """torch trains and saves (weights + Adam state); ember loads and continues; torch
    continues from the same checkpoint: the same weights (float64)."""
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((4, 3)), rng.standard_normal(4)

    def train(lib, w, opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            (((lib.tensor(x) * w).sum(1) - lib.tensor(y)) ** 2).mean().backward()
            opt.step()

    w = torch.tensor(rng.standard_normal(3), requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.05, momentum=0.9)
    train(torch, w, opt, 5)
    buffer = io.BytesIO()
    torch.save({"w": w.detach(), "opt": opt.state_dict()}, buffer)
    results = []
    for lib in (ember, torch):
        buffer.seek(0)
        checkpoint = lib.load(buffer)
        w2 = checkpoint["w"].clone().requires_grad_()
        opt2 = lib.optim.SGD([w2], lr=0.05, momentum=0.9)
        opt2.load_state_dict(checkpoint["opt"])
        train(lib, w2, opt2, 5)
        results.append(w2.detach().numpy())
    np.testing.assert_array_equal(results[0], results[1])


def test_a_parameter_saves_as_torchs_parameter():
    param = ember.nn.Parameter(ember.arange(3.0))
    buffer = io.BytesIO()
    ember.save({"weight": param}, buffer)
    buffer.seek(0)
    theirs = torch.load(buffer)["weight"]
    assert type(theirs) is torch.nn.Parameter and theirs.requires_grad
    buffer.seek(0)
    ours = ember.load(buffer)["weight"]
    assert type(ours) is ember.nn.Parameter and ours.requires_grad
    assert ours.tolist() == [0.0, 1.0, 2.0]
    buffer = io.BytesIO()
    torch.save({"weight": torch.nn.Parameter(torch.ones(2))}, buffer)
    buffer.seek(0)
    assert type(ember.load(buffer)["weight"]) is ember.nn.Parameter


def test_math_bits_and_parameters_round_trip_as_in_torch():
    def program(lib):
        import io

        out = []
        for value in (
            lib.tensor([1 + 2j, 3 - 1j]).conj(),
            lib.tensor([1.0, 2.0])._neg_view(),
            [lib.nn.Parameter(lib.tensor([1.0, 2.0]))],
        ):
            buffer = io.BytesIO()
            lib.save(value, buffer)
            buffer.seek(0)
            loaded = lib.load(buffer)
            if isinstance(loaded, list):
                out.append((type(loaded[0]).__name__, loaded[0].requires_grad, loaded[0].tolist()))
            else:
                out.append((loaded.is_conj(), loaded.is_neg(), loaded.tolist()))
        return out

    assert program(ember) == program(torch)
