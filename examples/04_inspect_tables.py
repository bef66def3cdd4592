import torch

lib = torch.library.Library('feng_dispatch', 'DEF')
lib.define('twice(Tensor x) -> Tensor')
lib.impl('twice', lambda x: x * 2, 'CPU')

print(torch.ops.aten.mm.default._schema)
print(torch._C._dispatch_dump_table("aten::mm"))
print(torch._C._dispatch_dump_table("feng_dispatch::twice"))
try:
    torch.ops.feng_dispatch.twice(torch.empty(2, device='meta'))
except NotImplementedError as e:
    print('NotImplementedError for Meta:', 'Meta' in str(e))
