# Regressions from tests/diff: the generated programs (tests/diff/gen.py,
# each class one program, its seed above it) that tngc answered wrongly
# before views and in-place writes were modelled (frontend/lower/views.c),
# and the last, P156624, a write through a copy-on-write reshape that went
# into the tensor it was copied from:
# writes through views of inputs, buffers and op results, read back
# through other aliases. Each is kept as generated. (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)


# program seed 4 (gen.py --program 4)
class P4(nn.Module):
    def forward(self, x0, x1, x2, x3):
        v1 = x2[..., -2:]
        v2 = x3.mean(-2, keepdim=True)
        v3 = x3.permute(0, 1)
        x3.mul_(1.5)
        v4 = x3.reshape(2, 2, -1)
        v1.sub_(v1.clone())
        v5 = v1.clone()
        return v1, x2, v4


torch.manual_seed(4)
m4 = torch.compile(P4().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_4 = (torch.randint(-32, 33, (4, 2)) / 16).npu()
x1_4 = (torch.randint(-32, 33, (4, 2, 3)) / 16).to(torch.bfloat16).npu()
x2_4 = (torch.randint(-32, 33, (4, 3, 2)) / 16).npu()
x3_4 = (torch.randint(-32, 33, (4, 4)) / 16).npu()
torchair.inference.set_dim_gears(x0_4, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(x1_4, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(x2_4, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(x3_4, dim_gears={0: [2, 4]})
with torch.no_grad():
    r4 = m4(x0_4, x1_4, x2_4, x3_4)


# program seed 9 (gen.py --program 9)
class P9(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (2, 5, 3)) / 16).to(torch.float16))
        self.register_buffer("b1", (torch.randint(-32, 33, (5, 3, 3)) / 16))

    def forward(self, x0, x1):
        v1 = x0.expand(2, 2, 4)
        v2 = -x0
        x0.add_(3.0)
        v3 = x0[0:-1]
        x0.copy_(v3.clone())
        return v1, x0 * 1.0


torch.manual_seed(9)
m9 = torch.compile(P9().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_9 = (torch.randint(-32, 33, (2, 4)) / 16).to(torch.bfloat16).npu()
x1_9 = (torch.randint(-32, 33, (6, 2)) / 16).npu()
with torch.no_grad():
    r9 = m9(x0_9, x1_9)


# program seed 14 (gen.py --program 14)
class P14(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", torch.randint(-8, 9, (3, 6), dtype=torch.int64))
        self.register_buffer("b1", torch.randint(-8, 9, (4, 3, 2), dtype=torch.int64))

    def forward(self, x0, x1, x2):
        v1 = x2[:, 3]
        v2 = torch.nn.functional.layer_norm(x0, (5,))
        v1.sub_(2.0)
        x2.div_(2.0)
        v3 = x2.unbind(1)[-3]
        v4 = v1 + v3
        return v3 * 1.0, x2, v2


torch.manual_seed(14)
m14 = torch.compile(P14().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_14 = (torch.randint(-32, 33, (3, 2, 5)) / 16).npu()
x1_14 = (torch.randint(-32, 33, (3, 5, 2)) / 16).npu()
x2_14 = (torch.randint(-32, 33, (3, 4, 4)) / 16).npu()
torchair.inference.set_dim_gears(x0_14, dim_gears={0: [1, 3]})
torchair.inference.set_dim_gears(x1_14, dim_gears={0: [1, 3]})
torchair.inference.set_dim_gears(x2_14, dim_gears={0: [1, 3]})
with torch.no_grad():
    r14 = m14(x0_14, x1_14, x2_14)


# program seed 16 (gen.py --program 16)
class P16(nn.Module):
    def forward(self, x0, x1, x2):
        x1.add_(-1.0)
        for i in range(1, 3):
            x2[:, i].sub_(x2[:, i - 1] * 0.5)
        x2.add_(x1[:, :, -1:] * -2.0)
        v1 = x1 * x1
        v2 = x1[:, 2]
        for i in range(1, 2):
            x1[:, :, i].sub_(x1[:, :, i - 1] * -1.0)
        v3 = x2[..., 3]
        v4, = x2.chunk(1, 1)
        return v3, x2 * 1.0, x1


torch.manual_seed(16)
m16 = torch.compile(P16().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_16 = torch.randint(-8, 9, (3, 2, 5), dtype=torch.int64).npu()
x1_16 = (torch.randint(-32, 33, (3, 3, 2)) / 16).npu()
x2_16 = (torch.randint(-32, 33, (3, 3, 6)) / 16).npu()
torchair.inference.set_dim_gears(x0_16, dim_gears={0: [2, 3]})
torchair.inference.set_dim_gears(x1_16, dim_gears={0: [2, 3]})
torchair.inference.set_dim_gears(x2_16, dim_gears={0: [2, 3]})
with torch.no_grad():
    r16 = m16(x0_16, x1_16, x2_16)


# program seed 22 (gen.py --program 22)
class P22(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (3,)) / 16))

    def forward(self, x0):
        v1, v2 = x0.split(1, 2)
        v3 = v1.reshape(1, 15)
        for i in range(1, 15):
            v3[:, i].sub_(v3[:, i - 1] * -1)
        v4 = torch.add(v2, v3, alpha=2)
        v5 = x0.reshape(3, 5, 2)
        return v2, v1 * 1, v4 * 1


torch.manual_seed(22)
m22 = torch.compile(P22().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_22 = torch.randint(-8, 9, (5, 3, 2), dtype=torch.int64).npu()
with torch.no_grad():
    r22 = m22(x0_22)


# program seed 28 (gen.py --program 28)
class P28(nn.Module):
    def forward(self, x0, x1):
        v1 = x0.clone()
        v2 = v1.int()
        v3 = v1.transpose(2, -2)
        v3.div_(3.0)
        v4 = v3.clone()
        return v3, v1


torch.manual_seed(28)
m28 = torch.compile(P28().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_28 = (torch.randint(-32, 33, (3, 5, 5)) / 16).npu()
x1_28 = (torch.randint(-32, 33, (3, 3, 6)) / 16).npu()
torchair.inference.set_dim_gears(x0_28, dim_gears={0: [1, 3]})
torchair.inference.set_dim_gears(x1_28, dim_gears={0: [1, 3]})
with torch.no_grad():
    r28 = m28(x0_28, x1_28)


# program seed 44 (gen.py --program 44)
class P44(nn.Module):
    def forward(self, x0):
        v1 = x0[2:5:2]
        v1.fill_(2.0)
        v1.sub_(0.25)
        v2 = x0.clone()
        v3 = v1[-2:1:2]
        v3.clamp_(min=-1.0)
        v2 -= x0 * 0.5
        v4 = v2.sum(0)
        return v1, v4 * 1.0, x0 * 1.0


torch.manual_seed(44)
m44 = torch.compile(P44().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_44 = (torch.randint(-32, 33, (5, 3)) / 16).npu()
with torch.no_grad():
    r44 = m44(x0_44)


# program seed 45 (gen.py --program 45)
class P45(nn.Module):
    def forward(self, x0, x1, x2):
        v1 = x1.narrow(1, 0, 1)
        v2 = x2 + 2.0
        v1.clamp_(max=1)
        v3 = x0.expand(2, -1, 2, 2)
        v4 = v3[..., 1]
        v5 = v3.transpose(3, 0)
        x1.copy_(torch.full_like(x1, -2))
        x0.fill_(-2.0)
        v6 = v4.swapaxes(1, 2)
        v7 = v4[:, :, -2:-1:2]
        v8 = v1.transpose(0, 2)
        return v5, v4, v7


torch.manual_seed(45)
m45 = torch.compile(P45().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_45 = (torch.randint(-32, 33, (3, 2, 2)) / 16).to(torch.float16).npu()
x1_45 = torch.randint(-8, 9, (3, 2, 4), dtype=torch.int64).npu()
x2_45 = (torch.randint(-32, 33, (3, 2, 3)) / 16).npu()
torchair.inference.set_dim_gears(x0_45, dim_gears={0: [2, 3]})
torchair.inference.set_dim_gears(x1_45, dim_gears={0: [2, 3]})
torchair.inference.set_dim_gears(x2_45, dim_gears={0: [2, 3]})
with torch.no_grad():
    r45 = m45(x0_45, x1_45, x2_45)


# program seed 50 (gen.py --program 50)
class P50(nn.Module):
    def forward(self, x0, x1, ix2):
        v1 = x1.permute(0, 1)
        v2 = v1.reshape(1, 18)
        for i in range(1, 6):
            x1[:, i].add_(x1[:, i - 1] * -1.0)
        v3 = x1.permute(0, 1)
        v4 = torch.softmax(v3, 1)
        v5 = x1[..., -2::1]
        v6 = v2[ix2]
        v7 = x1[0]
        v1 *= v1.clone()
        v3.clamp_(min=0.0)
        return v1, x1 * 1.0, v6 * 1.0, v4 * 1.0


torch.manual_seed(50)
m50 = torch.compile(P50().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_50 = (torch.randint(-32, 33, (5, 4, 2)) / 16).to(torch.bfloat16).npu()
x1_50 = (torch.randint(-32, 33, (3, 6)) / 16).npu()
ix2_50 = torch.tensor([-1]).npu()
with torch.no_grad():
    r50 = m50(x0_50, x1_50, ix2_50)


# program seed 52 (gen.py --program 52)
class P52(nn.Module):
    def forward(self, x0, x1, x2, x3):
        v1 = x1.permute(0, 1)
        v2 = x3.split(1, 0)[-2]
        v2.fill_(1.5)
        v3 = v2[-1:]
        v4 = x1[:-1, None]
        v1.copy_(torch.full_like(v1, 2.0))
        v5 = v2.squeeze(0)
        return x1 * 1.0, x3 * 1.0, v5, v3


torch.manual_seed(52)
m52 = torch.compile(P52().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_52 = (torch.randint(-32, 33, (5, 2)) / 16).npu()
x1_52 = (torch.randint(-32, 33, (5, 3)) / 16).npu()
x2_52 = (torch.randint(-32, 33, (2, 2)) / 16).to(torch.bfloat16).npu()
x3_52 = (torch.randint(-32, 33, (5, 2)) / 16).npu()
with torch.no_grad():
    r52 = m52(x0_52, x1_52, x2_52, x3_52)


# program seed 55 (gen.py --program 55)
class P55(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (4, 5)) / 16).to(torch.bfloat16))
        self.register_buffer("b1", (torch.randint(-32, 33, (2, 4, 2)) / 16))

    def forward(self, x0, x1):
        v1 = x1.chunk(2, 1)[-2]
        v1.zero_()
        v2 = v1.reshape(2, -1, 9)
        v1 -= 0.25
        v3 = v1[..., None]
        v4 = v1[:, :, 4]
        v5 = v1.unbind(2)[-1]
        v6 = v4 + 1.5
        for i in range(1, 3):
            v5[:, i].add_(v5[:, i - 1] * 0.5)
        v7 = self.b0[-2:-1:3]
        v8 = v5[..., None]
        v9 = v3.sum()
        x1 *= 0.5
        return v8, v3


torch.manual_seed(55)
m55 = torch.compile(P55().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_55 = (torch.randint(-32, 33, (2, 3)) / 16).npu()
x1_55 = (torch.randint(-32, 33, (3, 5, 6)) / 16).npu()
torchair.inference.set_dim_gears(x1_55, dim_gears={0: [1, 3]})
with torch.no_grad():
    r55 = m55(x0_55, x1_55)


# program seed 60 (gen.py --program 60)
class P60(nn.Module):
    def forward(self, x0, x1, x2):
        x2.div_(0.25)
        x0.mul_(x0.clone())
        v1 = x0 + 2.0
        v2 = x2.expand(3, -1, 2, 5)
        x2.masked_fill_(x2 > 0, 2.0)
        for i in range(1, 5):
            x2[:, :, i].sub_(x2[:, :, i - 1] * -1.0)
        v3 = x2[:, :, -5:-1]
        v4 = v1.narrow(2, 3, 1)
        v5 = torch.transpose(v2, 0, 2)
        return v3, x0 * 1.0


torch.manual_seed(60)
m60 = torch.compile(P60().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_60 = (torch.randint(-32, 33, (3, 5, 4)) / 16).npu()
x1_60 = (torch.randint(-32, 33, (3, 3)) / 16).npu()
x2_60 = (torch.randint(-32, 33, (3, 2, 5)) / 16).npu()
torchair.inference.set_dim_gears(x0_60, dim_gears={0: [1, 3]})
torchair.inference.set_dim_gears(x1_60, dim_gears={0: [1, 3]})
torchair.inference.set_dim_gears(x2_60, dim_gears={0: [1, 3]})
with torch.no_grad():
    r60 = m60(x0_60, x1_60, x2_60)


# program seed 61 (gen.py --program 61)
class P61(nn.Module):
    def forward(self, x0, x1, x2, ix3):
        for i in range(1, 3):
            x2[:, i].sub_(x2[:, i - 1] * 2.0)
        v1 = x2[None]
        v2 = torch.cat((v1, v1), 0)
        v3 = x2.clone()
        v4 = v3.movedim(0, -1)
        v3.zero_()
        v2.masked_fill_(v3 > 0, -2.0)
        v5 = torch.cat((v1, v1), 1)
        v3.clamp_(-0.5, 1.0)
        v6 = v4.permute(0, 1)
        v7 = v3.expand(2, 4, 3)
        v8 = v3[ix3]
        v9 = x1[..., None]
        return v3, v7


torch.manual_seed(61)
m61 = torch.compile(P61().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_61 = (torch.randint(-32, 33, (4, 2)) / 16).to(torch.float16).npu()
x1_61 = (torch.randint(-32, 33, (4, 2)) / 16).npu()
x2_61 = (torch.randint(-32, 33, (4, 3)) / 16).npu()
ix3_61 = torch.tensor([1, 2]).npu()
with torch.no_grad():
    r61 = m61(x0_61, x1_61, x2_61, ix3_61)


# program seed 86 (gen.py --program 86)
class P86(nn.Module):
    def forward(self, x0, x1, x2):
        x0.fill_(1)
        v1 = x0.clone()
        v2, v3, v4 = x2.chunk(3, 0)
        v4.div_(3.0)
        v5 = x0 + x0
        v6 = x2.clone()
        v7 = x0.unbind(2)[5]
        v8 = v4[0]
        v9, = v4.chunk(2, 0)
        v10 = v3.mean(0, keepdim=True)
        v11 = v4.squeeze(0)
        v12 = x0[:, ::1]
        v13 = torch.add(x2, v8, alpha=2)
        v14 = v8 - 1.5
        return v3, v2, v13


torch.manual_seed(86)
m86 = torch.compile(P86().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_86 = torch.randint(-8, 9, (2, 2, 6), dtype=torch.int64).npu()
x1_86 = (torch.randint(-32, 33, (5, 2)) / 16).to(torch.bfloat16).npu()
x2_86 = (torch.randint(-32, 33, (5,)) / 16).to(torch.float16).npu()
with torch.no_grad():
    r86 = m86(x0_86, x1_86, x2_86)


# program seed 89 (gen.py --program 89)
class P89(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (5, 6)) / 16))
        self.register_buffer("b1", (torch.randint(-32, 33, (3, 6)) / 16).to(torch.float16))

    def forward(self, x0, x1):
        v1 = x0 + -2.0
        v1.sub_(v1.clone())
        v2 = v1 - 3.0
        v3 = v1.clone()
        for i in range(1, 6):
            self.b0[:, i].add_(self.b0[:, i - 1] * -1.0)
        return self.b0 * 1.0, v1, x1


torch.manual_seed(89)
m89 = torch.compile(P89().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_89 = (torch.randint(-32, 33, (5, 3)) / 16).npu()
x1_89 = (torch.randint(-32, 33, (5, 4, 4)) / 16).npu()
torchair.inference.set_dim_gears(x0_89, dim_gears={0: [3, 5]})
torchair.inference.set_dim_gears(x1_89, dim_gears={0: [3, 5]})
with torch.no_grad():
    r89 = m89(x0_89, x1_89)


# program seed 95 (gen.py --program 95 --mm)
class P95(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", torch.randint(-8, 9, (6, 6, 3), dtype=torch.int64))
        self.register_buffer("b1", (torch.randint(-32, 33, (2, 4, 4)) / 16))

    def forward(self, x0, x1):
        v1 = x1.expand(3, 2, 4, 3)
        x1.add_(x1[-2:1:2].clone())
        v2 = torch.softmax(v1, 2)
        v3 = v1.clone()
        x1.zero_()
        for i in range(1, 3):
            x1[:, :, i].sub_(x1[:, :, i - 1] * 0.5)
        x1.clamp_(min=-1.0)
        v4 = x1[..., None]
        v5 = x1[None]
        v6 = v4 + v4
        return v5, x1 * 1.0, v4, v2


torch.manual_seed(95)
m95 = torch.compile(P95().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_95 = (torch.randint(-32, 33, (2, 3)) / 16).npu()
x1_95 = (torch.randint(-32, 33, (2, 4, 3)) / 16).npu()
with torch.no_grad():
    r95 = m95(x0_95, x1_95)


# program seed 96 (gen.py --program 96 --mm)
class P96(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (3, 6)) / 16))

    def forward(self, x0, x1):
        v1 = torch.matmul(x1, x1.transpose(-1, -2))
        v2 = v1.unsqueeze(-4)
        v3 = x0[None]
        v4 = x0.narrow(1, 1, 1)
        v5 = x0.view(-1, 4)
        v6 = v3.int()
        v4.zero_()
        x0[:, 1] *= -2.0
        for i in range(1, 2):
            x0[:, :, i].sub_(x0[:, :, i - 1] * 2.0)
        v7 = v4.squeeze(1)
        v8 = v7 + v4
        v9 = x0.view(4, 1, -1)
        for i in range(1, 2):
            v1[:, :, i].add_(v1[:, :, i - 1] * -1.0)
        v10 = v2.squeeze(0)
        return x0 * 1.0, v9, v1


torch.manual_seed(96)
m96 = torch.compile(P96().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_96 = (torch.randint(-32, 33, (3, 2, 2)) / 16).npu()
x1_96 = (torch.randint(-32, 33, (3, 2, 4)) / 16).npu()
torchair.inference.set_dim_gears(x0_96, dim_gears={0: [2, 3]})
torchair.inference.set_dim_gears(x1_96, dim_gears={0: [2, 3]})
with torch.no_grad():
    r96 = m96(x0_96, x1_96)


# program seed 112 (gen.py --program 112 --mm)
class P112(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (4, 3)) / 16))

    def forward(self, x0, x1, x2):
        v1, v2, v3 = x2.chunk(3, 0)
        v4 = torch.softmax(x0, -1)
        v5 = x2.split(3, 1)[-1]
        v6 = x1[:, 3]
        v7 = x0[..., 1:3:2]
        for i in range(1, 3):
            v2[:, i].sub_(v2[:, i - 1] * 2.0)
        v8 = torch.matmul(v3, v5.transpose(-1, -2))
        v9 = v2.chunk(1, 1)[0]
        v10 = x0[..., None]
        v11 = torch.sum(v5, 0)
        v1.add_(-1.0)
        v12 = v2.reshape(-1, 1)
        v13 = v2.narrow(0, 1, 1)
        v6.clamp_(max=2.0)
        return x2, v3 * 1.0, v11 * 1.0, v5


torch.manual_seed(112)
m112 = torch.compile(P112().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_112 = (torch.randint(-32, 33, (5, 5, 3)) / 16).npu()
x1_112 = (torch.randint(-32, 33, (6, 5)) / 16).npu()
x2_112 = (torch.randint(-32, 33, (6, 3)) / 16).to(torch.float16).npu()
with torch.no_grad():
    r112 = m112(x0_112, x1_112, x2_112)


# program seed 116 (gen.py --program 116 --mm)
class P116(nn.Module):
    def forward(self, x0, x1, x2):
        v1 = x2.unsqueeze(0)
        v2 = x0.expand(3, 2)
        v3 = v2[:2:2]
        v4 = v3 @ x0
        x0.add_(v4 * 2.0)
        v5 = x0.unbind(0)[-2]
        x0.sub_(0.25)
        v6 = v2[:, 0:-1:1, None]
        for i in range(1, 5):
            v1[:, :, i].sub_(v1[:, :, i - 1] * -1)
        v7 = v3.squeeze(0)
        v8 = torch.stack([v3, v3], 1)
        v9 = x0[-2:1]
        return v3, v1, v9 * 1.0


torch.manual_seed(116)
m116 = torch.compile(P116().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_116 = (torch.randint(-32, 33, (2,)) / 16).npu()
x1_116 = (torch.randint(-32, 33, (5, 3)) / 16).npu()
x2_116 = torch.randint(-8, 9, (6, 5), dtype=torch.int32).npu()
with torch.no_grad():
    r116 = m116(x0_116, x1_116, x2_116)


# program seed 128 (gen.py --program 128)
class P128(nn.Module):
    def forward(self, x0, x1, x2):
        v1 = x1.chunk(1, 1)[-1]
        v2 = x1[1:-1:3]
        v1.clamp_(min=0)
        x2.mul_(0.25)
        v3 = x2[:, :, 1:]
        return v3, v2


torch.manual_seed(128)
m128 = torch.compile(P128().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_128 = (torch.randint(-32, 33, (5, 2)) / 16).npu()
x1_128 = torch.randint(-8, 9, (6, 4), dtype=torch.int64).npu()
x2_128 = (torch.randint(-32, 33, (6, 6, 4)) / 16).npu()
with torch.no_grad():
    r128 = m128(x0_128, x1_128, x2_128)


# program seed 130 (gen.py --program 130)
class P130(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (2, 5)) / 16))

    def forward(self, x0, x1, x2, x3):
        v1 = x3.sum(0)
        v2 = x1.narrow(0, 3, 1)
        for i in range(1, 4):
            x1[:, :, i].add_(x1[:, :, i - 1] * -1)
        v3 = x1[None]
        x2.sub_(v1)
        v4 = v2.contiguous()
        v5 = x1.clone()
        v6 = v3 + v3[:, 0:-3:1, None]
        v7 = x2.view(36)
        x2 -= v1
        return v3, v6, x2 * 1.0


torch.manual_seed(130)
m130 = torch.compile(P130().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_130 = (torch.randint(-32, 33, (5, 2, 4)) / 16).npu()
x1_130 = torch.randint(-8, 9, (4, 3, 4), dtype=torch.int64).npu()
x2_130 = (torch.randint(-32, 33, (2, 6, 3)) / 16).npu()
x3_130 = (torch.randint(-32, 33, (5,)) / 16).npu()
with torch.no_grad():
    r130 = m130(x0_130, x1_130, x2_130, x3_130)


# program seed 135 (gen.py --program 135)
class P135(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (6, 4)) / 16))

    def forward(self, x0, x1, x2):
        v1 = x2[:, :4:1]
        v2 = x0 / -1.0
        v3 = self.b0.clone()
        v1 += 1.5
        x2.fill_(2.0)
        v4 = x1.expand(2, 2, 6)
        v5 = v2.clone()
        v6 = v5.clone()
        v7 = v1 * v1
        return v1, x2 * 1.0


torch.manual_seed(135)
m135 = torch.compile(P135().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_135 = (torch.randint(-32, 33, (4, 2)) / 16).to(torch.float16).npu()
x1_135 = (torch.randint(-32, 33, (2, 6)) / 16).npu()
x2_135 = (torch.randint(-32, 33, (4, 4)) / 16).npu()
with torch.no_grad():
    r135 = m135(x0_135, x1_135, x2_135)


# program seed 138 (gen.py --program 138)
class P138(nn.Module):
    def forward(self, x0, x1, x2, ix3):
        for i in range(1, 3):
            x0[:, i].sub_(x0[:, i - 1] * -1.0)
        v1 = x0 - x0
        x0.masked_fill_(x0 > 0, 3.0)
        v2 = x0.transpose(1, 0)
        v3 = x0.view(9, -1)
        v4, v5, v6 = x0.unbind(1)
        v7 = v6[ix3]
        return v4 * 1.0, v6


torch.manual_seed(138)
m138 = torch.compile(P138().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_138 = (torch.randint(-32, 33, (3, 3, 3)) / 16).npu()
x1_138 = (torch.randint(-32, 33, (4, 3)) / 16).npu()
x2_138 = (torch.randint(-32, 33, (3, 6, 2)) / 16).npu()
ix3_138 = torch.tensor([0]).npu()
torchair.inference.set_dim_gears(x0_138, dim_gears={0: [2, 3]})
torchair.inference.set_dim_gears(x2_138, dim_gears={0: [2, 3]})
with torch.no_grad():
    r138 = m138(x0_138, x1_138, x2_138, ix3_138)


# program seed 147 (gen.py --program 147)
class P147(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (3, 3)) / 16))
        self.register_buffer("b1", (torch.randint(-32, 33, (5, 3, 6)) / 16))

    def forward(self, x0, x1, x2, x3):
        x1 -= x1.clone()
        x0.clamp_(max=2.0)
        x3.copy_(x3[..., 2].clone())
        v1 = self.b0.narrow(1, 0, 1)
        v2 = -x3
        v1 -= 3.0
        v1.sub_(1.5)
        v3 = v2[:, 2:3]
        v4 = x2[:3]
        return v1, self.b0 * 1.0, v2, v3 * 1


torch.manual_seed(147)
m147 = torch.compile(P147().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_147 = (torch.randint(-32, 33, (6, 5)) / 16).npu()
x1_147 = (torch.randint(-32, 33, (4, 5, 5)) / 16).npu()
x2_147 = (torch.randint(-32, 33, (4, 2)) / 16).npu()
x3_147 = torch.randint(-8, 9, (4, 4), dtype=torch.int64).npu()
with torch.no_grad():
    r147 = m147(x0_147, x1_147, x2_147, x3_147)


# program seed 158 (gen.py --program 158)
class P158(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (5, 2, 2)) / 16))

    def forward(self, x0):
        v1 = x0.clone()
        v2 = self.b0.permute(1, 2, 0)
        v2.div_(-1.0)
        v3 = v2.reshape(20)
        v4 = v2.reshape(10, 2)
        return v2, self.b0, v1


torch.manual_seed(158)
m158 = torch.compile(P158().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_158 = torch.randint(-8, 9, (5,), dtype=torch.int32).npu()
with torch.no_grad():
    r158 = m158(x0_158)


# program seed 162 (gen.py --program 162)
class P162(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (2, 4, 2)) / 16))

    def forward(self, x0, x1):
        v1 = x0.clone()
        v2 = x1 - 0.5
        v3 = v1[..., -5:-1]
        v4 = x0[..., -5:1]
        v5 = v3 - 0.25
        v6 = torch.sum(v5, -1, keepdim=True)
        for i in range(1, 4):
            v3[:, i].add_(v3[:, i - 1] * 0.5)
        v7 = v4 - v3[:, :-1:3]
        v8 = v3[:, :, -4:-3:1]
        v9 = v3.narrow(2, 3, 1)
        v10 = torch.cat((v1, v1), 2)
        return v9, v1


torch.manual_seed(162)
m162 = torch.compile(P162().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_162 = (torch.randint(-32, 33, (3, 4, 5)) / 16).npu()
x1_162 = (torch.randint(-32, 33, (3, 4, 6)) / 16).npu()
torchair.inference.set_dim_gears(x0_162, dim_gears={0: [1, 3]})
torchair.inference.set_dim_gears(x1_162, dim_gears={0: [1, 3]})
with torch.no_grad():
    r162 = m162(x0_162, x1_162)


# program seed 166 (gen.py --program 166)
class P166(nn.Module):
    def forward(self, x0, x1, x2, x3):
        v1 = x3.permute(1, 0, 2)
        v1.mul_(v1.clone())
        v2 = x0.chunk(2, 1)[1]
        v3 = x2.expand(3, -1, 3)
        v4 = v3[-1:]
        x2.div_(-2.0)
        v5 = v1.unsqueeze(-4)
        v1.mul_(1)
        x2.clamp_(-0.5, 2.0)
        v1.clamp_(min=-2)
        v6 = x2[..., None]
        v7 = x2.amax(0, keepdim=True)
        return v1 * 1, v3, v7


torch.manual_seed(166)
m166 = torch.compile(P166().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_166 = torch.randint(-8, 9, (3, 5), dtype=torch.int32).npu()
x1_166 = (torch.randint(-32, 33, (3, 3)) / 16).npu()
x2_166 = (torch.randint(-32, 33, (3, 3)) / 16).npu()
x3_166 = torch.randint(-8, 9, (3, 4, 6), dtype=torch.int64).npu()
torchair.inference.set_dim_gears(x0_166, dim_gears={0: [2, 3]})
torchair.inference.set_dim_gears(x2_166, dim_gears={0: [2, 3]})
torchair.inference.set_dim_gears(x3_166, dim_gears={0: [2, 3]})
with torch.no_grad():
    r166 = m166(x0_166, x1_166, x2_166, x3_166)


# program seed 168 (gen.py --program 168)
class P168(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (4, 6)) / 16))

    def forward(self, x0, x1, x2, x3, ix4):
        v1 = x3[None]
        v2 = x3.unsqueeze(0)
        v3 = x3[ix4]
        v4 = x0[-3:-1]
        v5 = v4 + -1.0
        v4.add_(-1.0)
        v6 = v4.transpose(0, 1)
        v4.sub_(v5[0:2:3])
        v7 = v4 + 3.0
        x0 *= 0.25
        v8 = x3[:]
        return x0 * 1.0, v4


torch.manual_seed(168)
m168 = torch.compile(P168().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_168 = (torch.randint(-32, 33, (3, 6)) / 16).npu()
x1_168 = (torch.randint(-32, 33, (6, 6)) / 16).to(torch.float16).npu()
x2_168 = (torch.randint(-32, 33, (3, 6, 5)) / 16).npu()
x3_168 = (torch.randint(-32, 33, (5,)) / 16).to(torch.bfloat16).npu()
ix4_168 = torch.tensor([-2, -5, -3]).npu()
with torch.no_grad():
    r168 = m168(x0_168, x1_168, x2_168, x3_168, ix4_168)


# program seed 172 (gen.py --program 172)
class P172(nn.Module):
    def forward(self, x0, x1, x2):
        v1 = x0.sum(2)
        v2 = x2[:, :, -2:2]
        v3 = v1[-2]
        v2.div_(0.25)
        v4 = v2.view(1, 4, 5)
        v5 = v2.permute(2, 1, 0)
        v6 = v2.permute(1, 0, 2)
        v7 = x1 - -0.5
        return v4, x2, v6


torch.manual_seed(172)
m172 = torch.compile(P172().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_172 = (torch.randint(-32, 33, (2, 5, 5)) / 16).to(torch.bfloat16).npu()
x1_172 = (torch.randint(-32, 33, (3, 6, 2)) / 16).to(torch.float16).npu()
x2_172 = (torch.randint(-32, 33, (2, 5, 2)) / 16).to(torch.bfloat16).npu()
torchair.inference.set_dim_gears(x1_172, dim_gears={0: [1, 3]})
with torch.no_grad():
    r172 = m172(x0_172, x1_172, x2_172)


# program seed 173 (gen.py --program 173)
class P173(nn.Module):
    def forward(self, x0, x1):
        v1 = x1.clone()
        x1.fill_(2.0)
        v2 = x1.permute(2, 0, 1)
        v3 = v1.int()
        v4 = v2.flatten(1)
        v5 = x1.chunk(1, 2)[0]
        v5.fill_(0.25)
        v6 = x0[:, :, 2::3]
        v7 = v3[:, 0::2]
        v8 = torch.cat((v5, v5), 0)
        v9 = torch.cat((v5, v3), 2)
        v10 = v2[..., -1]
        v11 = x1 * 3.0
        v12 = x1.view(15, -1)
        return v4, v2, v11 * 1.0, x1 * 1.0


torch.manual_seed(173)
m173 = torch.compile(P173().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_173 = (torch.randint(-32, 33, (5, 2, 4)) / 16).npu()
x1_173 = (torch.randint(-32, 33, (5, 5, 3)) / 16).npu()
torchair.inference.set_dim_gears(x0_173, dim_gears={0: [3, 5]})
torchair.inference.set_dim_gears(x1_173, dim_gears={0: [3, 5]})
with torch.no_grad():
    r173 = m173(x0_173, x1_173)


# program seed 179 (gen.py --program 179)
class P179(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (6,)) / 16))

    def forward(self, x0):
        x0 += self.b0 * -1.0
        v1 = x0[-1]
        v1.mul_(0.5)
        v2 = torch.add(x0, x0, alpha=2)
        x0.clamp_(-1.0, 2.0)
        v3 = v1[...]
        v3.clamp_(-1.0, 2.0)
        v4 = torch.nn.functional.layer_norm(v2, (6,))
        return x0 * 1.0, v2 * 1.0, v4


torch.manual_seed(179)
m179 = torch.compile(P179().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_179 = (torch.randint(-32, 33, (6,)) / 16).npu()
with torch.no_grad():
    r179 = m179(x0_179)


# program seed 181 (gen.py --program 181)
class P181(nn.Module):
    def forward(self, x0, x1, x2):
        v1 = x1 / (x1.abs() + 1)
        for i in range(1, 5):
            v1[:, i].add_(v1[:, i - 1] * 2.0)
        v1.sub_(x1)
        x1.mul_(3.0)
        v2 = v1.T
        v2.mul_(x2[1::3])
        v1.clamp_(-0.5, 0.5)
        x0.mul_(x2[2])
        v3 = v2.narrow(0, 1, 3)
        return v3, v2


torch.manual_seed(181)
m181 = torch.compile(P181().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_181 = (torch.randint(-32, 33, (3, 4)) / 16).npu()
x1_181 = (torch.randint(-32, 33, (5, 5)) / 16).npu()
x2_181 = (torch.randint(-32, 33, (3,)) / 16).npu()
with torch.no_grad():
    r181 = m181(x0_181, x1_181, x2_181)


# program seed 190 (gen.py --program 190)
class P190(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (5, 2)) / 16).to(torch.float16))

    def forward(self, x0, x1, x2):
        v1 = self.b0 + 1.5
        v1.add_(self.b0)
        v1.masked_fill_(self.b0 > 0, 3.0)
        x1 += 1.5
        v2 = torch.nn.functional.layer_norm(v1, (2,))
        self.b0.div_(self.b0.abs() + 1)
        x2.fill_(0.5)
        v2.sub_(-1.0)
        v3 = v1[:, -2]
        v4 = torch.cat((self.b0, self.b0), 0)
        v2.sub_(v1)
        v3.div_(2.0)
        return v2, v1, v3


torch.manual_seed(190)
m190 = torch.compile(P190().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_190 = (torch.randint(-32, 33, (5, 5, 2)) / 16).npu()
x1_190 = (torch.randint(-32, 33, (5, 6, 2)) / 16).to(torch.bfloat16).npu()
x2_190 = (torch.randint(-32, 33, (5, 4, 4)) / 16).npu()
torchair.inference.set_dim_gears(x0_190, dim_gears={0: [3, 5]})
torchair.inference.set_dim_gears(x1_190, dim_gears={0: [3, 5]})
torchair.inference.set_dim_gears(x2_190, dim_gears={0: [3, 5]})
with torch.no_grad():
    r190 = m190(x0_190, x1_190, x2_190)


# program seed 192 (gen.py --program 192)
class P192(nn.Module):
    def forward(self, x0):
        v1 = x0.expand(2, -1, 4, 5)
        x0 += x0.clone()
        x0.sub_(x0.clone())
        v2 = x0.expand(3, -1, 4, 5)
        for i in range(1, 5):
            x0[:, :, i].add_(x0[:, :, i - 1] * -1.0)
        v3 = x0[..., None]
        v4 = v1 * v1
        v5 = torch.stack([v1, v4], 2)
        v6 = x0.abs()
        v7 = x0.permute(0, 2, 1)
        return v3 * 1.0, v5


torch.manual_seed(192)
m192 = torch.compile(P192().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_192 = (torch.randint(-32, 33, (5, 4, 5)) / 16).npu()
torchair.inference.set_dim_gears(x0_192, dim_gears={0: [3, 5]})
with torch.no_grad():
    r192 = m192(x0_192)


# program seed 201 (gen.py --program 201)
class P201(nn.Module):
    def forward(self, x0, x1, x2, x3):
        v1 = x1.movedim(0, -1)
        v2 = x3 * 3.0
        v1.clamp_(min=-2)
        v1.mul_(v1.clone())
        v3 = v1.clone()
        v1.sub_(v3)
        v4 = x0.reshape(20, -1)
        for i in range(1, 3):
            v2[:, i].sub_(v2[:, i - 1] * 2.0)
        v5 = v2 + 3.0
        v6 = v5[:, 1:2]
        v7 = v2.narrow(-1, 1, 1)
        v8 = v3.expand(2, 5, 6, -1)
        v7 += 2.0
        return v7, v6, x3


torch.manual_seed(201)
m201 = torch.compile(P201().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_201 = torch.randint(-8, 9, (5, 4, 5), dtype=torch.int32).npu()
x1_201 = torch.randint(-8, 9, (5, 5, 6), dtype=torch.int32).npu()
x2_201 = (torch.randint(-32, 33, (5, 5, 2)) / 16).npu()
x3_201 = (torch.randint(-32, 33, (5, 3, 2)) / 16).npu()
torchair.inference.set_dim_gears(x0_201, dim_gears={0: [3, 5]})
torchair.inference.set_dim_gears(x1_201, dim_gears={0: [3, 5]})
torchair.inference.set_dim_gears(x2_201, dim_gears={0: [3, 5]})
torchair.inference.set_dim_gears(x3_201, dim_gears={0: [3, 5]})
with torch.no_grad():
    r201 = m201(x0_201, x1_201, x2_201, x3_201)


# program seed 205 (gen.py --program 205)
class P205(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (2, 2)) / 16))

    def forward(self, x0, x1, x2, x3):
        v1 = torch.sqrt(x0.abs())
        v2 = v1.narrow(1, 3, 2)
        v3 = x3.clone()
        v4 = self.b0.T
        v5 = v1.mean(0)
        x2.masked_fill_(v5 < 0, -2.0)
        x3.zero_()
        v6 = v3.narrow(-3, 0, 2)
        v7 = x1.narrow(0, 2, 1)
        v6.fill_(1.5)
        v2.masked_fill_(v2 < 0, -1.0)
        v8 = v7 - x0[:, :-1]
        v4.add_(v2[2])
        x0.mul_(x0.clone())
        return x0, v6, v3


torch.manual_seed(205)
m205 = torch.compile(P205().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_205 = (torch.randint(-32, 33, (3, 6)) / 16).npu()
x1_205 = (torch.randint(-32, 33, (3,)) / 16).npu()
x2_205 = (torch.randint(-32, 33, (3, 6)) / 16).npu()
x3_205 = (torch.randint(-32, 33, (2, 6, 4)) / 16).npu()
with torch.no_grad():
    r205 = m205(x0_205, x1_205, x2_205, x3_205)


# program seed 207 (gen.py --program 207)
class P207(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (3, 2)) / 16))

    def forward(self, x0, x1):
        x0.div_(-0.5)
        x1.clamp_(-0.5, 0.5)
        v1 = torch.stack([x1, x1], 2)
        x1 *= x1.clone()
        v2 = -x1
        v3 = x0.permute(0, 1, 2)
        v4 = x0.movedim(0, -1)
        v4.mul_(v4.clone())
        v5 = torch.transpose(x1, 2, 1)
        v6 = v4 - -1.0
        x1.clamp_(max=1.0)
        x0.copy_(torch.full_like(x0, -0.5))
        v7 = v1.view(40)
        x0 += 0.5
        return v3, v4


torch.manual_seed(207)
m207 = torch.compile(P207().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_207 = (torch.randint(-32, 33, (3, 2, 4)) / 16).npu()
x1_207 = (torch.randint(-32, 33, (5, 2, 2)) / 16).npu()
with torch.no_grad():
    r207 = m207(x0_207, x1_207)


# program seed 217 (gen.py --program 217 --mm)
class P217(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (2,)) / 16).to(torch.bfloat16))

    def forward(self, x0, x1, x2, ix3):
        x0.fill_(3.0)
        for i in range(1, 5):
            x1[:, i].sub_(x1[:, i - 1] * 0.5)
        v1 = x1.chunk(2, 1)[0]
        v2 = x2.unsqueeze(-2)
        v3 = x1.reshape(2, 10)
        v4 = self.b0[ix3]
        v5 = v2.flatten(1)
        v6 = v2.mean(-4, keepdim=True)
        v7 = v3.sum(0, keepdim=True)
        v1.fill_(2.0)
        return v3, x0


torch.manual_seed(217)
m217 = torch.compile(P217().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_217 = (torch.randint(-32, 33, (3, 2, 4)) / 16).npu()
x1_217 = (torch.randint(-32, 33, (4, 5)) / 16).to(torch.bfloat16).npu()
x2_217 = (torch.randint(-32, 33, (6, 3, 2)) / 16).npu()
ix3_217 = torch.tensor([-2, -1]).npu()
with torch.no_grad():
    r217 = m217(x0_217, x1_217, x2_217, ix3_217)


# program seed 228 (gen.py --program 228 --mm)
class P228(nn.Module):
    def forward(self, x0, x1):
        v1 = x1 - x1
        x1.masked_fill_(x1 < 0, 1)
        v2 = x1.permute(2, 0, 1)
        v3 = v2.expand(2, 2, 5, 3)
        v4 = v3.permute(0, 3, 2, 1)
        v5 = v4.flatten(1)
        for i in range(1, 30):
            v5[:, i].add_(v5[:, i - 1] * -1)
        v2.clamp_(-2, 1)
        v6 = v4[:, 1:2:2]
        return v5, v4 * 1, v2


torch.manual_seed(228)
m228 = torch.compile(P228().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_228 = torch.randint(-8, 9, (3, 3, 5), dtype=torch.int32).npu()
x1_228 = torch.randint(-8, 9, (5, 3, 2), dtype=torch.int32).npu()
with torch.no_grad():
    r228 = m228(x0_228, x1_228)


# program seed 229 (gen.py --program 229 --mm)
class P229(nn.Module):
    def forward(self, x0, x1, x2, x3):
        v1 = x3[-4:-3]
        v2 = x3[-4:4:3]
        v3 = torch.softmax(x0, 1)
        v2.div_(v2.abs() + 1)
        v4 = v2.reshape(-1, 2)
        return v4, v2


torch.manual_seed(229)
m229 = torch.compile(P229().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_229 = (torch.randint(-32, 33, (3, 6)) / 16).npu()
x1_229 = (torch.randint(-32, 33, (5, 4, 2)) / 16).to(torch.bfloat16).npu()
x2_229 = (torch.randint(-32, 33, (3,)) / 16).npu()
x3_229 = (torch.randint(-32, 33, (4,)) / 16).npu()
with torch.no_grad():
    r229 = m229(x0_229, x1_229, x2_229, x3_229)


# program seed 232 (gen.py --program 232 --mm)
class P232(nn.Module):
    def forward(self, x0):
        x0.masked_fill_(x0 < 0, -1.0)
        x0[:, :4:1] -= 0.5
        v1 = x0.unsqueeze(0)
        v2 = x0.view(4, -1, 3)
        v3, v4, v5 = x0.chunk(3, 2)
        v6 = v3.long()
        v5.add_(0.5)
        v7 = v5.permute(2, 0, 1)
        for i in range(1, 3):
            v2[:, :, i].add_(v2[:, :, i - 1] * -1.0)
        v8 = v7.clone()
        v9 = v4.unsqueeze(3)
        v10 = v2.expand(2, 4, -1, 3)
        v11 = v2.unsqueeze(-4)
        return v7, v11, v9


torch.manual_seed(232)
m232 = torch.compile(P232().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_232 = (torch.randint(-32, 33, (3, 4, 3)) / 16).npu()
torchair.inference.set_dim_gears(x0_232, dim_gears={0: [1, 3]})
with torch.no_grad():
    r232 = m232(x0_232)


# program seed 234 (gen.py --program 234 --mm)
class P234(nn.Module):
    def forward(self, x0, x1, x2, x3):
        for i in range(1, 5):
            x2[:, i].sub_(x2[:, i - 1] * -1.0)
        v1 = x1[..., 3]
        v2 = x2.expand(3, -1, 5)
        x1.div_(x1.abs() + 1)
        v3, v4 = x1.unbind(1)
        v5 = torch.cat((v4, v4), -1)
        return x1 * 1.0, v3, x0


torch.manual_seed(234)
m234 = torch.compile(P234().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_234 = (torch.randint(-32, 33, (4, 3, 4)) / 16).npu()
x1_234 = (torch.randint(-32, 33, (4, 2, 4)) / 16).npu()
x2_234 = (torch.randint(-32, 33, (4, 5)) / 16).npu()
x3_234 = (torch.randint(-32, 33, (4, 4, 2)) / 16).npu()
torchair.inference.set_dim_gears(x0_234, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(x1_234, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(x2_234, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(x3_234, dim_gears={0: [2, 4]})
with torch.no_grad():
    r234 = m234(x0_234, x1_234, x2_234, x3_234)


# program seed 237 (gen.py --program 237 --mm)
class P237(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (6,)) / 16))
        self.register_buffer("b1", (torch.randint(-32, 33, (5, 4)) / 16))

    def forward(self, x0, x1):
        v1 = x0.sum(-1, keepdim=True)
        v2 = torch.softmax(x1, -1)
        v3 = v2.sum(1, keepdim=True)
        v4 = x1.expand(2, 5, 6, 2)
        v5 = x0.unsqueeze(1)
        x1.masked_fill_(x1 < 0, 2.0)
        v6 = x1[:, :, -2:-1]
        v7 = x1.reshape(1, 12, 5)
        x0.mul_(1.5)
        v8 = x1[..., 0]
        v9 = self.b0.movedim(0, -1)
        v10 = x0[..., -2:2:1]
        return v4, v6, v8


torch.manual_seed(237)
m237 = torch.compile(P237().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_237 = (torch.randint(-32, 33, (2, 3)) / 16).to(torch.bfloat16).npu()
x1_237 = (torch.randint(-32, 33, (5, 6, 2)) / 16).to(torch.float16).npu()
with torch.no_grad():
    r237 = m237(x0_237, x1_237)


# program seed 239 (gen.py --program 239 --mm)
class P239(nn.Module):
    def forward(self, x0, x1, x2, x3, ix4):
        x3.add_(x3.clone())
        v1 = x3[ix4]
        v2 = x0.movedim(0, -1)
        v3 = x3.flatten(1)
        v4 = x3.permute(0, 2, 1)
        for i in range(1, 16):
            v3[:, i].sub_(v3[:, i - 1] * -1.0)
        v5 = x3 - x3
        v6 = v5 @ v5
        v7 = v3.flatten()
        v8 = v3[:, -14]
        v9 = v7 - -1.0
        v10 = torch.sqrt(v9.abs())
        v11 = x3[:, -2, None]
        v12 = torch.cat((x0, x0), 0)
        return v8 * 1.0, v10, v7


torch.manual_seed(239)
m239 = torch.compile(P239().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_239 = (torch.randint(-32, 33, (3, 4)) / 16).npu()
x1_239 = (torch.randint(-32, 33, (3, 4, 4)) / 16).npu()
x2_239 = (torch.randint(-32, 33, (3, 6)) / 16).npu()
x3_239 = (torch.randint(-32, 33, (3, 4, 4)) / 16).to(torch.float16).npu()
ix4_239 = torch.tensor([0]).npu()
torchair.inference.set_dim_gears(x0_239, dim_gears={0: [1, 3]})
torchair.inference.set_dim_gears(x1_239, dim_gears={0: [1, 3]})
torchair.inference.set_dim_gears(x2_239, dim_gears={0: [1, 3]})
torchair.inference.set_dim_gears(x3_239, dim_gears={0: [1, 3]})
with torch.no_grad():
    r239 = m239(x0_239, x1_239, x2_239, x3_239, ix4_239)


# program seed 254 (gen.py --program 254)
class P254(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (5,)) / 16))

    def forward(self, x0, x1, x2, x3):
        v1 = x1[..., -1]
        v2 = torch.nn.functional.layer_norm(v1, (6,))
        v3 = x0.sum(-2, keepdim=True)
        x2.zero_()
        v1.fill_(-0.5)
        v4 = v1.narrow(1, 1, 3)
        v4.clamp_(max=2.0)
        v5 = x1[..., 1]
        v6 = v1.clone()
        v7 = x2.permute(0, 1)
        return v4, v6, x1


torch.manual_seed(254)
m254 = torch.compile(P254().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_254 = (torch.randint(-32, 33, (5, 2, 6)) / 16).npu()
x1_254 = (torch.randint(-32, 33, (5, 6, 3)) / 16).npu()
x2_254 = (torch.randint(-32, 33, (3, 6)) / 16).npu()
x3_254 = (torch.randint(-32, 33, (5, 6, 2)) / 16).npu()
torchair.inference.set_dim_gears(x0_254, dim_gears={0: [3, 5]})
torchair.inference.set_dim_gears(x1_254, dim_gears={0: [3, 5]})
torchair.inference.set_dim_gears(x3_254, dim_gears={0: [3, 5]})
with torch.no_grad():
    r254 = m254(x0_254, x1_254, x2_254, x3_254)


# program seed 257 (gen.py --program 257)
class P257(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (2, 5)) / 16))
        self.register_buffer("b1", (torch.randint(-32, 33, (2,)) / 16))

    def forward(self, x0, x1, x2):
        v1 = self.b1[1]
        v2 = x0.expand(2, -1, 3, 2)
        v3 = self.b1.contiguous()
        v4 = x1[:6:2]
        for i in range(1, 3):
            x2[:, :, i].sub_(x2[:, :, i - 1] * -1.0)
        x1 += -1.0
        v5 = x1[-1]
        return v5, x1 * 1.0


torch.manual_seed(257)
m257 = torch.compile(P257().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_257 = (torch.randint(-32, 33, (4, 3, 2)) / 16).npu()
x1_257 = (torch.randint(-32, 33, (6, 3)) / 16).npu()
x2_257 = (torch.randint(-32, 33, (4, 5, 3)) / 16).npu()
torchair.inference.set_dim_gears(x0_257, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(x2_257, dim_gears={0: [2, 4]})
with torch.no_grad():
    r257 = m257(x0_257, x1_257, x2_257)


# program seed 260 (gen.py --program 260)
class P260(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (6, 4, 5)) / 16))
        self.register_buffer("b1", (torch.randint(-32, 33, (4, 5, 4)) / 16))

    def forward(self, x0, x1, x2, x3):
        x1.sub_(x1.clone())
        v1 = x1.expand(3, -1, 4)
        v2 = x1[:, 2]
        v3 = x3[:, -4::3]
        v4 = x1.narrow(1, 3, 1)
        v5 = x1.view(4, 1, -1)
        self.b1 -= self.b1.clone()
        v4.fill_(-1)
        return v4, v1 * 1


torch.manual_seed(260)
m260 = torch.compile(P260().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_260 = (torch.randint(-32, 33, (3, 6)) / 16).npu()
x1_260 = torch.randint(-8, 9, (3, 4), dtype=torch.int32).npu()
x2_260 = (torch.randint(-32, 33, (3,)) / 16).npu()
x3_260 = torch.randint(-8, 9, (3, 4, 6), dtype=torch.int32).npu()
torchair.inference.set_dim_gears(x0_260, dim_gears={0: [2, 3]})
torchair.inference.set_dim_gears(x1_260, dim_gears={0: [2, 3]})
torchair.inference.set_dim_gears(x3_260, dim_gears={0: [2, 3]})
with torch.no_grad():
    r260 = m260(x0_260, x1_260, x2_260, x3_260)


# program seed 272 (gen.py --program 272)
class P272(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", torch.randint(-8, 9, (3, 6, 6), dtype=torch.int64))
        self.register_buffer("b1", (torch.randint(-32, 33, (3, 5, 2)) / 16).to(torch.float16))

    def forward(self, x0, x1, x2, x3):
        x3.mul_(-1.0)
        self.b1.masked_fill_(self.b1 > 0, 0.5)
        v1 = x3 + x3
        v2 = x2.reshape(10)
        v3 = self.b0[:, 0:6:2]
        v4 = self.b1.view(30)
        v5 = x2.unsqueeze(-1)
        v6 = x0.sum((0, 1))
        v7 = torch.exp(self.b1)
        v8 = torch.nn.functional.layer_norm(v4, (30,))
        for i in range(1, 2):
            self.b1[:, :, i].add_(self.b1[:, :, i - 1] * 2.0)
        v9 = self.b1.flatten(1)
        return v4, v8, x1


torch.manual_seed(272)
m272 = torch.compile(P272().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_272 = (torch.randint(-32, 33, (4, 6)) / 16).npu()
x1_272 = (torch.randint(-32, 33, (6, 3, 6)) / 16).npu()
x2_272 = (torch.randint(-32, 33, (5, 2)) / 16).npu()
x3_272 = (torch.randint(-32, 33, (4, 3)) / 16).npu()
with torch.no_grad():
    r272 = m272(x0_272, x1_272, x2_272, x3_272)


# program seed 273 (gen.py --program 273)
class P273(nn.Module):
    def forward(self, x0, x1, x2):
        x1.sub_(x1.clone())
        v1 = x1[..., None]
        v2 = x2.bfloat16()
        v3 = v1[:, :, 2]
        v4 = x0[:, 0]
        v5 = v1.sum(0)
        v4 *= v4[..., :-1:2].clone()
        return v1, x0 * 1.0, v5, v3


torch.manual_seed(273)
m273 = torch.compile(P273().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_273 = (torch.randint(-32, 33, (3, 4, 3)) / 16).npu()
x1_273 = (torch.randint(-32, 33, (3, 2, 5)) / 16).npu()
x2_273 = torch.randint(-8, 9, (5, 4, 3), dtype=torch.int32).npu()
torchair.inference.set_dim_gears(x0_273, dim_gears={0: [1, 3]})
torchair.inference.set_dim_gears(x1_273, dim_gears={0: [1, 3]})
with torch.no_grad():
    r273 = m273(x0_273, x1_273, x2_273)


# program seed 281 (gen.py --program 281)
class P281(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (2, 5)) / 16))
        self.register_buffer("b1", (torch.randint(-32, 33, (3, 3, 2)) / 16))

    def forward(self, x0):
        v1, v2 = self.b0.unbind(0)
        v3 = v2[..., None]
        self.b1.div_(3.0)
        v1.add_(v2[0].clone(), alpha=-2.0)
        v4 = v1 + -0.5
        self.b1 -= self.b0[..., 1] * -1.0
        v5 = self.b0.clone()
        v6 = self.b1.reshape(-1, 6)
        v7 = self.b1[:, :, :-1]
        return v6, v7, v5 * 1.0


torch.manual_seed(281)
m281 = torch.compile(P281().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x0_281 = (torch.randint(-32, 33, (5, 3, 2)) / 16).npu()
torchair.inference.set_dim_gears(x0_281, dim_gears={0: [3, 5]})
with torch.no_grad():
    r281 = m281(x0_281)
# program seed 156624 (gen.py --program 156624)
class P156624(nn.Module):
    def forward(self, x0, x1, x2, x3):
        v1 = x2.narrow(1, 0, 4)
        v3 = v1.reshape(24)
        v4 = v1[..., 0::1]
        v5 = v3[-2:24]
        v5.masked_fill_(v5 < 0, 1.5)
        return v4,


torch.manual_seed(156624)
m156624 = torch.compile(P156624().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_156624 = (torch.randint(-32, 33, (5, 6)) / 16).npu()
x1_156624 = (torch.randint(-32, 33, (2, 5)) / 16).to(torch.float16).npu()
x2_156624 = (torch.randint(-32, 33, (3, 6, 2)) / 16).to(torch.float16).npu()
x3_156624 = (torch.randint(-32, 33, (4,)) / 16).npu()
with torch.no_grad():
    r156624 = m156624(x0_156624, x1_156624, x2_156624, x3_156624)


print('done')
