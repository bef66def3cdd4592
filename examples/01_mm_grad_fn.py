import torch

a = torch.tensor([[1., 2.]], requires_grad=True)
b = torch.tensor([[3.], [4.]])
y = torch.mm(a, b)
print(y.item(), type(y.grad_fn).__name__)
