import torch
import torchair
from cycle_a import backend_a

backend_b = backend_a


class Model(torch.nn.Module):
    def forward(self, a):
        torchair.scope.npu_wait_tensor(a, a)
        return a + 1


model = torch.compile(Model(), backend=backend_a)
