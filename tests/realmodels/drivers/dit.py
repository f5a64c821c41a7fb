# tolerance: matmul
# facebookresearch/DiT models.py, unchanged: a two-block DiT (adaLN-Zero
# modulation, sinusoidal timestep embedding, label embedding, unpatchify by
# einsum) on 8 x 8 latents of 4 channels, patch 2; the fixed 2-D sin-cos
# position table is computed with numpy at build time. timm's PatchEmbed,
# Attention and Mlp come from stubs/timm. DiT zero-initialises its
# modulation and output layers (every output would be 0), so the driver
# draws every weight matrix at random. forward(x, t, y); the batch is geared
# 2 or 3.
import torch
import torch_npu
import torchair

from models import DiT

torch.manual_seed(0)
model = DiT(input_size=8, patch_size=2, in_channels=4, hidden_size=64, depth=2,
            num_heads=4, num_classes=10).eval()
with torch.no_grad():
    for p in model.parameters():
        if p.dim() > 1:
            torch.nn.init.normal_(p, std=0.05)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
compiled = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)

x = torch.randn(3, 4, 8, 8)
t = torch.tensor([10.0, 500.0, 999.0])
y = torch.tensor([1, 7, 3])
for a in (x, t, y):
    torchair.inference.set_dim_gears(a, dim_gears={0: [2, 3]})
with torch.no_grad():
    out = compiled(x, t, y)
print(tuple(out.shape))
