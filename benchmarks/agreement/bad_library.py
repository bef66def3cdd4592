"""torch.library / custom_op / torch.ops misuse: bad schemas, duplicates, bad keys, missing ops,
kernels and modes that return what the schema does not promise.

Each case gets a namespace of its own (NS below), so that one case's leftovers
cannot change another's outcome.
"""

from __future__ import annotations

from .harness import Case

L = "torch.library.Library"
DEF = f"lib = {L}('NS', 'DEF')\nlib.define('foo(Tensor x) -> Tensor')\n"

CASES = [
    f"{L}('aten', 'DEF')",
    f"{L}('prim', 'DEF')",
    f"{L}('NS', 'FOO')",
    f"{L}('NS', 'def')",
    f"{L}('NS', 'IMPL', 'Foo')",
    f"{L}('NS', 'IMPL', 'cpu')",
    f"{L}('NS', 'DEF', 'CPU')",
    f"{L}(1, 'DEF')",
    f"{L}('NS')",
    f"{L}('NS::x', 'DEF')",
    f"{L}('', 'DEF')",
    f"a = {L}('NS', 'DEF')\nb = {L}('NS', 'DEF')",
    f"lib = {L}('NS', 'DEF')\nlib.define('foo(Tensor x -> Tensor')",
    f"lib = {L}('NS', 'DEF')\nlib.define('foo(Tensor x) -> Tensor ')",
    f"lib = {L}('NS', 'DEF')\nlib.define('foo (Tensor x) -> Tensor')",
    f"lib = {L}('NS', 'DEF')\nlib.define('f..(Tensor x) -> Tensor')",
    f"lib = {L}('NS', 'DEF')\nlib.define('f.(Tensor x) -> Tensor')",
    f"lib = {L}('NS', 'DEF')\nlib.define('foo.default(Tensor x) -> Tensor')",
    f"lib = {L}('NS', 'DEF')\nlib.define('1foo(Tensor x) -> Tensor')",
    f"lib = {L}('NS', 'DEF')\nlib.define('(Tensor x) -> Tensor')",
    f"lib = {L}('NS', 'DEF')\nlib.define('foo(Tensor x) ->')",
    f"lib = {L}('NS', 'DEF')\nlib.define('foo(Tensor x, Tensor x) -> Tensor')",
    f"lib = {L}('NS', 'DEF')\nlib.define('foo(Tensor x=1) -> Tensor')",
    f"lib = {L}('NS', 'DEF')\nlib.define('foo(Floaty x) -> Tensor')",
    f"lib = {L}('NS', 'DEF')\nlib.define('foo(Tensor(a!) x) -> Tensor(b)')",
    f"lib = {L}('NS', 'DEF')\nlib.define('OTHER::foo(Tensor x) -> Tensor')",
    f"lib = {L}('NS', 'DEF')\nlib.define('foo(Tensor x) -> Tensor', alias_analysis='BOGUS')",
    f"lib = {L}('NS', 'DEF')\nlib.define(123)",
    f"lib = {L}('NS', 'DEF')\nlib.define('foo(Tensor x) -> Tensor', tags='x')",
    DEF + "lib.define('foo(Tensor x) -> Tensor')",
    DEF + "lib.define('foo(Tensor y) -> Tensor')",
    DEF + "lib.define('foo.bar(Tensor y) -> Tensor')\nlib.define('foo.bar(Tensor z) -> Tensor')",
    DEF + "lib.impl('foo', lambda x: x, 'Foo')",
    DEF + "lib.impl('foo', lambda x: x, 'CPU')\nlib.impl('foo', lambda x: x, 'CPU')",
    DEF + "lib.impl(123, lambda x: x, 'CPU')",
    DEF + "lib.impl('foo', 'notcallable', 'CPU')\ntorch.ops.NS.foo(torch.ones(2))",
    DEF + "lib.impl('OTHER::foo', lambda x: x, 'CPU')",
    DEF + "lib.impl('missing', lambda x: x, 'CPU')\ntorch.ops.NS.missing(torch.ones(2))",
    DEF + "lib.impl('foo', lambda x: 'oops', 'CPU')\ntorch.ops.NS.foo(torch.ones(2))",
    DEF + "lib.impl('foo', lambda x: 3, 'CPU')\ntorch.ops.NS.foo(torch.ones(2))",
    DEF + "lib.impl('foo', lambda x: None, 'CPU')\ntorch.ops.NS.foo(torch.ones(2))",
    DEF + "lib.impl('foo', lambda x: (x, x), 'CPU')\ntorch.ops.NS.foo(torch.ones(2))",
    DEF + "lib.impl('foo', lambda x: [x], 'CPU')\ntorch.ops.NS.foo(torch.ones(2))",
    DEF + "lib.impl('foo', lambda: None, 'CPU')\ntorch.ops.NS.foo(torch.ones(2))",
    DEF
    + "lib.impl('foo', lambda x: x, 'CompositeImplicitAutograd')\nlib.impl('foo', lambda x: x, 'CompositeImplicitAutograd')",
    DEF + "torch.ops.NS.foo(torch.ones(2))",
    DEF + "torch.ops.NS.foo(torch.ones(2), torch.ones(2))",
    DEF + "torch.ops.NS.foo()",
    DEF + "torch.ops.NS.foo('a')",
    DEF + "torch.ops.NS.foo(x=torch.ones(2), y=1)",
    DEF + "torch.ops.NS.foo.default(torch.ones(2))",
    DEF + "torch.ops.NS.foo.bar",
    DEF + "lib._destroy()\nlib.define('bar(Tensor x) -> Tensor')",
    DEF + "lib._destroy()\ntorch.ops.NS.foo(torch.ones(2))",
    DEF + "lib.fallback(lambda *a, **k: None, 'CPU')",
    DEF + "torch.library.register_fake('NS::foo', 3)",
    DEF
    + "torch.library.register_fake('NS::foo', lambda x: x)\ntorch.library.register_fake('NS::foo', lambda x: x)",
    DEF + "torch.library.register_autograd('NS::foo', 3)",
    DEF + "torch.library.register_autograd('NS::foo', lambda ctx, g: g, setup_context=3)",
    DEF + "torch.library.impl('NS::foo', 'bogus_device', lambda x: x)",
    DEF + "torch.library.impl('NS::foo', 'cpu', lambda x: 'oops')\ntorch.ops.NS.foo(torch.ones(2))",
    f"lib = {L}('NS', 'IMPL', 'CPU')\nlib.impl('foo', lambda x: x, 'Conjugate')",
    f"lib = {L}('NS', 'IMPL', 'CPU')\nlib.impl('foo', lambda x: x, 'CUDA')",
    f"lib = {L}('NS', 'IMPL')\nlib.define('foo(Tensor x) -> Tensor')",
    f"lib = {L}('NS', 'IMPL')\nlib.impl('foo', lambda x: x, 'CPU')\ntorch.ops.NS.foo(torch.ones(2))",
    f"lib = {L}('NS', 'FRAGMENT')\nlib.fallback(lambda *a, **k: None, 'CPU')",
    f"lib = {L}('_', 'IMPL')\nlib.fallback(1, 'CPU')",
    f"lib = {L}('_', 'IMPL')\nlib.fallback(lambda *a, **k: None, 'Foo')",
    f"lib = {L}('_', 'IMPL')\nlib.fallback(lambda *a, **k: None)",
    "torch.library.register_fake('NS::missing', lambda x: x)",
    "torch.library.register_autograd('NS::missing', lambda ctx, g: g)",
    "torch.library.register_kernel('NS::missing', 'cpu', lambda x: x)",
    "torch.library.register_fake('nonamespace', lambda x: x)",
    "torch.library.register_fake(3, lambda x: x)",
    "torch.library.define('NS::foo', '(Tensor x) -> Tensor', lib=3)",
    "torch.library.define('nonamespace', '(Tensor x) -> Tensor')",
    "torch.library.define('NS::foo ', '(Tensor x) -> Tensor')",
    "torch.library.define('NS::f..', '(Tensor x) -> Tensor')",
    "torch.library.define('NS::foo', 'Tensor x -> Tensor')",
    "torch.library.define('NS::foo', '(Tensor x) -> Tensor')\ntorch.library.define('NS::foo', '(Tensor x) -> Tensor')",
    "torch.ops.NS.missing",
    "torch.ops.aten.add.Foo",
    "torch.ops.aten.nonexistent_op",
    "torch.ops.aten.add.Tensor(1)",
    "torch.ops.aten.add.Tensor(torch.ones(2), 'a')",
    "torch.ops.aten.add.Tensor(torch.ones(2), torch.ones(2), 1)",
    "torch.ops.aten.add.Tensor(torch.ones(2), torch.ones(2), beta=1)",
    "torch.ops.aten.add(torch.ones(2))",
    "torch.ops.aten.add('a', 'b')",
    "torch.ops.aten.mm.default(torch.ones(2, 2))",
    "torch.ops.aten.sum.dim_IntList(torch.ones(2), 'a')",
    "torch.ops.aten.view.default(torch.ones(4), 5)",
    "torch.ops.aten.add.out(torch.ones(2), torch.ones(2))",
    "torch.ops.aten.add_.Tensor(torch.ones(2, dtype=torch.int64), torch.ones(2))",
    "torch.ops.aten.expand.default(torch.ones(2), [-2])",
]

