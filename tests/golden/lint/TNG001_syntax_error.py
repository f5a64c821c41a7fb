import torch
import torch_npu
import torchair as tng


# A stray ")" on one line is reported, and the rest of the file is still
# linted: the stream switch below gets its own diagnostic.
class Model(torch.nn.Module):
    def forward(self, in1, in2):
        add_result = torch.add(in1, in2))  # expect: TNG001
        with tng.scope.npu_stream_switch(1):  # expect: TNG102
            mm_result = torch.mm(in1, in2)
        return add_result, mm_result


model = Model()
config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(model, backend=npu_backend, dynamic=False, fullgraph=True)
in1 = torch.randn(64, 64, dtype=torch.float16).npu()
in2 = torch.randn(64, 64, dtype=torch.float16).npu()
result = model(in1, in2)
