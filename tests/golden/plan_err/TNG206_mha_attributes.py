import torch
import torch_npu
import torchair


# nn.MultiheadAttention splits embed_dim into num_heads heads and packs
# three embed_dim blocks of rows: attributes the script changes after the
# constructor are checked again where the module is called.
class Heads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(8, 2)
        self.attn.num_heads = 0

    def forward(self, x):
        return self.attn(x, x, x)[0]  # expect: TNG206


class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(8, 2)
        self.attn.embed_dim = 2**62

    def forward(self, x):
        return self.attn(x, x, x)[0]  # expect: TNG206


backend = torchair.get_npu_backend()
x = torch.randn(3, 2, 8).npu()
heads = torch.compile(Heads().eval().npu(), backend=backend, dynamic=False)
print(heads(x))
embed = torch.compile(Embed().eval().npu(), backend=backend, dynamic=False)
print(embed(x))
