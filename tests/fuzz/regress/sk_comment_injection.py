import torch
import torchair


class M(torch.nn.Module):
    def forward(self, x):
        with torchair.scope.super_kernel("sp1 */ tngc_fuzz_pwned /*", ""):
            return x * 2


backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = torch.compile(M(), backend=backend)
m(torch.randn(2, 2))
