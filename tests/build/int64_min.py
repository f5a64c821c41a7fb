# INT64_MIN (torch.iinfo(torch.int64).min) where tngc prints an int64 into
# generated C: triu's and tril's diagonal, roll's shift (attributes), an
# int64 fill, masked_fill and clamp value (scalars). tests/build/run.sh
# compiles both targets' code with -Werror, so -9223372036854775808 (an
# out-of-range literal, negated) fails it, and checks the CPU results.
import torch

M = torch.iinfo(torch.int64).min


class Model(torch.nn.Module):
    def forward(self, x, i, mask):
        return (torch.triu(x, diagonal=M), torch.tril(x, diagonal=M),
                torch.roll(x, shifts=M, dims=0), torch.full((2, 3), M, dtype=torch.int64),
                i.masked_fill(mask, M), torch.clamp(i, min=M))


model = torch.compile(Model(), fullgraph=True)
x = torch.randn(4, 4)
i = torch.arange(16).view(4, 4)
mask = torch.tensor([[True, False, False, True]] * 4)
print(model(x, i, mask))
