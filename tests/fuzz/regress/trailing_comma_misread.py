import torch
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    def forward(self, x):
        return x * 2


config = tng.CompilerConfig()
config.mode = "reduce_overhead"  # expect: TNG165
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)

eagerpile,
# set_dim_gears and the CompilerConfig all run in the module's: TNG165

ex_config = tng.CompilerConfig()
ex_config.mode = ":npugraph_ex"
