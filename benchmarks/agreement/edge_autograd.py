"""Valid autograd: requires_grad propagation, grad_fn names, gradient values of many ops
(ties, boundaries, views, overlapping views, ops users hit), hooks, modes, version counters."""

from __future__ import annotations

from .harness import Case

W = "w = torch.tensor([[0.5, -1.0, 2.0], [0.0, 3.0, -0.5]], requires_grad=True)\n"

# Expressions of w whose result's grad_fn and w's gradient (through .sum()) are compared.
GRADS = [
    "w * 2", "w + 1", "w - w", "w / 3", "2 / (w + 5)", "w ** 2", "w ** 0.5", "2 ** w", "w.exp()",
    "w.log()", "w.sqrt()", "w.sin()", "w.cos()", "w.tanh()", "w.sigmoid()", "w.relu()", "w.abs()",
    "w.neg()", "w.sign()", "w.rsqrt()", "w.log1p()", "w.clamp(0, 1)", "w.clamp(min=0.5)",
    "w.clamp(max=torch.zeros(3))", "torch.maximum(w, torch.zeros(2, 3))", "torch.minimum(w, w.detach())",
    "w.sum(0)", "w.sum((0, 1), keepdim=True)", "w.mean(1)", "w.prod()", "w.prod(1)", "w.amax(1)",
    "w.amin()", "w.max()", "w.max(1).values", "w.min(0)[0]", "w.std()", "w.var(1, correction=0)",
    "w.logsumexp(1)", "w.norm()", "w.norm(p=1)", "w.cumsum(1)", "w.softmax(1)", "w.log_softmax(0)",
    "w.sort(1).values", "w.topk(2, 1).values", "w.t()", "w.view(6)", "w.reshape(3, 2)",
    "w.permute(1, 0)", "w.transpose(0, 1).contiguous()", "w.unsqueeze(0)", "w.squeeze()",
    "w.expand(4, 2, 3)", "w[0]", "w[:, 1:]", "w[:, [0, 0, 2]]", "w[w > 0]", "w[None, ..., 1]",
    "w[[0, 1], [2, 2]]", "w.narrow(1, 1, 2)", "w.select(1, 0)", "w.flatten()", "w.unflatten(1, (3, 1))",
    "w.flip(1)", "w.roll(1, 1)", "w.diagonal()", "w.tril()", "w.triu(1)", "w.movedim(0, 1)",
    "w.unfold(1, 2, 1)", "w.as_strided((2, 2), (1, 1))", "w.split(1, 1)[1]", "w.chunk(2, 0)[0]",
    "w.unbind(1)[2]", "torch.cat([w, w * 2])", "torch.stack([w, w], 2)", "w.index_select(1, torch.tensor([2, 2]))",
    "w.gather(1, torch.tensor([[0, 0], [2, 1]]))", "w.scatter(1, torch.tensor([[0], [1]]), 0.0)",
    "w.masked_fill(w < 0, 0.0)", "torch.where(w > 0, w, w * 3)", "w.mm(w.t())", "w.t().matmul(w)",
    "torch.outer(w[0], w[1])", "torch.dot(w[0], w[1])", "torch.addmm(w, w, torch.ones(3, 3))",
    "torch.bmm(w.unsqueeze(0), w.t().unsqueeze(0))", "w.to(torch.float64)", "w.double()", "w.clone()",
    "w.contiguous()", "w.detach() + w", "F.relu(w)", "F.linear(w, torch.ones(4, 3))",
    "F.linear(w, torch.ones(4, 3), torch.ones(4))", "F.softmax(w, 1)", "F.gelu(w)",
    "F.mse_loss(w, torch.zeros(2, 3))", "F.cross_entropy(w, torch.tensor([2, 0]))",
    "F.nll_loss(w.log_softmax(1), torch.tensor([1, 1]))", "w.index_put((torch.tensor([0]),), torch.tensor(5.0))",
    "torch.index_put(w, (torch.tensor([0, 0]), torch.tensor([1, 1])), torch.tensor(1.0), accumulate=True)",
]  # fmt: skip

ZERO_DIM = [
    "s = torch.tensor(2.0, requires_grad=True)\n(s * 3).backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.mean(dim=0).backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.sum(0).backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.relu().backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.index_select(0, torch.tensor([0])).sum().backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.gather(0, torch.tensor(0)).backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.unsqueeze(0).expand(3).sum().backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.softmax(0).backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.cumsum(0).backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.flip(0).backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.max().backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.amax(0).backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.view(1, 1).sum().backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns[None].sum().backward()\ns.grad",
    "s = torch.tensor(2.0, requires_grad=True)\ns.roll(1).backward()\ns.grad",
]

