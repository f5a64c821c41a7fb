# Constructs of model files that tngc refuses rather than guess: a default
# dtype other than float32 (every tensor made without a dtype would change);
# torch.distributed.get_world_size() without a process group (PyTorch
# raises: tngc compiles one process); a method of a class rebound after
# its body; the __dict__ of an nn.Module (PyTorch keeps its parameters and
# submodules elsewhere); list.index of an item the list does not hold
# (ValueError); a torch.autograd.Function without a forward staticmethod;
# the parameters of a torch.nn module whose registration order tngc does
# not know.
import torch
import torch.nn as nn
import torch.distributed as dist
import torch_npu
import torchair

torch.set_default_dtype(torch.float64)  # expect: TNG202
world_size = dist.get_world_size()


class Scale(torch.autograd.Function):
    pass


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.attn = nn.MultiheadAttention(8, 2)

    def helper(self, x):
        return x


def other(self, x):
    return x * 2


Model.helper = other  # expect: TNG202


class Model2(Model):
    def forward(self, x):
        n = len(self.__dict__)  # expect: TNG202
        k = ["a", "b"].index("c")  # expect: TNG205
        y = Scale.apply(x)  # expect: TNG202
        p = next(self.attn.parameters())  # expect: TNG202
        return self.proj(x) * world_size  # expect: TNG205


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model2().npu(), backend=backend, fullgraph=True, dynamic=False)
out = model(torch.randn(2, 8).npu())
