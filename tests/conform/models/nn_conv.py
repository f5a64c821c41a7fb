# tolerance: matmul
# The neural net family's functional forms: F.conv2d with
# stride, int and tuple padding, padding="same" (odd kernel) and "valid",
# dilation, groups, with and without bias, and unbatched; F.conv1d;
# F.batch_norm (training=False) with and without weight/bias; F.group_norm;
# F.max_pool2d / F.avg_pool2d (padding, count_include_pad both ways, stride
# None); F.adaptive_avg_pool2d / F.adaptive_max_pool2d to sizes that do not
# divide the input; F.interpolate nearest and bilinear (align_corners both)
# by size and by scale_factor; F.dropout with training=False. float32,
# float16 and bfloat16. The batch dim takes 2 or 4 (zip gears, every gear
# checked). (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(6, 4, 3, 3) * 0.3)
        self.w4 = torch.nn.Parameter(torch.randn(6, 4, 4, 2) * 0.3)
        self.wg = torch.nn.Parameter(torch.randn(6, 2, 3, 3) * 0.3)
        self.b = torch.nn.Parameter(torch.randn(6))
        self.w1 = torch.nn.Parameter(torch.randn(5, 4, 3) * 0.3)
        self.mean = torch.nn.Parameter(torch.randn(4) * 0.1)
        self.var = torch.nn.Parameter(torch.rand(4) + 0.5)
        self.gamma = torch.nn.Parameter(torch.rand(4) + 0.5)
        self.beta = torch.nn.Parameter(torch.randn(4))

    def forward(self, x, s):
        # x: [B, 4, 11, 9] float32; s: [B, 4, 13]
        outs = []
        for dt in (torch.float32, torch.float16, torch.bfloat16):
            v = x.to(dt)
            w, w4, wg, b = self.w.to(dt), self.w4.to(dt), self.wg.to(dt), self.b.to(dt)
            outs.append(F.conv2d(v, w, b))
            outs.append(F.conv2d(v, w, b, stride=2, padding=1))
            outs.append(F.conv2d(v, w, None, (1, 2), (2, 0), 2))
            outs.append(F.conv2d(v, w, b, padding="same"))
            outs.append(F.conv2d(v, w4, padding="valid", dilation=(1, 2)))
            outs.append(F.conv2d(v, wg, b, padding=1, groups=2))
            outs.append(F.conv1d(s.to(dt), self.w1.to(dt), None, 2, 1))
            outs.append(F.conv2d(v[0], w, b, padding=(0, 1)))
            outs.append(F.batch_norm(v, self.mean.to(dt), self.var.to(dt), self.gamma.to(dt),
                                     self.beta.to(dt), False, 0.1, 1e-3))
            outs.append(F.batch_norm(v, self.mean.to(dt), self.var.to(dt)))
            outs.append(F.group_norm(v, 2, self.gamma.to(dt), self.beta.to(dt)))
            outs.append(F.group_norm(v, 4))
            outs.append(F.max_pool2d(v, 3, 2, 1))
            outs.append(F.max_pool2d(v, (2, 3)))
            outs.append(F.avg_pool2d(v, 3, 2, 1))
            outs.append(F.avg_pool2d(v, 3, 2, 1, count_include_pad=False))
            outs.append(F.adaptive_avg_pool2d(v, (4, 5)))
            outs.append(F.adaptive_avg_pool2d(v, 1))
            outs.append(F.adaptive_max_pool2d(v, (3, None)))
            outs.append(F.interpolate(v, size=(7, 20)))
            outs.append(F.interpolate(v, scale_factor=2))
            outs.append(F.interpolate(v, scale_factor=(0.5, 1.5)))
            outs.append(F.interpolate(v, size=(15, 6), mode="bilinear"))
            outs.append(F.interpolate(v, size=(15, 6), mode="bilinear", align_corners=True))
            outs.append(F.interpolate(v, scale_factor=1.7, mode="bilinear", align_corners=False))
            outs.append(F.dropout(v, 0.3, training=False))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 4, 11, 9).npu()
s = torch.randn(4, 4, 13).npu()
for t in (x, s):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, s)
print(len(outs))
