# torch_npu's single-input rotary embeddings as torch_npu documents them
# (the reference is tests/ref/stubs/torch_npu): npu_rotary_mul in 'half'
# and 'interleave' mode and npu_interleave_rope, r1/r2 (cos/sin) broadcast
# over batch and heads, on float32, float16 and bfloat16; and
# npu_apply_rotary_pos_emb rotating a query and a key input in place (BSH
# layout, cos/sin [B, S, 1, D]; the caller's tensors are written, as copy_
# writes them) and two intermediate tensors (BSND). Their aclnn
# operator (aclnnRotaryPositionEmbedding) is CANN 8.2's: not in 8.1.RC1,
# so tests/acl/real_cann.sh leaves this model out. The batch dim takes 2
# or 4 (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]
S, N, D = 3, 2, 16


class Model(torch.nn.Module):
    def forward(self, q, qh, r1, r2, qi, ki, kh, cs, sn):
        outs = []
        for v in (q, qh, q.bfloat16()):
            c, s = r1.to(v.dtype), r2.to(v.dtype)
            outs.append(torch_npu.npu_rotary_mul(v, c, s))
            outs.append(torch_npu.npu_rotary_mul(v, c, s, rotary_mode="interleave"))
            outs.append(torch_npu.npu_interleave_rope(v, c, s))
        qo, ko = torch_npu.npu_apply_rotary_pos_emb(qi, ki, cs, sn)
        outs += [qo * 1.0, ko + 0.0]
        t1, t2 = qh * 2.0, kh * 0.5
        t1, t2 = torch_npu.npu_apply_rotary_pos_emb(t1, t2, cs.half(), sn.half(), layout="BSND")
        outs += [t1, t2]
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
q = torch.randn(4, S, N, D).npu()
qh = torch.randn(4, S, N, D).half().npu()
r1 = torch.rand(1, S, 1, D).npu()
r2 = torch.rand(1, S, 1, D).npu()
qi = torch.randn(4, S, N, D).npu()
ki = torch.randn(4, S, 1, D).npu()
kh = torch.randn(4, S, 1, D).half().npu()
ang = torch.rand(4, S, 1, D) * 6.0
cs, sn = ang.cos().npu(), ang.sin().npu()
torchair.inference.set_dim_gears(q, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(qh, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(qi, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(ki, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(kh, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(cs, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(sn, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(q, qh, r1, r2, qi, ki, kh, cs, sn)
print(len(outs))
