import torch
import torch_npu
import torchair
from torchair.inference import cache_compile


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        config = torchair.CompilerConfig()
        self.cached_prefill = cache_compile(self.prefill, config=config, fullgraph=False)  # expect: TNG152
        self.cached_decode = cache_compile(self.decode, config=config)  # expect: TNG152
        self.cached_score = cache_compile(self.score, config=config)  # expect: TNG152

    def forward(self, x, kv_len):
        if x.size(1) > 1:
            return self.cached_prefill(x)
        return self.cached_decode(x, kv_len) + self.cached_score(x)

    def prefill(self, x):
        return x * 2

    def decode(self, x, kv_len):
        n = kv_len.item()
        return x[:, :n].sum()

    def score(self, x):
        print("score input", x.shape)
        return x.mean()
