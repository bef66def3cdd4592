"""torch.nn.Module and torch.nn.Parameter against PyTorch 2.13.

Each test is one program run in both libraries (nn_support.both): registration and its
errors, the named_* iterators, state_dict / load_state_dict (keys, values, _metadata,
the strict errors), train / eval, conversions keeping Parameter identity, forward hooks
(order, prepend, with_kwargs, always_call, removal), reprs, and Parameter's behaviour
as a tensor subclass.
"""

from __future__ import annotations

import copy
import warnings

from nn_support import both, close

import ember


def _net(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(lib.arange(6.0).reshape(2, 3))
            self.register_buffer("running", lib.zeros(3))
            self.register_buffer("scratch", lib.ones(1), persistent=False)
            self.register_parameter("absent", None)
            self.inner = nn.Module()
            self.inner.p = nn.Parameter(lib.ones(2))
            self.inner.register_buffer("count", lib.tensor(0))
            self.shared = self.inner

        def forward(self, x, scale=1.0):
            return (x @ self.w + self.running) * scale

    return Net()


def test_named_iterators_and_counts():
    def program(lib, log):
        m = _net(lib)
        log([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()])
        log([n for n, _ in m.named_parameters(prefix="model", recurse=False)])
        log([n for n, _ in m.named_parameters(remove_duplicate=False)])
        log([n for n, _ in m.named_modules()], [n for n, _ in m.named_children()])
        log([n for n, _ in m.named_modules(remove_duplicate=False)])
        log([n for n, _ in m.named_buffers(prefix="x", remove_duplicate=False)])
        log(len(list(m.parameters())), len(list(m.buffers(recurse=False))))
        log(len(list(m.modules())), len(list(m.children())))
        log(sum(p.numel() for p in m.parameters()))
        log([n for n in ("w", "inner", "running", "absent") if n in dir(m)])
        log(m.get_submodule("inner") is m.inner, m.get_parameter("inner.p") is m.inner.p)
        log(m.get_buffer("inner.count"))
        log.attempt(lambda: m.get_submodule("inner.zz"))
        log.attempt(lambda: m.get_submodule("w"))
        log.attempt(lambda: m.get_parameter("running"))
        log.attempt(lambda: m.get_buffer("w"))
        log.attempt(lambda: m.set_submodule("", m))
        m.set_submodule("inner", lib.nn.Module())
        log([n for n, _ in m.named_parameters()])

    both(program)


def test_registration_errors():
    def program(lib, log):
        nn = lib.nn
        m = _net(lib)
        log.attempt(lambda: setattr(m, "w", lib.ones(2)))
        log.attempt(lambda: setattr(m, "inner", 3))
        log.attempt(lambda: setattr(m, "running", "text"))
        log.attempt(lambda: m.register_buffer(3, None))
        log.attempt(lambda: m.register_buffer("a.b", None))
        log.attempt(lambda: m.register_buffer("", None))
        log.attempt(lambda: m.register_buffer("w", None))
        log.attempt(lambda: m.register_buffer("new", [1]))
        log.attempt(lambda: m.register_parameter(1, None))
        log.attempt(lambda: m.register_parameter("a.b", None))
        log.attempt(lambda: m.register_parameter("", None))
        log.attempt(lambda: m.register_parameter("running", None))
        log.attempt(lambda: m.register_parameter("q", lib.ones(1)))
        t = lib.ones(2, requires_grad=True)
        log.attempt(lambda: m.register_parameter("q", nn.Parameter(t) * 2))
        log.attempt(lambda: m.add_module("q", lib.ones(1)))
        log.attempt(lambda: m.add_module(2, None))
        log.attempt(lambda: m.add_module("w", None))
        log.attempt(lambda: m.add_module("a.b", None))
        log.attempt(lambda: m.add_module("", None))
        log.attempt(lambda: m.missing)
        log.attempt(lambda: nn.Module(3))
        log.attempt(lambda: nn.Module(x=3))
        log.attempt(nn.Module().forward)

        class Early(nn.Module):
            def __init__(self, what):
                if what == "module":
                    self.sub = nn.Module()
                elif what == "param":
                    self.p = nn.Parameter(lib.ones(1))
                else:
                    self.register_buffer("b", None)

        for what in ("module", "param", "buffer"):
            log.attempt(lambda what=what: Early(what))

    both(program)


def test_reassignment_moves_between_registries():
    def program(lib, log):
        nn = lib.nn
        m = _net(lib)
        m.running = nn.Parameter(lib.ones(3))  # buffer -> parameter
        m.w = None
        m.inner = None
        m.plain = 5
        m.plain = nn.Module()  # attribute -> module
        m.buf = nn.Buffer(lib.ones(1), persistent=False)
        m.scratch = lib.zeros(2)  # stays non-persistent
        log([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()])
        log(list(m._modules), sorted(m._non_persistent_buffers_set), list(m.state_dict()))
        del m.running, m.buf, m.plain
        log([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()])
        log.attempt(lambda: delattr(m, "nothing"))

    both(program)


def test_state_dict():
    def program(lib, log):
        m = _net(lib)
        sd = m.state_dict()
        log(type(sd).__name__, list(sd.items()), list(sd._metadata.items()))
        log([type(v).__name__ for v in m.state_dict(keep_vars=True).values()])
        log([v.requires_grad for v in sd.values()])
        log(list(m.state_dict(prefix="top.")._metadata.items()))
        dest = {}
        log(m.state_dict(destination=dest, prefix="p.") is dest, list(dest))
        seq = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.Linear(2, 1)))
        log(list(seq.state_dict()), list(seq.state_dict()._metadata.items()))

    both(program)


