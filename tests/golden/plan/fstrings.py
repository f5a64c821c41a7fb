# f-strings, str(), repr(), format() and str methods as Python 3 writes them: each NAMES
# entry names one super-kernel scope (tests/fstrings.sh compares the plan's
# scope names with python3's values of the same list).
import torch
import torch.nn as nn
import torchair

NAMES = [
    f"layer_{3}",
    f"l_{7:02d}",
    f"{'ab'!r}",
    f"{3.5:.2f}",
    f"{0.1}",
    f"{1e-06}",
    f"{1e16}",
    f"{2.0}",
    f"{123456789.0}",
    f"{-0.0}",
    f"{1/3}",
    f"{5:>4}|",
    f"{'x':^5}|",
    f"{'x':*<4}|",
    f"{42:x}{42:#X}{5:b}{8:#o}",
    f"{-7:+d} {7:+d} {7: d}",
    f"{3.14159:e}",
    f"{3.14159:.3g}",
    f"{0.25:%}",
    f"{0.25:.1%}",
    f"{True} {None} {False!r}",
    f"{12:{4}}|",
    f"{'abc':.2}",
    f"a{{b}}c{1}",
    f"tab\t{1}",
    f"{-5:05d}",
    f"{2.5:08.3f}",
    f"{True:>6}|",
    f"{1234.5:.2}",
    f"{7:.3f}",
    rf"a\n{1}",
    f"{100000000000000000:d}",
    f"{1.5e300}",
    f"{-2.5}",
    str(1.5) + repr("q") + format(3, "03d") + format(2.5) + str(None),
    "%s" % "unused" if False else f"{'nested'}_{f'{2:>3}'}",
    "l{}_{:02d}".format(3, 4),
    "{a}-{0!r}".format("x", a=1),
    "{:>5}|{}|{{}}".format(1.5, None),
    "_".join(["a", "b"]) + "/" + "a.b.c".split(".")[2] + "/" + " a  b ".split()[1],
    "a,b,c".split(",", 1)[1] + "abc".replace("b", "x") + "abab".replace("a", "", 1),
    "  x ".strip() + "xxyx".rstrip("x") + "yxx".lstrip("y") + str("abc".startswith("ab")) + str("abc".endswith("x")),
    "Model.Layer".lower() + "q".upper(),
]

class Layer(nn.Module):
    def __init__(self, i):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.name = f"layer_{i:02d}"

    def forward(self, x):
        with torchair.scope.super_kernel(self.name, ""):
            return self.fc(x)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer(i) for i in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        for name in NAMES:
            with torchair.scope.super_kernel(name, ""):
                x = x * 2
        return x

model = Model()
config = torchair.CompilerConfig()
compiled = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=config), fullgraph=True)
compiled(torch.randn(2, 8))
