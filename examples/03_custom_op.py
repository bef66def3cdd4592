import torch

lib = torch.library.Library('feng_dispatch', 'DEF')
lib.define('twice(Tensor x) -> Tensor')
@torch.library.impl(lib, 'twice', 'CPU')
def twice_cpu(x):
    return x * 2

def backward(ctx, grad_output):
    return grad_output * 2

torch.library.register_autograd('feng_dispatch::twice', backward)
@torch.library.register_fake('feng_dispatch::twice')
def twice_fake(x):
    return torch.empty_like(x)

x = torch.tensor([1., 3.], requires_grad=True)
y = torch.ops.feng_dispatch.twice(x)
y.sum().backward()
print('value:', y.tolist())
print('gradient:', x.grad.tolist())
print('gradcheck:', torch.autograd.gradcheck(torch.ops.feng_dispatch.twice,
      (torch.tensor([1., 3.], dtype=torch.double, requires_grad=True),)))
print(torch.library.opcheck(torch.ops.feng_dispatch.twice, (x,)))
