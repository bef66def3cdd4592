# A wrapper subclass that logs every aten call it sees, a TorchFunctionMode that logs the
# public functions, and a pytree over a nested structure: the toolkit of
# torch.utils._python_dispatch, torch.overrides and torch.utils._pytree.
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten, tree_map


class LoggingTensor(torch.Tensor):
    @staticmethod
    def __new__(cls, elem):
        return torch.Tensor._make_wrapper_subclass(
            cls, elem.shape, dtype=elem.dtype, device=elem.device,
            requires_grad=elem.requires_grad,
        )

    def __init__(self, elem):
        self.elem = elem

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        print("dispatch:", func)
        unwrap = lambda t: t.elem if isinstance(t, LoggingTensor) else t
        out = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
        return tree_map(lambda t: LoggingTensor(t) if isinstance(t, torch.Tensor) else t, out)


x = LoggingTensor(torch.tensor([1.0, 2.0, 3.0]))
y = (x * 2).sum()
print(type(y).__name__, y.elem)


class FunctionLog(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        print("function:", getattr(func, "__name__", func))
        return func(*args, **(kwargs or {}))


a = torch.ones(2, 2)
with FunctionLog():
    b = torch.add(a, 1).sum(dim=0)
print(b)

leaves, spec = tree_flatten({"w": [a, 3], "b": (None, 4.5)})
print(len(leaves), spec.num_leaves)
