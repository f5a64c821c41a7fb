# A small model for the build tests: add, mul and add again (the adds can
# be given to a user kernel with --user-kernel add).
import torch


class Model(torch.nn.Module):
    def forward(self, x, y):
        return (x + y) * 3 + 1


model = torch.compile(Model(), fullgraph=True)
model(torch.ones(6), torch.ones(6))
