# Special values through every dtype: division by zero (inf, NaN), log(0),
# rsqrt(0), sqrt and fractional powers of negative numbers (NaN), exp
# overflowing float16 (inf) but not bfloat16, float16 subnormals and values
# that round to 0 or to the largest finite half, a -inf attention mask entry
# in softmax and amax, NaN propagation through reductions, and
# float -> int casts of halves (truncation toward zero). Compared as
# compare.py does: NaN where NaN is expected, infinities equal.
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x, z, big, tiny, mask, nan_row):
        # x [16] float32 with zeros, negatives, halves; z [16] zeros;
        # big [8] in [8, 12]; tiny [8] in [1e-8, 1e-4]; mask [4, 8] with
        # -inf entries; nan_row [2, 8] with one NaN
        outs = [x / z, torch.log(z), torch.rsqrt(z), torch.sqrt(x), x.pow(0.5), x / 0.0]
        for dt in (torch.float16, torch.bfloat16):
            outs.append(torch.exp(big.to(dt)))                       # inf in float16 beyond 11.09
            outs.append(tiny.to(dt))                                 # half subnormals, zeros
            outs.append((tiny.to(dt) * 1000.0).float())
            outs.append((big * 6000.0).to(dt))                       # 48000..72000: inf past 65504
            outs.append(x.to(dt) / z.to(dt))
            outs.append(torch.softmax((mask + x[:8]).to(dt), dim=-1))
        outs.append(torch.softmax(mask * 2.0, dim=-1))
        outs.append(mask.amax(dim=-1))
        outs.append(torch.log_softmax(mask, dim=-1))
        outs.append(nan_row.sum(dim=-1))
        outs.append(nan_row.amax(dim=-1))
        outs.append(torch.softmax(nan_row, dim=-1))
        outs.append(x.int())
        outs.append(x.half().long())
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.tensor([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.75, -3.75, 1e-3, -1e-3, 7.0, -7.0,
                  100.0, -100.0]).npu()
z = torch.zeros(16).npu()
big = (torch.rand(8) * 4 + 8).npu()
tiny = torch.tensor([1e-8, 3e-8, 6e-8, 1e-7, 1e-6, 6.1e-5, 1e-5, 1e-4]).npu()
mask = torch.zeros(4, 8).npu()
mask[:, 5:] = float("-inf")
mask[3, :] = torch.randn(8)
nan_row = torch.randn(2, 8).npu()
nan_row[1, 3] = float("nan")
with torch.no_grad():
    outs = model(x, z, big, tiny, mask, nan_row)
print(len(outs))
