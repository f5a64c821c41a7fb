# tolerance: matmul
# openai/CLIP clip/model.py, unchanged: the whole CLIP model with a ViT image
# tower (patch 8 on 32 x 32 images, width 128, 2 layers) and the text
# transformer (context 8, width 32, causal mask built in __init__), each a
# stack of ResidualAttentionBlocks (nn.MultiheadAttention, an nn.Sequential
# built from an OrderedDict, QuickGELU) with CLIP's LayerNorm subclass of
# nn.LayerNorm (super().forward in float32). logit_scale comes from np.log at
# build time. forward(image, text) returns both logit matrices; the image
# batch is geared 2 or 3 (the text batch stays 3); the
# last token of each text is the highest id (CLIP's end-of-text).
import torch
import torch_npu
import torchair

from clip.model import CLIP

torch.manual_seed(0)
model = CLIP(embed_dim=32, image_resolution=32, vision_layers=2, vision_width=128,
             vision_patch_size=8, context_length=8, vocab_size=100,
             transformer_width=32, transformer_heads=2, transformer_layers=2).eval()

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
compiled = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)

image = torch.randn(3, 3, 32, 32)
text = torch.cat([torch.randint(0, 99, (3, 7)), torch.full((3, 1), 99)], dim=1)
torchair.inference.set_dim_gears(image, dim_gears={0: [2, 3]})
with torch.no_grad():
    per_image, per_text = compiled(image, text)
print(tuple(per_image.shape), tuple(per_text.shape))
