import torch
import torch_npu
import torchair


# The cache position comes in as a tensor (as updated_kv_positions does in
# the decoder of TorchAir's gears documentation): k_cache[:, kv_position] = k lowers
# to index_put, but not together with a slice of the batch: the write would
# go through a view, which tngc does not model.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, k, k_cache, kv_position):
        # k: [2, 1, 16], k_cache: [2, 8, 16], kv_position: int64 [1]
        k_cache[:1, kv_position] = k[:1]  # expect: TNG211
        return k_cache.sum(dim=1)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
k = torch.randn(2, 1, 16).npu()
k_cache = torch.zeros(2, 8, 16).npu()
kv_position = torch.ones(1, dtype=torch.int64).npu() * 3
print(model(k, k_cache, kv_position))
