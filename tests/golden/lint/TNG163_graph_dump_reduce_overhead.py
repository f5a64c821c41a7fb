import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, in1, in2):
        return torch.add(in1, in2)


# reduce-overhead can only dump the graph as py.
config = torchair.CompilerConfig()
config.mode = "reduce-overhead"  # expect: TNG175
config.debug.graph_dump.type = "pbtxt"  # expect: TNG163
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)

py_config = torchair.CompilerConfig()
py_config.mode = "reduce-overhead"
py_config.debug.graph_dump.type = "py"
