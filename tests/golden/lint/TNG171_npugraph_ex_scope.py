import torch
import torch_npu
import npugraph_ex as nge

# torch_npu's torch.npu.npugraph_ex.scope exports only limit_core_num and
# deterministic (torch_npu/npu/npugraph_ex/scope/__init__.py); the npugraph_ex
# package's scope only limit_core_num (npugraph_ex/scope/__init__.py).


class Model(torch.nn.Module):
    def forward(self, x, stream):
        with torch.npu.npugraph_ex.scope.limit_core_num(4, 8, stream=stream):
            a = x + 1
        with torch.npu.npugraph_ex.scope.super_kernel("sk"):  # expect: TNG171
            b = a * 2
        with torch.npu.npugraph_ex.scope.npu_stream_switch("1"):  # expect: TNG171
            c = b - 1
        torch.npu.npugraph_ex.scope.npu_wait_tensor(c, b)  # expect: TNG171
        with nge.scope.super_kernel("sk"):  # expect: TNG171
            d = c / 2
        with nge.scope.limit_core_num(2, 4):
            d = d + 1
        try:
            with torch.npu.npugraph_ex.scope.npu_stream_switch("2"):
                d = d + 2
        except AttributeError:
            pass
        return d


config = torch.npu.npugraph_ex.CompilerConfig()  # expect: TNG171
