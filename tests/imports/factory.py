# The compiled model is made in a module (pkg/factory.py): torch.compile,
# set_dim_gears and the CompilerConfig all run in the module's code.
import torch
from pkg.factory import build, example

model = build()
with torch.no_grad():
    model(example())
