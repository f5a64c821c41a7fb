import os

import torch
import torch_npu
import torchair

# Read from the environment when the script runs: unknown to tngc.
NUM_HEADS = int(os.environ.get("NUM_HEADS", "4"))


# The reshape needs the number of heads at compile time.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        heads = x.view(x.shape[0], NUM_HEADS, -1)  # expect: TNG205
        return torch.softmax(heads, dim=-1)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(2, 64).npu()
print(model(x))
