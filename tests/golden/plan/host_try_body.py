# Host code in a try body runs (its handlers do not): real scripts build
# the config inside `try: import torchair ... except ImportError:`. The
# plan follows the mode set in the try body and the finally clause.
import torch

try:
    import torch_npu
    import torchair
    config = torchair.CompilerConfig()
    config.mode = "reduce-overhead"
except ImportError:
    torchair = None
    config = None
finally:
    dims = (4, 8)


class Model(torch.nn.Module):
    def forward(self, x, w):
        return torch.relu(torch.mm(x, w))


npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(*dims).npu()
w = torch.randn(8, 4).npu()
out = model(x, w)
