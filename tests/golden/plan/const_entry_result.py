# A tensor a compiled entry returned is the bundle's data, not a constant:
# read by another entry (as a global here) it stays a weight (_const0),
# like the result tensors tngc only knows the shape of.
import torch, torch_npu, torchair
class A(torch.nn.Module):
    def forward(self, x):
        return x * 2
class B(torch.nn.Module):
    def forward(self, x):
        return x + STATE
a = torch.compile(A(), fullgraph=True)
b = torch.compile(B(), fullgraph=True)
STATE = a(torch.ones(4))
print(b(torch.ones(4)))
