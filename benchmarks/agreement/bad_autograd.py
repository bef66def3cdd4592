"""Autograd misuse: in-place on leaves, backward misuse, grad assignment, hooks, inference tensors,
custom Functions, out= with inputs that require grad."""

from __future__ import annotations

from .harness import Case

LEAF = "w = torch.ones(3, requires_grad=True)\n"

INPLACE_ON_LEAF = [
    "w.add_(1)", "w.mul_(2)", "w.zero_()", "w.fill_(1.0)", "w[0] = 1.0", "w.sin_()", "w.exp_()",
    "w.clamp_(0, 1)", "w.copy_(torch.zeros(3))", "w.neg_()", "w += 1", "w.sub_(w)",
    "w.masked_fill_(torch.tensor([True, False, False]), 0.0)", "w.index_put_((torch.tensor([0]),), torch.tensor(2.0))",
    "w.scatter_(0, torch.tensor([0]), 2.0)", "w.relu_()", "w.unsqueeze_(0)", "w.resize_(4)",
    "w.view(3)[0] = 2", "w[:2].add_(1)", "w.detach_()", "w.t_()", "w.squeeze_()", "w.cumsum_(0)",
    "w.requires_grad_(False)",
]  # fmt: skip

BACKWARD_MISUSE = [
    "(w * 2).backward()",
    "(w * 2).backward(torch.ones(2))",
    "(w * 2).backward(torch.ones(3, 1))",
    "(w * 2).backward(torch.ones(3, dtype=torch.int64))",
    "(w * 2).backward(torch.ones(3, device='meta'))",
    "(w * 2).backward('a')",
    "(w * 2).backward(1.0)",
    "(w * 2).sum().backward(torch.ones(2))",
    "(w * 2).sum().backward(torch.ones(1))",
    "(w * 2).sum().backward(torch.ones(()), retain_graph='x')",
    "y = (w * w).sum(); y.backward(); y.backward()",
    "y = (w.exp()).sum(); y.backward(); y.backward()",
    "y = (w * 2).sum(); y.backward(); y.backward()",
    "torch.ones(3).sum().backward()",
    "w.detach().sum().backward()",
    "with torch.no_grad():\n    y = (w * 2).sum()\ny.backward()",
    "torch.autograd.backward([])",
    "torch.autograd.backward((w * 2).sum(), grad_tensors=[torch.ones(()), torch.ones(())])",
    "torch.autograd.backward([(w * 2).sum(), w.sum()], [torch.ones(())])",
    "torch.autograd.grad((w * 2).sum(), [])",
    "torch.autograd.grad((w * 2).sum(), torch.ones(3))",
    "torch.autograd.grad((w * 2).sum(), [w, torch.ones(3, requires_grad=True)])",
    "torch.autograd.grad((w * 2).sum(), w, grad_outputs=torch.ones(3))",
    "torch.autograd.grad(w * 2, w)",
    "torch.autograd.grad(w.sum(), 'a')",
    "torch.autograd.grad('a', w)",
    "y = (w * w).sum(); torch.autograd.grad(y, w); torch.autograd.grad(y, w)",
    "torch.autograd.grad((w * 2).sum(), w, allow_unused='x')",
    "torch.autograd.grad((w * 2).sum(), w, bogus=1)",
    "torch.autograd.grad((w * 2).sum(), w.detach())",
    "y = w * 2\nw.data = torch.ones(2)\ny.sum().backward()\nw.grad",
    "w.grad = torch.ones(2)",
    "w.grad = torch.ones(3, dtype=torch.int64)",
    "w.grad = torch.ones(3, device='meta')",
    "w.grad = 'a'",
    "w.grad = torch.ones(3, 1)",
    "w.grad = w",
    "x = torch.ones(3)\nx.grad = torch.ones(3)\nx.grad",
    "torch.ones(3, dtype=torch.int64).requires_grad_()",
    "torch.ones(3, dtype=torch.bool).requires_grad_(True)",
    "torch.ones(3, dtype=torch.int64).requires_grad = True",
    "(w * 2).requires_grad_(False)",
    "y = w * 2\ny.requires_grad = False",
    "torch.ones(3).register_hook(lambda g: g)",
    "w.register_hook(1)",
    "w.register_hook(lambda g: torch.ones(2))\n(w * 2).sum().backward()",
    "w.register_hook(lambda g: torch.ones(3, dtype=torch.int64))\n(w * 2).sum().backward()\nw.grad",
    "w.register_hook(lambda g: 'a')\n(w * 2).sum().backward()",
    "y = w * 2\ny.register_hook(lambda g: torch.ones(4))\ny.sum().backward()",
    "w.register_post_accumulate_grad_hook(1)",
    "(w * 2).register_post_accumulate_grad_hook(lambda p: None)",
    "torch.ones(3).retain_grad()",
    "y = w.exp()\nw.data.mul_(2)\ny.sum().backward()\nw.grad",
    "y = w.exp()\ny.add_(1)\ny.sum().backward()\nw.grad",
    "y = w * 1\nz = y.sigmoid()\ny.mul_(2)\nz.sum().backward()",
    "y = w * 1\nz = y.tanh()\nz.add_(1)\nz.sum().backward()",
    "y = w * 1\nz = y.exp()\nz.zero_()\nz.sum().backward()",
    "y = w * 1\nz = y * y\ny[0] = 0\nz.sum().backward()",
    "a = w * 1\nv = a[:2]\nv.mul_(2)\nb = a.exp()\na.add_(1)\nb.sum().backward()",
    "torch.add(w, 1, out=torch.ones(3))",
    "torch.mul(w, w, out=torch.ones(3))",
    "torch.exp(w, out=torch.ones(3))",
    "torch.sum(w, 0, out=torch.ones(()))",
    "torch.mm(w.view(3, 1), w.view(1, 3), out=torch.ones(3, 3))",
    "torch.cat([w, w], out=torch.ones(6))",
    "torch.add(torch.ones(3), 1, out=w)",
    "torch.exp(torch.ones(3), out=w)",
    "w.backward()",
    "w[0].backward(); w[0].backward(); w.grad",
    "w.sum().backward(inputs=[])",
    "w.sum().backward(inputs=[torch.ones(3)])",
    "(w * 2).sum().backward(inputs=[w.detach()])",
]

