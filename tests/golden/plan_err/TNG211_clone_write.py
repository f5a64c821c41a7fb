# clone() is a copy; writing into it is writing into an op's result (TNG211),
# and past_k itself must stay unchanged.
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def forward(self, k, past_k):
        new_k = past_k.clone()
        new_k[:, 3:4] = k  # expect: TNG211
        return new_k, past_k.sum(1)

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
k = torch.ones(2, 1, 8).npu()
past_k = torch.zeros(2, 8, 8).npu()
new_k, s = model(k, past_k)
print(s[0, :2], past_k.sum())