MISC = [
    "(w * 2).requires_grad, (w * 2).is_leaf, w.is_leaf, type((w * 2).grad_fn).__name__",
    "(w.detach() * 2).requires_grad",
    "(torch.ones(3) * 2).grad_fn",
    "(w > 0).requires_grad, (w > 0).grad_fn",
    "w.argmax().requires_grad",
    "w.sort(1).indices.requires_grad",
    "(w * 1).to(torch.int64).requires_grad",
    "w.view(torch.int32).requires_grad",
    "with torch.no_grad():\n    y = w * 2\ny.requires_grad, y.grad_fn, y.is_leaf",
    "with torch.no_grad():\n    v = w.view(6)\nv.requires_grad, v.grad_fn",
    "with torch.enable_grad():\n    with torch.no_grad():\n        a = torch.is_grad_enabled()\n    b = torch.is_grad_enabled()\na, b",
    "with torch.set_grad_enabled(False):\n    y = w + 1\ny.requires_grad, torch.is_grad_enabled()",
    "with torch.inference_mode():\n    y = w * 2\ny.requires_grad, y.is_inference(), torch.is_inference_mode_enabled()",
    "with torch.inference_mode():\n    y = torch.ones(2)\ny.is_inference(), (y + 1).is_inference(), y.requires_grad",
    "with torch.inference_mode(False):\n    y = w * 2\ny.requires_grad, y.is_inference()",
    "with torch.inference_mode():\n    with torch.inference_mode(False):\n        y = w * 2\ny.requires_grad, y.is_inference(), type(y.grad_fn).__name__",
    "y = w * 2\ny.retain_grad()\ny.sum().backward()\ny.grad",
    "y = w * 2\ny.sum().backward()\ny.grad, y.retains_grad",
    "y = (w * w).sum()\ny.backward(retain_graph=True)\ny.backward()\nw.grad",
    "(w * 2).sum().backward()\n(w * 3).sum().backward()\nw.grad",
    "w.register_hook(lambda g: g * 10)\n(w * 2).sum().backward()\nw.grad",
    "y = w * 2\ny.register_hook(lambda g: g + 1)\ny.sum().backward()\nw.grad",
    "calls = []\nw.register_post_accumulate_grad_hook(lambda p: calls.append(p.grad.sum().item()))\n(w * 2).sum().backward()\ncalls",
    "h = w.register_hook(lambda g: g * 0)\nh.remove()\nw.sum().backward()\nw.grad",
    "y = (w * 2).sum()\ng, = torch.autograd.grad(y, w)\ng, w.grad",
    "y = (w ** 3).sum()\ng, = torch.autograd.grad(y, w, create_graph=True)\ng.requires_grad, type(g.grad_fn).__name__",
    "y = (w ** 3).sum()\ng, = torch.autograd.grad(y, w, create_graph=True)\ng.sum().backward()\nw.grad",
    "u = torch.ones(3, requires_grad=True)\ny = (w * 2).sum()\ntorch.autograd.grad(y, [w, u], allow_unused=True)[1]",
    "u = torch.ones(3, requires_grad=True)\ny = (w * 2).sum()\ntorch.autograd.grad(y, [w, u], allow_unused=True, materialize_grads=True)[1]",
    "y = w * 2\ny.backward(torch.ones(2, 3) * 3)\nw.grad",
    "y = w * 2\ntorch.autograd.backward([y.sum(), (w * 5).sum()])\nw.grad",
    "y = w.sum()\ny.backward(inputs=[w])\nw.grad",
    "a = w * 1\na.add_(1)\ntype(a.grad_fn).__name__, a._version",
    "a = w * 1\na[0] = 5\ntype(a.grad_fn).__name__\n",
    "a = w * 1\na[0] = 5\na.sum().backward()\nw.grad",
    "a = w * 1\nv = a[0]\nv.mul_(3)\na.sum().backward()\n(w.grad, type(a.grad_fn).__name__, type(v.grad_fn).__name__)",
    "a = w * 1\na.t_()\na.sum().backward()\nw.grad",
    "a = w * 1\na.unsqueeze_(0)\n(type(a.grad_fn).__name__, a.shape)",
    "a = w.exp()\nb = a * 1\nb.add_(1)\nb.sum().backward()\nw.grad",
    "a = w.clone()\na.relu_()\na.sum().backward()\nw.grad",
    "a = w.clone()\na.sigmoid_()\na.sum().backward()\nw.grad",
    "a = w.clone()\na.clamp_(-0.5, 0.5)\na.sum().backward()\nw.grad",
    "a = w.clone()\na.masked_fill_(a > 1, 0.0)\na.sum().backward()\nw.grad",
    "a = w.clone()\na.copy_(torch.ones(2, 3) * 4)\na.sum().backward()\nw.grad",
    "a = torch.zeros(2, 3)\na.copy_(w)\na.sum().backward()\n(a.requires_grad, w.grad)",
    "a = torch.zeros(2, 3)\na[0] = w[1]\n(a.requires_grad, type(a.grad_fn).__name__)",
    "a = torch.zeros(2, 3)\na.add_(w)\n(a.requires_grad, a.is_leaf, type(a.grad_fn).__name__)",
    "x = w.detach()\nx.requires_grad_()\n(x.is_leaf, x.requires_grad, x.grad_fn)",
    "w.detach().requires_grad, w.detach().is_leaf, w.detach()._version",
    "with torch.no_grad():\n    w.add_(1)\n(w.requires_grad, w.grad_fn, w._version)",
    "with torch.no_grad():\n    w[0] = 0\nw",
    "w.data.add_(1)\n(w, w._version)",
    "w.data = torch.zeros(2, 3)\n(w, w.requires_grad)",
    "w.grad = torch.ones(2, 3)\n(w * 2).sum().backward()\nw.grad",
    "w.grad = None\n(w * 2).sum().backward()\nw.grad",
    "w.requires_grad_(False)\n(w * 2).requires_grad",
    "x = torch.ones(2, requires_grad=True)\ny = x.to(torch.float64)\ny.sum().backward()\n(x.grad, x.grad.dtype)",
    "x = torch.ones(2, dtype=torch.float16, requires_grad=True)\n(x * 2).sum().backward()\nx.grad",
    "x = torch.ones(2, dtype=torch.float64, requires_grad=True)\n(x * torch.ones(2)).sum().backward()\nx.grad",
    "x = torch.ones(2, requires_grad=True)\n(x * torch.tensor(2.0, dtype=torch.float64)).sum().backward()\nx.grad",
    "x = torch.tensor([1 + 1j], requires_grad=True)\n(x * x).abs().sum().backward()\nx.grad",
    "x = torch.ones(0, requires_grad=True)\nx.sum().backward()\nx.grad",
    "x = torch.ones(3, requires_grad=True)\nx.expand(2, 3).sum().backward()\nx.grad",
    "x = torch.ones(4, requires_grad=True)\nx.as_strided((3,), (0,)).sum().backward()\nx.grad",
    "x = torch.arange(4., requires_grad=True)\nx.as_strided((2, 2), (1, 1)).sum().backward()\nx.grad",
    "x = torch.arange(4., requires_grad=True)\nx.unfold(0, 2, 1).sum().backward()\nx.grad",
    "x = torch.arange(4., requires_grad=True)\nx[torch.tensor([0, 0, 1])].sum().backward()\nx.grad",
    "x = torch.arange(6., requires_grad=True).view(2, 3)\nx.retain_grad()\nx[:, None, [0, 2]].sum().backward()\nx.grad",
    "x = torch.tensor([1.0, 1.0, 0.5], requires_grad=True)\nx.max().backward()\nx.grad",
    "x = torch.tensor([1.0, 1.0, 0.5], requires_grad=True)\nx.amax().backward()\nx.grad",
    "x = torch.tensor([1.0, 1.0, 0.5], requires_grad=True)\nx.max(0).values.backward()\nx.grad",
    "x = torch.tensor([0.0, 0.0], requires_grad=True)\nx.norm().backward()\nx.grad",
    "x = torch.tensor([0.0, 2.0], requires_grad=True)\nx.prod().backward()\nx.grad",
    "x = torch.tensor([0.0, 0.0, 2.0], requires_grad=True)\nx.prod().backward()\nx.grad",
    "x = torch.tensor([0.0, -0.0], requires_grad=True)\nx.abs().sum().backward()\nx.grad",
    "x = torch.tensor([0.0, 1.0], requires_grad=True)\nx.sqrt().sum().backward()\nx.grad",
    "x = torch.tensor([1.0, 1.0], requires_grad=True)\ntorch.maximum(x, torch.ones(2)).sum().backward()\nx.grad",
    "x = torch.tensor([0.0, 1.0], requires_grad=True)\nx.clamp(0, 1).sum().backward()\nx.grad",
    "x = torch.tensor([0.0, -1.0], requires_grad=True)\nx.relu().sum().backward()\nx.grad",
    "x = torch.tensor([0.0, 2.0], requires_grad=True)\n(x ** 0).sum().backward()\nx.grad",
    "x = torch.tensor([0.0, 2.0], requires_grad=True)\n(x ** 1.5).sum().backward()\nx.grad",
    "x = torch.tensor([0.0, 2.0], requires_grad=True)\n(0 ** x).sum().backward()\nx.grad",
    "x = torch.tensor([1.0], requires_grad=True)\ny = x * 2\ny.backward(torch.tensor([float('nan')]))\nx.grad",
]


def cases() -> list[Case]:
    out = []
    for expr in GRADS:
        text = f"{W}y = {expr}\ny.sum().backward()\n(type(y.grad_fn).__name__, y.requires_grad, w.grad)"
        out.append(Case("autograd.grad", text, f"grad of {expr}"))
    out += [Case("autograd.zero_dim", text) for text in ZERO_DIM]
    out += [
        Case("autograd.misc", W + text, "w = leaf(2, 3); " + text.replace("\n", "; "))
        for text in MISC
    ]
    return out
