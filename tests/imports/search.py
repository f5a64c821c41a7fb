# Modules found along the search path: extra_mod with -I, env_mod through
# TNGC_PATH (tests/imports.sh). Without them both are external modules.
import torch
import torchair
import extra_mod
from env_mod import act


class Model(torch.nn.Module):
    def forward(self, x):
        return act(extra_mod.act(x))


model = torch.compile(Model(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn(2, 8))
