# Gears, product policy: three inputs, two of them geared on dim 0.
# Every combination is a gear: rows of a in (1, 4, 16) times rows of b in
# (8, 32), six gears, in lexicographic order over (input, dim).
# w is not geared: its dims are specialised to the example shape.
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, w):
        # a: [m, 64], b: [n, 64], w: [64, 64] -> [m, n]
        qa = torch.matmul(a, w)
        kb = torch.matmul(b, w)
        return torch.softmax(torch.mm(qa, kb.t()) * 0.125, dim=-1)


config = torchair.CompilerConfig()
config.inference_config.dynamic_gears_merge_policy = "product"
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
a = torch.randn(4, 64).npu()
b = torch.randn(8, 64).npu()
w = torch.randn(64, 64).npu()
torchair.inference.set_dim_gears(a, dim_gears={0: [1, 4, 16]})  # tngc: ignore[TNG125] (batch 1 is a gear here)
torchair.inference.set_dim_gears(b, dim_gears={0: [8, 32]})
print(model(a, b, w).shape)
# another combination of the gears: no recompilation
print(model(torch.randn(16, 64).npu(), torch.randn(8, 64).npu(), w).shape)
