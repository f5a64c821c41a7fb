import torch
import torch_npu
import torchair


# An operation whose effect tngc cannot follow is not a no-op: list.extend
# of an unknown leaves the list unknown, so len(tokens) is unknown and the
# loop stops (before: extend did nothing, len(tokens) stayed 0 and the
# loop ran until the 2,000,000-statement limit). Code skipped because it
# iterates an unknown (the tokens of zip below) may change objects: a
# 'while' whose body skipped such code stops as on an unknown condition,
# and what the skipped code assigns is unknown after it.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 2


class Request:
    def __init__(self):
        self.out = []


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(2, 4).npu()
tokens = []
while len(tokens) < 4:
    tokens.extend(model(x).argmax(-1).tolist())
reqs = [Request(), Request()]
count = 0
while len(reqs[0].out) < 4:
    for req, tok in zip(reqs, model(x).argmax(-1).tolist()):
        req.out.append(tok)
        count += 1
d = {"a": 1}
d.update(model(x).tolist())
m1, m2, m3 = [torch.compile(Model().npu(), backend=npu_backend, dynamic=False) for _ in range(3)]
print(m1(torch.randn(len(tokens), 4)))  # expect: TNG205
print(m2(torch.randn(count, 4)))  # expect: TNG205
print(m3(torch.randn(len(d), 4)))  # expect: TNG205
