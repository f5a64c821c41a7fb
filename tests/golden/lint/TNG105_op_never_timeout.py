import torch
import torch_npu
import torchair
from torchair.scope import op_never_timeout

# op_never_timeout raises TypeError unless its argument is a bool
# (scope/__init__.py:65-68).


class Model(torch.nn.Module):
    def forward(self, x, flag):
        with op_never_timeout(1):  # expect: TNG105
            x = x + 1
        with torchair.scope.op_never_timeout(enable="True"):  # expect: TNG105
            x = x + 1
        with op_never_timeout(True), op_never_timeout(), op_never_timeout(flag):
            x = x + 1
        return x