INFERENCE = [
    "with torch.inference_mode():\n    x = torch.ones(3)\nx.requires_grad_()",
    "with torch.inference_mode():\n    x = torch.ones(3)\nx.add_(1)",
    "with torch.inference_mode():\n    x = torch.ones(3)\nx[0] = 2",
    "with torch.inference_mode():\n    x = torch.ones(3)\nx.zero_()",
    "with torch.inference_mode():\n    x = torch.ones(3)\nx.copy_(torch.zeros(3))",
    "with torch.inference_mode():\n    x = torch.ones(3)\nx.resize_(4)",
    "with torch.inference_mode():\n    x = torch.ones(3)\ntorch.add(torch.ones(3), 1, out=x)",
    "with torch.inference_mode():\n    x = torch.ones(3)\n(x * w).sum().backward()",
    "with torch.inference_mode():\n    x = torch.ones(3)\ny = torch.mm(x.view(1, 3), w.view(3, 1))\ny.sum().backward()",
    "with torch.inference_mode():\n    x = torch.ones(3)\nx.view(3).add_(1)",
    "with torch.inference_mode():\n    x = torch.ones(3)\nx.unsqueeze_(0)",
    "with torch.inference_mode():\n    x = torch.ones(3)\nx.t_()",
    "with torch.inference_mode():\n    x = torch.ones(3)\nx.detach_()",
    "with torch.inference_mode():\n    x = torch.ones(3)\ny = w * 2\nwith torch.inference_mode():\n    y.add_(x)",
    "with torch.inference_mode():\n    x = torch.ones(3, requires_grad=True)\nx.grad_fn, x.requires_grad, (x * 2).requires_grad",
    "with torch.inference_mode():\n    y = w * 2\ny.sum().backward()",
    "y = w * 2\nwith torch.inference_mode():\n    y.mul_(2)",
    "v = torch.ones(3)\nwith torch.inference_mode():\n    v.add_(1)\n    z = v.view(3)\nz.add_(1)",
    "with torch.inference_mode():\n    x = torch.ones(3)\nw.mul(x).exp().sum().backward()\nw.grad",
    "torch.inference_mode('x')",
    "with torch.inference_mode(mode=1, extra=2):\n    pass",
    "with torch.no_grad(1):\n    pass",
    "torch.set_grad_enabled('x')",
    "torch.set_grad_enabled()",
    "with torch.enable_grad(True):\n    pass",
]

FUNCTION_MISUSE = [
    # a custom Function whose backward returns the wrong number or shape of gradients
    """class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * 2 + y
    @staticmethod
    def backward(ctx, g):
        return g
Twice.apply(w, w).sum().backward()""",
    """class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return torch.ones(5)
Bad.apply(w).sum().backward()""",
    """class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return 'a'
Bad.apply(w).sum().backward()""",
    """class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return 3
Bad.apply(w)""",
    """class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
Bad.apply(w).sum().backward()""",
    """class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x, 3)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g
Bad.apply(w)""",
    """class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g, g
Bad.apply(w).sum().backward()""",
    """class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g.to(torch.float64)
Bad.apply(w).sum().backward()
w.grad.dtype""",
    """class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x * 2
Bad.apply(w * 1)""",
    "torch.autograd.Function()(w)",
    "torch.autograd.Function.apply(w)",
]


def _case(category: str, text: str) -> Case:
    return Case(category, LEAF + text, "w = leaf(3); " + text.replace("\n", "; "))


def cases() -> list[Case]:
    out = [_case("autograd.inplace_leaf", text + "\nw") for text in INPLACE_ON_LEAF]
    out += [_case("autograd.backward", text) for text in BACKWARD_MISUSE]
    out += [_case("autograd.inference", text) for text in INFERENCE]
    out += [_case("autograd.function", text) for text in FUNCTION_MISUSE]
    return out
