import torch
from torch.utils._python_dispatch import TorchDispatchMode

class Tracer(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        print(f"→ {func}")
        return func(*args, **(kwargs or {}))

with Tracer():
    a = torch.randn(3)
    b = torch.randn(3)
    c = a + b

x = torch.randn(3, requires_grad=True)
print(torch._C._dispatch_key_set(x))
