import torch
import torch_npu
import torchair


# torch.where(condition) alone is nonzero: its output shape depends on the
# data, which torch.compile refuses unless
# torch._dynamo.config.capture_dynamic_output_shape_ops is set (it is not here).
class Model(torch.nn.Module):
    def forward(self, x, i):
        idx = torch.where(x > 0)  # expect: TNG203
        return x


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
i = torch.randint(0, 3, (4, 16)).npu()
print(model(x, i))
