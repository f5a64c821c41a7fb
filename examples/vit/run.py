# Runs the tiny ViT (vit.py) as TorchAir would on an NPU: the model is
# compiled whole with the TorchAir backend, dynamic in the batch, and the
# batch dim of the images takes the gears 2, 4 and 8 (set_dim_gears, zip
# policy): one static graph per gear, the launcher picks it from the batch.
#
#   images  float32 [B, 3, 16, 16], B geared 2, 4, 8
#   result  float32 [B, 10]  class logits (class-token pooling)
#
# The weights are the model's state_dict (tngc's bundle reads them from a
# safetensors file written by PyTorch).  run_avg.py is the same model with
# mean pooling, in float16.
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
    model = vit_micro_patch4_16().eval().npu()
    model = torch.compile(model, dynamic=True, fullgraph=True, backend=npu_backend)

    images = torch.randn(BATCH, 3, 16, 16).npu()
    torchair.inference.set_dim_gears(images, dim_gears={0: BATCH_GEARS})
    with torch.no_grad():
        logits = model(images)
    print("logits:", tuple(logits.shape), "classes:", logits.argmax(dim=-1))

# Conformance (tests/e2e/compare.py): convolution, matmuls and layer norms in
# float32, compared at the matmul tolerances.
# tolerance: matmul