def test_load_state_dict_and_its_errors():
    def program(lib, log):
        m = _net(lib)
        sd = m.state_dict()
        new = {k: v + 1 for k, v in sd.items()}
        result = m.load_state_dict(new)
        log(repr(result), str(result), result.missing_keys, list(m.state_dict().values()))
        log(m.w.requires_grad, m.w.grad_fn is None, type(m.w).__name__)
        partial = {"w": lib.zeros(2, 3), "extra": lib.ones(1), "inner.extra": lib.ones(1)}
        log.attempt(lambda: m.load_state_dict(partial))
        result = m.load_state_dict(partial, strict=False)
        log(repr(result), result.unexpected_keys, m.w)
        log.attempt(lambda: m.load_state_dict({**sd, "w": lib.zeros(3, 2)}))
        log.attempt(lambda: m.load_state_dict({**sd, "w": 3}))
        log.attempt(lambda: m.load_state_dict([1, 2]))
        log.attempt(lambda: m.load_state_dict({"w": lib.zeros(3, 2), "inner.p": lib.ones(5)}))
        log.attempt(lambda: m.load_state_dict({**sd, "inner.count": lib.tensor([7])}))
        log(m.inner.count)
        w = m.w
        m.load_state_dict({**sd, "w": lib.full((2, 3), 4.0)}, assign=True)
        log(m.w is w, type(m.w).__name__, m.w.requires_grad, m.w)
        lin = lib.nn.Linear(2, 3)
        log.attempt(lambda: lin.load_state_dict({"weight": lib.zeros(2, 2)}))

    both(program)


def test_state_dict_and_load_hooks():
    def program(lib, log):
        lin = lib.nn.Linear(1, 1)
        seen = []
        lin.register_state_dict_pre_hook(lambda mod, prefix, keep: seen.append(("pre", prefix)))
        lin.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta: seen.append(("post", prefix))
        )
        lin.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *rest: seen.append("lpre"))
        lin.register_load_state_dict_post_hook(
            lambda mod, keys: seen.append(("lpost", keys.missing_keys))
        )
        sd = lin.state_dict()
        lin.load_state_dict(sd)
        log(seen)
        lin.register_state_dict_post_hook(lambda *a: 1)
        log.attempt(lin.state_dict)
        lin.register_load_state_dict_post_hook(lambda *a: 1)
        log.attempt(lambda: lin.load_state_dict(sd))

    both(program)


def test_train_eval_requires_grad_apply_zero_grad():
    def program(lib, log):
        nn = lib.nn
        m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1)))
        log([mod.training for mod in m.modules()])
        log(m.eval() is m, [mod.training for mod in m.modules()])
        m.train()
        log([mod.training for mod in m.modules()])
        log.attempt(lambda: m.train(1))
        m.requires_grad_(False)
        log([p.requires_grad for p in m.parameters()])
        m.requires_grad_()
        order = []
        log(m.apply(lambda mod: order.append(type(mod).__name__)) is m, order)
        m(lib.ones(3, 2)).sum().backward()
        m.zero_grad(set_to_none=False)
        log([p.grad for p in m.parameters()])
        m.zero_grad()
        log([p.grad for p in m.parameters()])

    both(program)


