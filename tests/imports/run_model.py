# A model whose class is imported from a package beside the script
# (tests/imports.sh): pkg/model.py -> pkg/layers.py -> pkg/utils.py.
# Builds with tngc and matches PyTorch (the harness runs the script with
# its folder on sys.path, as Python does). Gears: the batch dim takes 2 or 4.
import torch
import torch_npu
import torchair
from pkg.model import Model
import pkg

assert pkg.VERSION == 2

config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, pkg.utils.HIDDEN).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 4]})
with torch.no_grad():
    y = model(x)
print(y.shape)
