import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x, w):
        return torch.mm(x, w)


# Static kernels are a reduce-overhead feature; the default mode is
# max-autotune.
config = torchair.CompilerConfig()
config.experimental_config.aclgraph._aclnn_static_shape_kernel = True  # expect: TNG160
config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = "/tmp/static_kernels"
npu_backend = torchair.get_npu_backend(compiler_config=config)
opt_model = torch.compile(Model(), backend=npu_backend)

ma_config = torchair.CompilerConfig()
ma_config.mode = "max-autotune"
ma_config.experimental_config.aclgraph._aclnn_static_shape_kernel = True  # expect: TNG160
ma_backend = torchair.get_npu_backend(compiler_config=ma_config)
