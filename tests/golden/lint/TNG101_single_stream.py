import torch
import torch_npu
import torchair as tng
from torchair.configs.compiler_config import CompilerConfig


# add_result runs on the default stream, mm_result on "1", add2 on "2".
class Model(torch.nn.Module):
    def forward(self, in1, in2, in3, in4):
        add_result = torch.add(in1, in2)
        with tng.scope.npu_stream_switch('1'):  # expect: TNG101
            mm_result = torch.mm(in3, in4)
        mm1 = torch.mm(in3, in4)
        with tng.scope.npu_stream_switch('2', 0):  # expect: TNG101
            add2 = torch.add(in3, in4)
        return add_result, mm_result, mm1, add2


model = Model()
config = CompilerConfig()
config.ge_config.enable_single_stream = True
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(model, backend=npu_backend, dynamic=False, fullgraph=True)
in1 = torch.randn(1000, 1000, dtype=torch.float16).npu()
in2 = torch.randn(1000, 1000, dtype=torch.float16).npu()
in3 = torch.randn(1000, 1000, dtype=torch.float16).npu()
in4 = torch.randn(1000, 1000, dtype=torch.float16).npu()
result = model(in1, in2, in3, in4)
