import torch
import torch_npu
import torchair

POS = 3
HEAD_DIM = 16


# A cache write that slices two dims (the position and one head's columns):
# tngc lowers slice assignment along one dim only.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, k, k_cache):
        # k: [2, 1, 16], k_cache: [2, 8, 64]
        k_cache[:, POS:POS + 1, HEAD_DIM:2 * HEAD_DIM] = k  # expect: TNG211
        return k_cache.sum(dim=1)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
k = torch.randn(2, 1, HEAD_DIM).npu()
k_cache = torch.zeros(2, 8, 64).npu()
print(model(k, k_cache))
