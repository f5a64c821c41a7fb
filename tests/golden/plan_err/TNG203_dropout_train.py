import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn


# Dropout in training mode is random: tngc compiles inference only and
# refuses it naming the argument. The functional forms default to
# training=True (F.dropout, dropout1d/2d/3d; F.alpha_dropout to False); a
# module (nn.Dropout, nn.Dropout2d, ..., nn.MultiheadAttention's attention
# dropout) trains until .eval(). p=0 or training=False is the identity.
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.1)
        self.drop2d = nn.Dropout2d(0.2)
        self.keep = nn.Dropout(0.0)
        self.mha = nn.MultiheadAttention(8, 2, dropout=0.1, batch_first=True)
        self.mha0 = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        a = F.dropout(x, 0.2)  # expect: TNG203
        b = F.dropout2d(x, p=0.1)  # expect: TNG203
        c = F.alpha_dropout(x, 0.5, True)  # expect: TNG203
        d = torch.dropout(x, 0.5, train=True)  # expect: TNG203
        e = self.drop(x)  # expect: TNG203
        f = self.drop2d(x)  # expect: TNG203
        g = F.dropout(x, 0.3, False) + F.dropout(x, 0.0) + F.alpha_dropout(x, 0.5)
        h = F.dropout3d(x, 0.4, training=self.training and False) + self.keep(x)
        i, _ = self.mha(x[0], x[0], x[0])  # expect: TNG203 (one error: i and _ stay silent)
        j = self.mha0(x[0], x[0], x[0])[0]
        return a, b, c, d, e, f, g, h, i, j


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(2, 3, 8, 8).npu()
print(model(x))
