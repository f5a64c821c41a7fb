# Weights stored FRACTAL_NZ (torch_npu.npu_format_cast(w, 29)) feeding
# matmuls: linear's weight (read transposed), mm's mat2, one weight also
# read ND; float32 and float16, dims that are not multiples of 16, so the
# NZ blocks are padded. The bundle packs each weight into its NZ storage
# at load and describes it to aclCreateTensor by its NZ dims; aclsim reads
# it back through the layout (tests/aclsim/README.md).
# tolerance: matmul
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(40, 20)
        self.w2 = torch.nn.Parameter(torch.randn(20, 24))
        self.w3 = torch.nn.Parameter(torch.randn(24, 37))
        self.wh = torch.nn.Parameter(torch.randn(37, 18).half())

    def forward(self, x, h):
        y = torch.nn.functional.linear(x, torch_npu.npu_format_cast(self.fc.weight, 29), self.fc.bias)
        z = torch.mm(y, torch_npu.npu_format_cast(self.w2, 29))
        z = torch.mm(z, torch_npu.npu_format_cast(self.w3, 29)) + self.w3[0]
        g = torch.mm(h, torch_npu.npu_format_cast(self.wh, 29))
        return torch.relu(z), g


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    model(torch.randn(3, 40).npu(), torch.randn(5, 37).half().npu())
