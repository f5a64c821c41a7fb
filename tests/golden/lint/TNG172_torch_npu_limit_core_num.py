import torch
import torch_npu

# torch_npu's torch.npu.npugraph_ex.scope.limit_core_num(op_aicore_num,
# op_vectorcore_num, stream=None) takes both core numbers: one of them
# alone raises TypeError, as in the npugraph_ex package's limit_core_num.


def f(x, s):
    with torch.npu.npugraph_ex.scope.limit_core_num(4):  # expect: TNG172
        y = x + 1
    with torch.npu.npugraph_ex.scope.limit_core_num(4, 8, 2, 1):  # expect: TNG172
        y = y + 1
    with torch.npu.npugraph_ex.scope.limit_core_num(op_aicore_num=4, vector=8):  # expect: TNG172
        y = y + 1
    with torch.npu.npugraph_ex.scope.limit_core_num(4, 8):
        y = y * 2
    with torch.npu.npugraph_ex.scope.limit_core_num(4, op_vectorcore_num=8, stream=s):
        y = y * 2
    return y


g = torch.compile(f, backend="npugraph_ex")
