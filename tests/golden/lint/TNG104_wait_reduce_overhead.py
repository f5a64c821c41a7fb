import torch
import torch_npu
import torchair
from torchair import scope


class Model(torch.nn.Module):
    def forward(self, in1, in2, in3, in4):
        add_result = torch.add(in1, in2)
        with scope.npu_stream_switch("1"):
            scope.npu_wait_tensor(in4, add_result)  # expect: TNG104
            mm_result = torch.mm(in3, in4)
        return add_result, mm_result


config = torchair.CompilerConfig()
config.mode = "reduce-overhead"  # expect: TNG175
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
in1 = torch.randn(256, 256, dtype=torch.float16).npu()
in2 = torch.randn(256, 256, dtype=torch.float16).npu()
in3 = torch.randn(256, 256, dtype=torch.float16).npu()
in4 = torch.randn(256, 256, dtype=torch.float16).npu()
result = model(in1, in2, in3, in4)
