# tngc-args: --soc Ascend310P3
import torch
import torch_npu


# torch.npu.npugraph_ex.scope is the same annotation under torch_npu's name.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with torch.npu.npugraph_ex.scope.super_kernel("sk", "stream-fusion=1"):  # expect: TNG117
            y = torch.mm(x, w)
        return y + 1