def test_conversions_keep_parameter_identity():
    def program(lib, log):
        m = _net(lib)
        w, running = m.w, m.running
        m(lib.ones(1, 2)).sum().backward()
        grad = m.w.grad
        log(m.double() is m, m.w is w, m.w.grad is grad, m.running is running)
        log(m.w, m.w.grad, m.running, m.inner.count, type(m.w).__name__)
        m.float()
        log(m.w.dtype, m.w.grad.dtype, m.inner.count.dtype)
        m.to(lib.float64)
        log(m.w.dtype, m.running.dtype)
        m.to(lib.ones(1, dtype=lib.float32))
        m.to("cpu", lib.float64)
        m.to(dtype=lib.float32)
        log(m.w.dtype, m.w is w, m.w.is_leaf, m.w.requires_grad)
        log.attempt(lambda: m.to(lib.int32))
        m.half()
        log(m.w.dtype, m.inner.count.dtype)
        m.cpu().type(lib.float64)
        log(m.w.dtype, m.inner.count.dtype)

    both(program)


def test_forward_hooks():
    def program(lib, log):
        m = _net(lib)
        calls = []

        def pre(tag, result=None):
            def hook(mod, args):
                calls.append((tag, len(args)))
                return result

            return hook

        m.register_forward_pre_hook(pre("first"))
        m.register_forward_pre_hook(pre("prepended"), prepend=True)
        h = m.register_forward_pre_hook(pre("doubling", (lib.ones(1, 2) * 2,)))
        m.register_forward_pre_hook(
            lambda mod, args, kwargs: (
                calls.append(("kw", sorted(kwargs))) or (args, {"scale": 3.0})
            ),
            with_kwargs=True,
        )
        m.register_forward_hook(lambda mod, args, out: calls.append(("post", out.shape)))
        m.register_forward_hook(lambda mod, args, out: out + 100, prepend=True)
        m.register_forward_hook(
            lambda mod, args, kwargs, out: calls.append(("post-kw", kwargs)), with_kwargs=True
        )
        log(m(lib.ones(1, 2), scale=1.0), calls)
        h.remove()
        h.remove()
        calls.clear()
        log(m(lib.ones(1, 2)), calls)
        with m.register_forward_pre_hook(pre("scoped", lib.zeros(1, 2))):
            log(m(lib.ones(1, 2)))
        log(m(lib.ones(1, 2)))
        bad = m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
        log.attempt(lambda: m(lib.ones(1, 2)))
        bad.remove()

    both(program)


def test_always_called_and_global_hooks():
    def program(lib, log):
        nn = lib.nn
        calls = []

        class Boom(nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        b = Boom()
        b.register_forward_hook(
            lambda mod, args, out: calls.append(("always", out)), always_call=True
        )
        b.register_forward_hook(lambda mod, args, out: calls.append("never"))
        log.attempt(lambda: b(1))
        log(calls)
        calls.clear()
        g1 = nn.modules.module.register_module_forward_pre_hook(
            lambda mod, args: calls.append(("gpre", type(mod).__name__))
        )
        g2 = nn.modules.module.register_module_forward_hook(
            lambda mod, args, out: calls.append(("gpost", type(mod).__name__))
        )
        lin = nn.Linear(2, 1)
        lin.register_forward_pre_hook(lambda mod, args: calls.append("own-pre"))
        nn.Sequential(lin)(lib.ones(2))
        g1.remove()
        g2.remove()
        lin(lib.ones(2))
        log(calls)

    both(program)


def test_reprs():
    def program(lib, log):
        nn = lib.nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4, bias=False)
                self.seq = nn.Sequential(nn.Identity(), nn.Flatten(0), nn.Unflatten(1, (2, 2)))

            def extra_repr(self):
                return "width=4\nmultiline=yes"

        model = nn.ModuleDict(
            {
                "blocks": nn.ModuleList(
                    [Block(), nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2)]
                ),
                "head": nn.Bilinear(2, 3, 4),
                "empty": nn.ModuleList(),
                "params": nn.ParameterList([nn.Parameter(lib.ones(2, 3)), lib.zeros(1), "text"]),
                "pdict": nn.ParameterDict({"b": lib.ones(2, dtype=lib.float64), "a": lib.ones(1)}),
            }
        )
        log(repr(model), repr(nn.Module()), repr(nn.Sequential()))

    both(program)


