# A module's training flag (found writing examples/vit):
# forward code that tests self.training, as timm and torchvision write it:
# `F.dropout(x, self.drop.p, training=self.training)`, `p if self.training
# else 0.0` (timm's dropout_p of F.scaled_dot_product_attention, which has
# no ACL operator: a plain dropout here) and `if self.training:` branches. nn.Module.__init__ sets it (True);
# model.eval() clears it on every submodule, model.sub.train() sets it
# again on one. Entries: Model (eval(), one submodule back in train()) and
# Fresh (never eval(): training as constructed). float32 and float16; the
# batch dim takes 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.25)
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        y = F.dropout(self.lin(x), self.drop.p, training=self.training)
        p = self.drop.p if self.training else 0.0
        return F.dropout(y.softmax(dim=-1), p, training=False)


class Tagged(nn.Module):
    """x * 2 while training, x + 1 in inference: which one ran shows."""

    def forward(self, x):
        if self.training:
            return x * 2
        return x + 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.tag = Tagged()
        self.head = Tagged()

    def forward(self, x):
        h = self.inner(x)
        outs = [h, self.tag(h), self.head(h)]
        if not self.training:
            outs.append(h.half() - 1)
        return outs


class Fresh(nn.Module):
    def __init__(self):
        super().__init__()
        self.tag = Tagged()

    def forward(self, x):
        return self.tag(x) if self.training else x


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = Model().npu()
model.eval()
model.head.train()          # one submodule back in training mode
fmodel = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)
fresh = torch.compile(Fresh().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 3, 8).npu()
xh = torch.randn(4, 8).half().npu()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(xh, dim_gears={0: GEARS})
with torch.no_grad():
    outs = fmodel(x)
    f = fresh(xh)
print(len(outs), tuple(f.shape))
# tolerance: matmul
