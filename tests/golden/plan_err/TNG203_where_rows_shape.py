import torch
import torch._dynamo
import torch_npu
import torchair

torch._dynamo.config.capture_dynamic_output_shape_ops = True


# The number of selected rows depends on the data: reading it is refused.
class Model(torch.nn.Module):
    def forward(self, x, w):
        top = torch.topk(x, 2)[1]
        rows, nth = torch.where(top == 1)
        n = x[rows].shape[0]  # expect: TNG203
        return x * n


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
w = torch.randn(16, 8).npu()
print(model(x, w))
