import torch
import torch._dynamo
import torch_npu
import torchair

torch._dynamo.config.capture_dynamic_output_shape_ops = True


# A 2-D condition with possibly several true elements in a row: tngc's
# dense selection holds one element per row, so it refuses.
class Model(torch.nn.Module):
    def forward(self, x, w):
        top = torch.topk(x, 2)[1]
        rows, cols = torch.where(x > 0)  # expect: TNG203
        return x


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
w = torch.randn(16, 8).npu()
print(model(x, w))
