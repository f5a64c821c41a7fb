import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, in1, in2):
        return torch.add(in1, in2)


# reduce-overhead set through the option object still dumps only py, and
# the dump type set through its own .value is the same setting.
config = torchair.CompilerConfig()
config.mode.value = "reduce-overhead"  # expect: TNG175
config.debug.graph_dump.type.value = "txt"  # expect: TNG163
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)

pb_config = torchair.CompilerConfig()
pb_config.mode.value = "reduce-overhead"
pb_config.debug.graph_dump.type = "pbtxt"  # expect: TNG163

py_config = torchair.CompilerConfig()
py_config.mode.value = "reduce-overhead"
py_config.debug.graph_dump.type.value = "py"
bad_config = torchair.CompilerConfig()
bad_config.debug.graph_dump.type.value = "json"  # expect: TNG162
