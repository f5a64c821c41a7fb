# The Python model code is written in, as Python evaluates it: each VALUES
# entry is a str naming one super-kernel scope; tests/python_subset.sh runs
# the part between the markers in python3 and compares.
import torch
import torch.nn as nn
import torchair

# --- python: begin
import math

name, n, x = "blk", 7, 2.5

VALUES = [
    # % formatting
    "%s_%d" % (name, n),
    "%r %f %.3f %5d %x %%" % (name, 1.5, 2.0 / 3, 42, 255),
    "%-5s|%05.1f|%+d|% d|%#x|%#o|%X" % ("ab", 3.14159, 5, 5, 255, 8, 255),
    "%s" % name,
    "%d" % 3.99,
    "%s %s" % (True, None),
    "%e|%.2E|%g|%G" % (12345.678, 0.000123, 0.0001, 1e20),
    "%(a)s-%(b)03d" % {"a": "k", "b": 7},
    "%s" % ([1, "a", (2.5,)],),
    "%5.2s|" % "abc",
    "%i %u" % (-3, 4),
    "%a" % "q",
    "layer%d.attn" % 0 + "/" + "%.1f%%" % 12.34,
    # repr/str of containers
    str([1, 2.0, "x", None, True]) + repr((1,)) + str({"a": [1, (2, 3)]}) + repr(()),
]
# --- python: end


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        x = self.fc(x)
        for i, v in enumerate(VALUES):
            with torchair.scope.super_kernel(f"{i}:{v}", ""):
                x = x * 2
        return x


model = Model()
config = torchair.CompilerConfig()
compiled = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=config), fullgraph=True)
compiled(torch.randn(2, 8))
