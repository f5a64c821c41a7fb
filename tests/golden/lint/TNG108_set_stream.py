import torch
import torch_npu
import torchair

# reduce-overhead turns torch.npu.set_stream into scope enter/exit and
# raises RuntimeError when the code does not end on the stream it began
# with (_acl_concrete_graph/replace_stream_event.py:188-194).


class Leaky(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.side = torch.npu.Stream()

    def forward(self, x):
        torch.npu.set_stream(self.side)  # expect: TNG108
        y = x + 1
        return y


class Restored(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.side = torch.npu.Stream()

    def forward(self, x):
        enter = torch.npu.current_stream()
        torch.npu.set_stream(self.side)
        y = x + 1
        torch.npu.set_stream(enter)
        return y


config = torchair.CompilerConfig()
config.mode = "reduce-overhead"  # expect: TNG175
backend = torchair.get_npu_backend(compiler_config=config)
leaky = torch.compile(Leaky(), backend=backend)
restored = torch.compile(Restored(), backend=backend)
