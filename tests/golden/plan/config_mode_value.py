# The mode set through the option object, config.mode.value = "...", is the
# mode the plan follows (TorchAir's OptionValue.value setter is the one
# config.mode = "..." calls, configs/_option_base.py:42-48); reading
# config.mode.value gives it back. Static kernels are planned only in
# reduce-overhead mode.
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x, w):
        return torch.relu(torch.mm(x, w))


config = torchair.CompilerConfig()
config.mode.value = "reduce-overhead"
if config.mode.value == "reduce-overhead":
    config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 8).npu()
w = torch.randn(8, 4).npu()
out = model(x, w)
