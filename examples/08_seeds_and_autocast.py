# A seed gives PyTorch's random numbers, and autocast is a dispatch key.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
print(torch.randn(3), torch.rand(2), torch.randint(0, 10, (5,)))
weight = torch.empty(2, 3).uniform_(-0.5, 0.5)
print(weight)
print(F.dropout(torch.ones(6), 0.5))

x = torch.randn(4, 3)
with torch.autocast("cpu"):
    y = x @ weight.t()
    loss = F.mse_loss(y, torch.zeros(4, 2))
print(y.dtype, y.grad_fn, loss.dtype)
print(y)
print(torch._C._dispatch_dump_table("aten::mm").count("AutocastCPU"), torch.is_autocast_enabled("cpu"))
