# Names of modules that are on no search path (tests/imports.sh): importing
# them is fine, host code may call them, and using one inside the compiled
# graph (a call, a value, an object host code made with one) is one TNG202
# at the use that names the module and the name (no cascade from what is
# computed with it).
import torch
import torchair
import transformers
import somelib
from vllm.model_executor.layers import fused_moe

cfg = transformers.AutoConfig.from_pretrained("some/model")


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.act = transformers.activations.GELUActivation()

    def forward(self, x):
        y = fused_moe(torch.relu(x))
        z = y * 2 + torch.relu(y)
        w = x * somelib.SCALE
        return self.act(z), w + 1


model = torch.compile(Model(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn(2, 8))
