import torch
import torch._dynamo
import torch_npu
import torchair

torch._dynamo.config.capture_dynamic_output_shape_ops = True


# Selected rows returned from the compiled method: their count depends on the data.
class Model(torch.nn.Module):
    def forward(self, x, w):
        top = torch.topk(x, 2)[1]
        rows, nth = torch.where(top == 1)
        return x[rows] @ w  # expect: TNG203


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
w = torch.randn(16, 8).npu()
print(model(x, w))
