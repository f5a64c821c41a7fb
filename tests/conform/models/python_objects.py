# tolerance: matmul
# Python objects the way published model files configure and query
# themselves, each value feeding the result: a config object filled through
# self.__dict__ (update, a subscript store, read back by items()) and one
# filled by setattr in a loop; list.index / count / copy / sort and
# tuple.count; a class attribute rebound before the layers are built and
# read as their weights' default dtype (bfloat16), through the class and
# through an instance; module globals rebound from torch.distributed in a
# single process (world size 1, rank 0); next(self.parameters()).dtype,
# the number of parameters and named_parameters' names;
# torch.get_default_dtype(); a torch.autograd.Function called through
# .apply, its ctx holding a value forward reads back. float32 [2, 3, 8].
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributed as dist
import torch_npu
import torchair

world_size = 4
rank = 3


class Settings:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    def merge(self, d):
        self.__dict__.update(d)

    def keys(self):
        return [k for k, _ in self.__dict__.items()]


class Options:
    def __init__(self, d):
        for k, v in d.items():
            setattr(self, k, v)


class Proj(nn.Module):
    dtype = torch.float32

    def __init__(self, n_in, n_out, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in, dtype=dtype or Proj.dtype) * 0.3)

    def forward(self, x):
        return F.linear(x.to(self.weight.dtype), self.weight)


class ScaledSwish(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x * ctx.scale)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class Model(nn.Module):
    def __init__(self):
        global world_size, rank
        world_size = dist.get_world_size() if dist.is_initialized() else 1
        rank = dist.get_rank() if dist.is_initialized() else 0
        Proj.dtype = torch.bfloat16
        super().__init__()
        cfg = Settings(n_layer=None, width=6, scale=0.5)
        cfg.merge({"n_layer": 2})
        cfg.__dict__["width"] = 8
        opts = Options({"shift": 0.25, "order": ["c", "a", "b"]})
        self.layers = nn.ModuleList([Proj(cfg.width, cfg.width) for _ in range(cfg.n_layer)])
        self.head = Proj(cfg.width, 4, dtype=torch.get_default_dtype())
        self.scale = cfg.scale
        self.shift = opts.shift * len(cfg.keys())
        self.perm = [opts.order.index(k) for k in sorted(opts.order)]
        order = opts.order.copy()
        order.sort(reverse=True)
        self.first = order.index("a") + opts.order.count("b") + ("a", "b", "a").count("a")
        self.n_params = sum(p.numel() for p in self.parameters())
        self.names = [n for n, _ in self.named_parameters()]

    @property
    def dtype(self):
        return next(self.parameters()).dtype

    def forward(self, x):
        h = x.to(self.dtype)
        for layer in self.layers:
            h = ScaledSwish.apply(layer(h), self.scale)
        h = h.to(self.head.dtype)
        y = self.head(h.float()) + self.shift * (world_size + rank)
        if world_size > 1:
            dist.all_reduce(y)
        y = y.permute(self.perm) * self.first
        tag = 2.0 if self.names[-1] == "head.weight" and len(self.names) == 3 else -1.0
        return y + self.n_params / 1000 * tag, h


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
compiled = torch.compile(Model().npu().eval(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(2, 3, 8).npu()
with torch.no_grad():
    outs = compiled(x)
print(outs[0].shape)
