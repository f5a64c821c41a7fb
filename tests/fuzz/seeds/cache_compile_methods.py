import torch
import torch.nn.functional as F
from torchair.inference import cache_compile
from torchair import CompilerConfig


class Runner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(32, 16)
        self.w = torch.nn.Parameter(torch.randn(16, 16))
        self.register_buffer("scale", torch.ones(16))
        cfg = CompilerConfig()
        cfg.mode = "reduce-overhead"
        cfg.inference_config.dynamic_gears_merge_policy = "product"
        self.cached_prefill = cache_compile(self.prefill, config=cfg, cache_dir="cache/../x", dynamic=False)
        self.cached_decode = cache_compile(self.decode, cache_dir="/tmp/abs")

    def prefill(self, ids):
        h = self.emb(ids)
        h = F.softmax(h @ self.w, dim=-1) * self.scale
        for i in range(2):
            h = F.gelu(h[:, i:]) if i else F.silu(h)
        return h.view(-1).reshape(ids.shape[0], -1)

    def decode(self, ids, n: int = 2, *args, **kw):
        return self.prefill(ids)[..., ::n]


r = Runner()
ids = torch.randint(0, 32, (2, 5))
r.cached_prefill(ids)
r.cached_decode(ids)
