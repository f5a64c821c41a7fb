import torch
import torch_npu
import torchair
from torch import nn

# Complex64 tensors are computed as pairs of float32 numbers for polar,
# complex, view_as_complex, view_as_real, .real, .imag, + - *, views and
# indexing. Every other operation on one is refused by name, never run by
# a real kernel on the pairs; so are PyTorch's own errors (view_as_real of
# a real tensor, view_as_complex of a last dim that is not 2).
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        a = torch.arange(12).float().view(3, 4)
        self.table = torch.polar(torch.ones_like(a), a)

    def forward(self, x):
        z = torch.view_as_complex(x.view(3, 4, 2))
        w = self.table
        r1 = torch.abs(z)  # expect: TNG203
        r2 = z @ w.transpose(0, 1)  # expect: TNG203
        r3 = torch.matmul(z, w)  # expect: TNG203
        r4 = z / 2.0  # expect: TNG203
        r5 = z.sum()  # expect: TNG203
        r6 = z.float()  # expect: TNG203
        r7 = z + 1.0  # expect: TNG203
        z.mul_(w)  # expect: TNG203
        z[0] = w[1]  # expect: TNG203
        r8 = self.proj(w)  # expect: TNG203
        r9 = torch.cat([z, w])  # expect: TNG203
        r10 = z.T  # expect: TNG203
        r11 = torch.view_as_real(x)  # expect: TNG203
        r12 = torch.view_as_complex(x.view(4, 3, 2).half())  # expect: TNG203
        r13 = torch.view_as_complex(x.view(2, 12))  # expect: TNG203
        r14 = x.type_as(z)  # expect: TNG203
        r15 = torch.nn.functional.silu(z)  # expect: TNG203
        r16 = torch.where(x[:, :4] > 0, z, w)  # expect: TNG203
        return x


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
print(model(torch.randn(3, 8).npu()))
