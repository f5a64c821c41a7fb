# A config field from argparse: tngc cannot know the mode it plans for.
import argparse
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc = nn.Linear(hidden, hidden)
    def forward(self, x):
        return self.fc(x)

parser = argparse.ArgumentParser()
parser.add_argument("--bs", type=int, default=2)
parser.add_argument("--mode", default="reduce-overhead")
args = parser.parse_args()
config = torchair.CompilerConfig()
config.mode = args.mode  # expect: TNG205
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(16).npu(), backend=backend, fullgraph=True, dynamic=False)
out = model(torch.randn(2, 16).npu())
