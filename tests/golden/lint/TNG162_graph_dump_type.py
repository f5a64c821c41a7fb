import torch
import torch_npu
import torchair as tng
from torchair.configs.compiler_config import CompilerConfig


class Model(torch.nn.Module):
    def forward(self, in1, in2):
        return torch.add(in1, in2)


config = CompilerConfig()
config.debug.graph_dump.type = "json"  # expect: TNG162
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)

txt_config = CompilerConfig()
txt_config.debug.graph_dump.type = "TXT"  # expect: TNG162
