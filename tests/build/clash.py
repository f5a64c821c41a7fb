# An input named like an output and updated in place: the launcher would
# write both as out0.npy, so it refuses to run (one line, status 2).
import torch


class Model(torch.nn.Module):
    def forward(self, out0, x):
        out0[:, 0:1] = x
        return x + 1


model = torch.compile(Model(), fullgraph=True, dynamic=False)
model(torch.zeros(2, 4), torch.ones(2, 1))
