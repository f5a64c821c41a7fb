# tolerance: matmul
# openai/CLIP clip/model.py, unchanged: the ModifiedResNet image tower alone
# (three-convolution stem, Bottlenecks with anti-aliased strided convolution:
# AvgPool2d before the stride, downsample an nn.Sequential built from an
# OrderedDict, and an AttentionPool2d head calling F.multi_head_attention_forward
# with separate q/k/v projection weights). Width 16, one Bottleneck per stage,
# 64 x 64 images; the batch is geared 2 or 3.
import torch
import torch_npu
import torchair

from clip.model import ModifiedResNet

torch.manual_seed(0)
model = ModifiedResNet(layers=(1, 1, 1, 1), output_dim=32, heads=8,
                       input_resolution=64, width=16).eval()

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
compiled = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)

image = torch.randn(3, 3, 64, 64)
torchair.inference.set_dim_gears(image, dim_gears={0: [2, 3]})
with torch.no_grad():
    features = compiled(image)
print(tuple(features.shape))
