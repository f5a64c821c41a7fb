# A subclass of nn.Conv1d overriding the protected _conv_forward and
# calling the library's through super() (openai/whisper's Conv1d: weights
# cast to the input dtype). PyTorch: nn.Conv1d.forward calls the subclass's
# _conv_forward. tngc, before it compiled this: TNG202 "instance of Conv1d is not callable".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class Conv1d(nn.Conv1d):
    def _conv_forward(self, x, weight, bias):
        return super()._conv_forward(x, weight.to(x.dtype), None if bias is None else bias.to(x.dtype))


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = Conv1d(4, 6, kernel_size=3, padding=1)

    def forward(self, x):
        return self.conv(x)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