def test_parameter_is_a_tensor_subclass():
    def program(lib, log):
        nn = lib.nn
        t = lib.tensor([[1.0, -2.0], [3.5, 4.0]])
        p = nn.Parameter(t)
        log(repr(p), repr(nn.Parameter()), repr(nn.Parameter(lib.ones(2), requires_grad=False)))
        log(type(p).__name__, p.requires_grad, t.requires_grad, p.data_ptr() == t.data_ptr())
        log(isinstance(p, lib.Tensor), isinstance(t, nn.Parameter), p.is_leaf)
        log(type(p * 2).__name__, type(p.detach()).__name__, type(p[0]).__name__)
        log(type(p.data).__name__, type(p.clone()).__name__, type(p + p).__name__)
        (p * p).sum().backward()
        log(type(p.grad).__name__, p.grad)
        t.add_(1)
        log(p, p._version)
        p.data = lib.zeros(3, dtype=lib.float64)
        log(type(p).__name__, p)
        with lib.no_grad():
            log(nn.Parameter(lib.ones(1)).requires_grad)
        q = copy.deepcopy(p)
        log(type(q).__name__, q is p, q.data_ptr() != p.data_ptr(), q)
        b = nn.Buffer(lib.ones(2), persistent=False)
        log(type(b).__name__, isinstance(b, nn.Buffer), b.persistent, repr(b))
        log(isinstance(lib.ones(1), nn.Buffer))
        log(repr(nn.Parameter(lib.ones(2, dtype=lib.float64))))

    both(program)


def test_parameter_reduces_to_rebuild_parameter():
    def program(lib, log):
        p = lib.nn.Parameter(lib.tensor([1.0, 2.0]), requires_grad=False)
        q = copy.copy(p)  # through __reduce_ex__
        log(type(q).__name__, q is p, q.data_ptr() == p.data_ptr(), q.requires_grad)
        p.tag = "kept"
        r = copy.copy(p)
        log(r.tag, hasattr(q, "tag"), copy.copy(lib.nn.Parameter()).requires_grad)
        log(p.__reduce_ex__(2)[0].__name__, len(p.__reduce_ex__(2)[1]))

    both(program)


def test_module_deepcopy():
    def program(lib, log):
        lin = lib.nn.Linear(2, 2)
        copied = copy.deepcopy(lin)
        log(copied.weight is lin.weight, type(copied.weight).__name__)
        log(lib.equal(copied.weight, lin.weight), repr(copied), copied.weight.requires_grad)
        seq = lib.nn.Sequential(lin, lin)
        twin = copy.deepcopy(seq)
        log(twin[0] is twin[1], twin[0] is lin, len(list(twin.parameters())))

    both(program)


class _ReLU:
    """A ReLU module built from F.relu in either library."""

    @staticmethod
    def make(lib):
        class ReLU(lib.nn.Module):
            def forward(self, x):
                return lib.nn.functional.relu(x)

        return ReLU()


def test_small_training_program():
    def program(lib, log):
        nn = lib.nn
        lib.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 8), _ReLU.make(lib), nn.Linear(8, 1))
        x = lib.randn(32, 3)
        y = (x[:, :1] * 2 - x[:, 1:2]).sin()
        for _ in range(20):
            loss = nn.functional.mse_loss(model(x), y)
            model.zero_grad()
            loss.backward()
            with lib.no_grad():
                for p in model.parameters():
                    p -= 0.1 * p.grad
            log(loss.item())
        log(list(model.state_dict().values()))

    close(program)


def test_state_dict_round_trip_between_models():
    def program(lib, log):
        nn = lib.nn
        lib.manual_seed(1)
        a = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 2))
        b = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 2))
        log(repr(b.load_state_dict(a.state_dict())))
        x = lib.randn(4, 3)
        log(lib.equal(a(x), b(x)), b(x))

    close(program)


def test_state_dict_positional_arguments_warn():
    lin = ember.nn.Linear(1, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dest = lin.state_dict({}, "p.")
    assert list(dest) == ["p.weight", "p.bias"]
    assert caught[0].category is FutureWarning
    assert str(caught[0].message).startswith("Positional args are being deprecated")


def test_full_backward_hooks():
    def program(lib, log):
        nn = lib.nn
        lib.manual_seed(0)
        lin = nn.Linear(3, 2, dtype=lib.float64)
        seen = []

        def shapes(grads):
            return [None if g is None else tuple(g.shape) for g in grads]

        lin.register_full_backward_pre_hook(lambda m, go: seen.append(("pre", shapes(go))))
        lin.register_full_backward_hook(
            lambda m, gi, go: seen.append(("full", shapes(gi), shapes(go)))
        )
        scale = lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,), prepend=True)
        x = lib.randn(4, 3, dtype=lib.float64, requires_grad=True)
        y = lin(x)
        log(type(y.grad_fn).__name__, y.grad_fn.name())
        y.sum().backward()
        log(seen, x.grad, lin.weight.grad)
        scale.remove()
        seen.clear()
        x.grad = None
        lin(x).sum().backward()
        log(seen, x.grad)
        seen.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lin(lib.randn(2, 3, dtype=lib.float64)).sum().backward()
        log(seen, [str(w.message)[:60] for w in caught])
        with lib.no_grad():
            log(lin(x).grad_fn is None)
        lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 0,))
        x.grad = None
        lin(x).sum().backward()
        log(x.grad)
        lin.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
        log.attempt(lambda: lin(x).sum().backward())

    close(program)


