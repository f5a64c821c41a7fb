# tngc-args: --werror
# A warning alone makes `tngc lint --werror` exit 1.
import torch
import torchair as tng

config = tng.CompilerConfig()
config.mode = "reduce-overhead"  # expect: TNG175
backend = tng.get_npu_backend(compiler_config=config)


class Model(torch.nn.Module):
    def forward(self, x):
        with tng.scope.super_kernel("sk"):  # expect: TNG115
            return torch.relu(x)


model = torch.compile(Model(), backend=backend, dynamic=False, fullgraph=True)
