import torch
import torch_npu
import torchair


# Setting an option through its .value goes through the same setter as
# setting the field (configs/_option_base.py:42-48): every rule that reads
# the field sees it, here enable_single_stream and the gear policy.
class Model(torch.nn.Module):
    def forward(self, x):
        with torchair.scope.npu_stream_switch("1"):  # expect: TNG101
            return x * 2


config = torchair.CompilerConfig()
config.ge_config.enable_single_stream.value = True
config.inference_config.dynamic_gears_merge_policy.value = "product"
model = torch.compile(Model(), backend=torchair.get_npu_backend(compiler_config=config), dynamic=True, fullgraph=True)
x = torch.randn(4, 8).npu()
torchair.inference.set_dim_gears(x, {0: [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048], 1: [8, 16, 24, 32, 40, 48, 56, 64, 72, 80]})  # expect: TNG129
out = model(x)
