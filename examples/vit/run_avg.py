# The tiny ViT of run.py with mean pooling over the patch tokens (timm's
# global_pool="avg": the final norm moves after the pooling, fc_norm), and
# LayerScale on both residual branches of every block (init_values=0.1, as
# CaiT and the DeiT III configurations set it).  Compiled the same way: TorchAir backend, dynamic in the batch, the batch
# dim of the images geared 2, 4, 8.
#
#   images  float32 [B, 3, 16, 16], B geared 2, 4, 8
#   result  float32 [B, 10]  class logits
import torch
import torch_npu
import torchair

from vit import vit_micro_patch4_16

BATCH = 4
BATCH_GEARS = [2, 4, 8]

if __name__ == "__main__":
    torch.manual_seed(0)
    config = torchair.CompilerConfig()
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = vit_micro_patch4_16(global_pool="avg", init_values=0.1).eval().npu()
    model = torch.compile(model, dynamic=True, fullgraph=True, backend=npu_backend)

    images = torch.randn(BATCH, 3, 16, 16).npu()
    torchair.inference.set_dim_gears(images, dim_gears={0: BATCH_GEARS})
    with torch.no_grad():
        logits = model(images)
    print("logits:", tuple(logits.shape), "classes:", logits.argmax(dim=-1))

# Conformance (tests/e2e/compare.py): convolution, matmuls and layer norms in
# float32, compared at the matmul tolerances.
# tolerance: matmul
