# A script inside a package (its folder has an __init__.py): tngc runs it
# as `python -m pkg.run_rel` would, so its relative imports are from pkg
# (tests/imports.sh).
import torch
import torchair
from .layers import Attention
from . import utils

model = torch.compile(Attention(utils.HIDDEN), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn(2, utils.HIDDEN))
