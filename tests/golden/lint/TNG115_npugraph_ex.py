import torch
import torch_npu
import torchair


# npugraph_ex mode drops super-kernel scopes as reduce-overhead does
# (graph_pass.py:774): the scope has no effect, its options are not parsed,
# and dynamic=True does not matter for it.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with torchair.scope.super_kernel("sk", "not-an-option=1"):  # expect: TNG115
            return torch.mm(x, w)


config = torchair.CompilerConfig()
config.mode = "npugraph_ex"
model = torch.compile(Model(), backend=torchair.get_npu_backend(compiler_config=config), dynamic=True)
x = torch.randn(8, 8).npu()
out = model(x, x)
