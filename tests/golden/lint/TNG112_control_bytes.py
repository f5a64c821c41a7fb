# A value quoted in a message holds control bytes (an ANSI colour escape, a
# newline that would fake a second diagnostic): the text output shows them as
# \xHH, so script text never reaches the terminal as escape sequences.
import torch
import torchair as tng


class Model(torch.nn.Module):
    def forward(self, x):
        with tng.scope.super_kernel("sk", "stream-fusion=\x1b[31m1\nfake.py 1 1 error x"):  # expect: TNG112
            return x + 1
