# Runs the small ResNet (resnet.py) as TorchAir would on an NPU: the model
# is compiled whole with the TorchAir backend in inference mode (eval():
# BatchNorm uses its running statistics), dynamic in the batch, and the
# batch dim of the images takes the gears 2, 4 and 8 (set_dim_gears, zip
# policy): one static graph per gear, the launcher picks it from the batch.
#
#   images  float32 [B, 3, 32, 32], B geared 2, 4, 8
#   result  float32 [B, 10]  class logits
#
# The weights are the model's state_dict (running statistics and
# num_batches_tracked included); tngc's bundle reads them from a
# safetensors file written by PyTorch.
import torch
import torch_npu
import torchair
from torch import nn

from resnet import resnet_micro

BATCH = 4
BATCH_GEARS = [2, 4, 8]


def load_statistics(model):
    """Stands in for a trained checkpoint's BatchNorm statistics (a freshly
    built model has mean 0 and variance 1, which would hide the norm)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)


if __name__ == "__main__":
    torch.manual_seed(0)
    config = torchair.CompilerConfig()
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = resnet_micro(num_classes=10)
    load_statistics(model)
    model = model.eval().npu()
    model = torch.compile(model, dynamic=True, fullgraph=True, backend=npu_backend)

    images = torch.randn(BATCH, 3, 32, 32).npu()
    torchair.inference.set_dim_gears(images, dim_gears={0: BATCH_GEARS})
    with torch.no_grad():
        logits = model(images)
    print("logits:", tuple(logits.shape), "classes:", logits.argmax(dim=-1))

# Conformance (tests/e2e/compare.py): convolutions and the classifier's
# matmul in float32, compared at the matmul tolerances.
# tolerance: matmul
