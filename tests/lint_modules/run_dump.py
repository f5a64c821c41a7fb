# A field of an imported config set here is checked at its line here,
# with the mode set in compile_utils.py (reduce-overhead): TNG163.
import torch
from compile_utils import config, npu_backend

config.debug.graph_dump.type = "txt"


class Model(torch.nn.Module):
    def forward(self, a):
        return a + 1


model = torch.compile(Model(), backend=npu_backend)
