# A custom torch.autograd.Function called through .apply in inference
# (reference implementations wrap fused ops this way, e.g. a straight-through
# quantiser or a memory-saving activation). PyTorch: forward runs, ctx unused
# under no_grad: y = x * sigmoid(x). tngc, before it compiled this: TNG205 "the function or module
# called here is not known at compile time" at SwishFn.apply.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class SwishFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad * (s + x * s * (1 - s))


class M(nn.Module):
    def forward(self, x):
        return SwishFn.apply(x)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
