# One error and one warning, with a non-ASCII comment before them (SARIF
# columns count UTF-16 code units, tngc's count bytes): 多流 é
import torch
import torchair as tng

config = tng.CompilerConfig()
config.mode = "reduce-overhead"
backend = tng.get_npu_backend(compiler_config=config)


class Model(torch.nn.Module):
    def forward(self, x):
        with tng.scope.super_kernel("sk", "stream-fusion=2"):  # 流 stream
            return torch.relu(x)


model = torch.compile(Model(), backend=backend, dynamic=False, fullgraph=True)
x = torch.ones(2, 2)
note = "多流"; tng.inference.set_dim_gears(x, {0: [0, 2]})
