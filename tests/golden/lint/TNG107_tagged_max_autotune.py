import torch
import torch_npu
import torchair

# The tagged event and tagged stream ops have GE converters that raise
# NotImplementedError (ops/_tagged_event.py): they work in reduce-overhead
# only.


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.event = torchair.ops.npu_create_tagged_event("ev")

    def forward(self, x):
        y = x + 1
        torchair.ops.npu_tagged_event_record(self.event)  # expect: TNG107
        torchair.ops.npu_tagged_event_wait(self.event)  # expect: TNG107
        torchair.ops.npu_record_tagged_stream(y, "s1")  # expect: TNG107
        return y


class Graphed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.event = torchair.ops.npu_create_tagged_event("ev2")

    def forward(self, x):
        torchair.ops.npu_tagged_event_record(self.event)
        return x * 2


config = torchair.CompilerConfig()
model = torch.compile(Model(), backend=torchair.get_npu_backend(compiler_config=config))
ro = torchair.CompilerConfig()
ro.mode = "reduce-overhead"  # expect: TNG175
graphed = torch.compile(Graphed(), backend=torchair.get_npu_backend(compiler_config=ro))
