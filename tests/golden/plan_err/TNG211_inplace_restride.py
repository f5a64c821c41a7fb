import torch
import torch_npu
import torchair


# In-place changes of a tensor's shape or strides (unsqueeze_, t_, ...):
# its views keep their own shapes, which tngc does not model.
class Model(torch.nn.Module):
    def forward(self, x, i):
        x.unsqueeze_(0)  # expect: TNG211
        return x


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
i = torch.randint(0, 3, (4, 16)).npu()
print(model(x, i))
