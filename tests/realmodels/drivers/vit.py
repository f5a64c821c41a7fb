# tolerance: matmul
# lucidrains/vit-pytorch vit_pytorch/vit.py, unchanged: a two-layer ViT
# (patches by einops' Rearrange layer, the class token by einops.repeat with
# an ellipsis, heads split by rearrange inside map(lambda ...), keyword-only
# constructor, nn.Sequential heads) on 32 x 32 images, patch 8. einops is
# not installed here: stubs/einops provides rearrange, repeat, einsum and the
# Rearrange layer. The batch is geared 2 or 3.
import torch
import torch_npu
import torchair

from vit_pytorch.vit import ViT

torch.manual_seed(0)
model = ViT(image_size=32, patch_size=8, num_classes=10, dim=64, depth=2, heads=4,
            mlp_dim=128, dim_head=16).eval()

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
compiled = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)

img = torch.randn(3, 3, 32, 32)
torchair.inference.set_dim_gears(img, dim_gears={0: [2, 3]})
with torch.no_grad():
    logits = compiled(img)
print(tuple(logits.shape))