def test_full_backward_hook_with_several_inputs_and_outputs():
    def program(lib, log):
        nn = lib.nn

        class Two(nn.Module):
            def forward(self, a, k, b):
                return a * k, b + 1

        seen = []
        two = Two()
        two.register_full_backward_hook(
            lambda m, gi, go: seen.append(([g is None for g in gi], [g is None for g in go]))
        )
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(3, requires_grad=True)
        first, second = two(a, 3.0, b)
        (first.sum() + second.sum() * 2).backward()
        log(seen, a.grad, b.grad)
        bad = Two()
        bad.register_full_backward_hook(lambda m, gi, go: (None,))
        first, second = bad(a, 3.0, b)
        log.attempt(lambda: first.sum().backward())

    both(program)


def test_meta_device_and_to_empty():
    def program(lib, log):
        lin = lib.nn.Linear(2, 3, device="meta")
        log(lin.weight.device.type, lin.weight.shape, repr(lin.weight))
        w = lin.weight
        lin.to_empty(device="cpu")
        log(lin.weight.device.type, lin.weight is w, lin.weight.shape, type(lin.weight).__name__)
        meta = lib.nn.Linear(2, 2).to("meta")
        log(meta.bias.device.type, meta.bias.requires_grad)
        log.attempt(lambda: meta.to_empty("cpu"))

    both(program)


def test_data_assignment_checks_as_set_data():
    def program(lib, log):
        t = lib.ones(2)
        log.attempt(lambda: setattr(t, "data", lib.ones(2, device="meta")))
        m = lib.ones(2, device="meta")
        m.data = lib.ones(3, device="meta", dtype=lib.float64)
        log(m.device.type, m.shape, m.dtype)
        t.data = lib.ones(3, dtype=lib.int64)
        log(t)
        g = lib.ones(2, requires_grad=True)
        log.attempt(lambda: setattr(g, "data", lib.ones(3, dtype=lib.int64)))
        g.data = lib.zeros(2, 2, dtype=lib.float64)
        log(g, g.requires_grad)
        p = lib.nn.Parameter(lib.ones(2))
        p.data = lib.arange(3.0)
        log(type(p).__name__, p)

    both(program)


def test_legacy_backward_hook():
    def program(lib, log):
        nn = lib.nn
        lib.manual_seed(0)
        lin = nn.Linear(3, 2)
        seen = []

        def shapes(grads):
            return [None if g is None else tuple(g.shape) for g in grads]

        lin.register_backward_hook(lambda m, gi, go: seen.append((shapes(gi), shapes(go))))
        x = lib.randn(4, 3, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lin(x).sum().backward()
        log(seen, [(w.category.__name__, str(w.message)) for w in caught])
        log.attempt(lambda: lin.register_full_backward_hook(lambda *a: None))
        full = nn.Linear(3, 2)
        full.register_full_backward_hook(lambda *a: None)
        log.attempt(lambda: full.register_backward_hook(lambda *a: None))

        class Pair(nn.Module):
            def forward(self, a):
                return (a * 2, a + 1)

        pair = Pair()
        seen.clear()
        pair.register_backward_hook(lambda m, gi, go: seen.append((len(gi), len(go))))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first, second = pair(x)
            (first.sum() + second.sum()).backward()
        log(seen, [str(w.message) for w in caught])
        zeroing = nn.Linear(3, 2)
        zeroing.register_backward_hook(
            lambda m, gi, go: tuple(None if g is None else g * 0 for g in gi)
        )
        x.grad = None
        with warnings.catch_warnings(record=True):
            zeroing(x).sum().backward()
        log(x.grad, zeroing.weight.grad, zeroing.bias.grad)

    both(program)
