# An op the ACL target has no aclnn operator for: a scalar divided by an int
# tensor (a float one is aclnnReciprocal then aclnnInplaceMuls). `tngc gen
# --target acl` must fail at line 15, naming 'div'; the CPU target builds it.
import torch
import torchair
from torchair.configs.compiler_config import CompilerConfig


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = (x * 2).int()
        return 3.0 / y, y + 1.0


config = CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=False, fullgraph=True)
model(torch.ones(4, 8))
