# F.rms_norm of a float16 input with a float32 weight is TNG203 (a half
# input is computed with a weight of its dtype), a weight whose shape
# is not normalized_shape or a normalized_shape that does not end the
# input's shape is PyTorch's own error (TNG206). torch.hstack follows
# cat's rules: a 2-d and a 1-d tensor is TNG206.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchair

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))
        self.w8 = nn.Parameter(torch.ones(8))

    def forward(self, x):
        a = F.rms_norm(x.half(), (8,), self.w8)  # expect: TNG203
        b = F.rms_norm(x, (8,), self.w)  # expect: TNG206
        c = F.rms_norm(x, (4,))  # expect: TNG206
        d = torch.hstack([x, x[0]])  # expect: TNG206
        return a, b, c, d

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=False)
out = model(torch.randn(2, 8).npu())