CUSTOM_OP = [
    "@torch.library.custom_op('nonamespace', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x",
    "@torch.library.custom_op('NS::f')\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x):\n    return x",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor):\n    return x",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: dict) -> torch.Tensor:\n    return x",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor) -> dict:\n    return x",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return 'oops'\nf(torch.ones(2))",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x\nf(torch.ones(2))",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\nf('a')",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\nf(torch.ones(2), torch.ones(2))",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\nf.register_kernel('bogus')(lambda x: x)",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\nf.register_autograd(3)",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\nf.register_fake(3)",
    "@torch.library.custom_op('NS::f', mutates_args=('y',))\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()",
    "@torch.library.custom_op('NS::f', mutates_args='x')\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\n@torch.library.custom_op('NS::f', mutates_args=())\ndef g(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor, *args) -> torch.Tensor:\n    return x.clone()",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\nw = torch.ones(2, requires_grad=True)\nf(w).sum().backward()",
    "@torch.library.custom_op('NS::f', mutates_args=(), schema='(Tensor x) -> Tensor bad')\ndef f(x):\n    return x.clone()",
    "@torch.library.custom_op('NS::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x\nf(torch.ones(2))",
    "torch.library.custom_op('NS::f', 3, mutates_args=())",
]

MODES = [
    """class M(torch.utils._python_dispatch.TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return 'oops'
with M():
    r = torch.ones(2) + 1
r""",
    """class M(torch.utils._python_dispatch.TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise RuntimeError('from the mode')
with M():
    torch.ones(2) + 1""",
    """class M(torch.utils._python_dispatch.TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return None
with M():
    r = torch.ones(2).add_(1)
r""",
    """class M(torch.utils._python_dispatch.TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
m = M()
with m:
    with m:
        pass""",
    """class M(torch.utils._python_dispatch.TorchDispatchMode):
    pass
with M():
    torch.ones(2) + 1""",
]


def cases() -> list[Case]:
    out = []
    groups = (("library.library", CASES), ("library.custom_op", CUSTOM_OP), ("library.mode", MODES))
    for category, texts in groups:
        for number, text in enumerate(texts):
            namespace = f"agr_{category.split('.')[1]}_{number}"
            out.append(Case(category, text.replace("NS", namespace)))
    return out
