import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x, w):
        return torch.mm(x, w)


# The mode and the static-kernel switch set through their option objects:
# `option.value = v` is the setter `config.option = v` calls
# (configs/_option_base.py:42-48).
config = torchair.CompilerConfig()
config.mode.value = "reduce-overhead"  # expect: TNG175
config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
npu_backend = torchair.get_npu_backend(compiler_config=config)
opt_model = torch.compile(Model(), backend=npu_backend)

ma_config = torchair.CompilerConfig()
ma_config.mode.value = "max-autotune"
ma_config.experimental_config.aclgraph._aclnn_static_shape_kernel.value = True  # expect: TNG160
ma_backend = torchair.get_npu_backend(compiler_config=ma_config)
