# env: EMBER_SHOW_DISPATCH_TRACE=1
# pytorch: prints no trace (release builds have none; docs/reference-facts.md §11)
import torch

a = torch.ones(2).requires_grad_(True)
b = torch.ones(2)
c = a + b
