# Equality of two dicts (a helper that compares parsed config or axis
# tables; found writing the einops stand-in of this suite). Python: {'h': 2}
# == {'h': 2} is True, the assert passes. tngc: evaluates it False and
# reports TNG216 "assertion failed" (a wrong value, not a refusal).
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def forward(self, x):
        sizes = {"h": 2}
        assert sizes == {"h": 2}, "dict equality"
        return x * sizes["h"]

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
