import torch
import torch_npu
import torchair
from torchair.scope import npu_stream_switch as stream_switch


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = torch.nn.Linear(128, 128)
        self.k_proj = torch.nn.Linear(128, 128)

    def forward(self, x):
        with stream_switch(1):  # expect: TNG102
            q = self.q_proj(x)
        with stream_switch(stream_tag=2):  # expect: TNG102
            k = self.k_proj(x)
        with stream_switch("3"):
            scores = torch.matmul(q, k.transpose(0, 1))
        return torch.softmax(scores, dim=-1)


if __name__ == "__main__":
    config = torchair.CompilerConfig()
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = torch.compile(Attention().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
    x = torch.randn(16, 128).npu()
    out = model(x)
