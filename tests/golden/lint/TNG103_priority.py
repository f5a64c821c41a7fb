import torch
import torch_npu
import torchair


# A non-zero priority is valid: TorchAir stores str(stream_priority) without
# a check (scope/__init__.py:22-27) and its own test passes 3
# (tests/st/torchair_scope_st.py:58-60). Only reduce-overhead ignores it.
class Model(torch.nn.Module):
    def forward(self, x, w1, w2):
        with torchair.scope.npu_stream_switch("1", 1):
            a = torch.mm(x, w1)
        with torchair.scope.npu_stream_switch("2", stream_priority=-1):
            b = torch.mm(x, w2)
        with torchair.scope.npu_stream_switch("3", stream_priority=0):
            c = torch.add(a, b)
        return c


# reduce-overhead fixes the priority to 0
# (_acl_concrete_graph/replace_stream_event.py:307): a note.
class Graphed(torch.nn.Module):
    def forward(self, x, w1):
        with torchair.scope.npu_stream_switch("1", 3):  # expect: TNG103
            a = torch.mm(x, w1)
        with torchair.scope.npu_stream_switch("2", stream_priority=0):
            b = torch.mm(x, w1)
        return a + b


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
ro_config = torchair.CompilerConfig()
ro_config.mode = "reduce-overhead"  # expect: TNG175
ro_backend = torchair.get_npu_backend(compiler_config=ro_config)
graphed = torch.compile(Graphed(), backend=ro_backend, dynamic=False, fullgraph=True)
x = torch.randn(32, 64).npu()
w1 = torch.randn(64, 64).npu()
w2 = torch.randn(64, 64).npu()
out = model(x, w1, w2)
out2 = graphed(x, w1)
