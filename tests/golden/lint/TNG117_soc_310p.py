# tngc-args: --soc Ascend310P3
import torch
import torch_npu


# torch_npu ships TorchAir as torch_npu.dynamo.torchair: the same annotation.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with torch_npu.dynamo.torchair.scope.super_kernel("sk", "stream-fusion=1"):  # expect: TNG117
            y = torch.mm(x, w)
        return y + 1
