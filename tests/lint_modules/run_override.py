# An imported config changed here: the last assignment counts (max-autotune,
# so no TNG104 although compile_utils.py sets reduce-overhead).
import torch
import torchair
from compile_utils import config, npu_backend


class Model(torch.nn.Module):
    def forward(self, a):
        torchair.scope.npu_wait_tensor(a, a)
        return a + 1


model = torch.compile(Model(), backend=npu_backend)
config.mode = "max-autotune"
