# An entry that only reads a tensor attribute is traced first (its bundle
# holds a copy), then another entry writes it in place (state): the reader
# would not see the writes. Refused at the write. (The other order, the
# reader traced after the writer, holds it as state shared with the
# writer's bundle: tests/conform/models/state_shared_read.py.)
import torch, torch_npu, torchair
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = torch.empty(4, 8)
    def read(self, x):
        return self.cache[:2] + x
    def write(self, x):
        self.cache[:2] = x  # expect: TNG211
        return x * 2
m = M()
read = torch.compile(m.read, fullgraph=True)
write = torch.compile(m.write, fullgraph=True)
read(torch.ones(2, 8))
write(torch.ones(2, 8))
