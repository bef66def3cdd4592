import torch
from contextlib import nullcontext

for name, context, requires_grad in [
    ('grad', nullcontext(), True),
    ('plain', nullcontext(), False),
    ('no_grad', torch.no_grad(), True),
    ('inference', torch.inference_mode(), True),
]:
    with context:
        a = torch.tensor([[1., 2.]], requires_grad=requires_grad)
        b = torch.tensor([[3.], [4.]])
        y = torch.mm(a, b)
        print(name, 'AutogradCPU' in str(torch._C._dispatch_keys(a)),
              torch.is_grad_enabled(), y.item(),
              type(y.grad_fn).__name__)
