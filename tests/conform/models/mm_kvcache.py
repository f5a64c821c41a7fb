# tolerance: matmul
# A decode step's attention over a KV cache read in place: the cache
# [slots, T, KVH, D] written at (slot_ids, positions) by index_put_, then
# read back through cache[slot_ids] (one slot: no gather copy), its
# transpose and repeat_kv's expand + reshape (4 query heads per key/value
# head: the merged broadcast dim), for q @ k^T and att @ v; float32,
# float16 and bfloat16 caches; a negative slot id (counted from the end);
# two query rows against the repeated keys (a prefill's shape); a slot of a
# slice of the cache (counted from the slice's end: a copy); a gather of
# two slots (a copy, as before); and a cache written again after its view
# was taken, whose readers see the values before that write (PyTorch's
# cache[slot_ids] is a copy). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

SLOTS, T, KVH, REP, D = 3, 10, 2, 4, 8
H = KVH * REP


def repeat_kv(x, n_rep):
    b, kvh, s, d = x.shape
    return x[:, :, None, :, :].expand(b, kvh, n_rep, s, d).reshape(b, kvh * n_rep, s, d)


def attend(q, kc, vc, slot):
    k = repeat_kv(kc[slot].transpose(1, 2), REP)     # [1, H, T, D]
    v = repeat_kv(vc[slot].transpose(1, 2), REP)
    att = torch.softmax(torch.matmul(q, k.transpose(2, 3)) * 0.25, dim=-1)
    return torch.matmul(att, v)                        # [1, H, rows, D]


class Model(torch.nn.Module):
    def forward(self, q, q2, k, v, kc, vc, hk, hv, bk, bv, slot, neg, pos, two):
        # q [1, H, 1, D], q2 [1, H, 2, D]; k, v [1, KVH, D] float32; caches
        # [SLOTS, T, KVH, D] (kc, vc f32, hk, hv f16, bk, bv bf16); slot [1],
        # neg [1] (a negative slot), pos [1], two [2] (two slots)
        outs = []
        for c, w, dt in ((kc, vc, torch.float32), (hk, hv, torch.float16), (bk, bv, torch.bfloat16)):
            c.index_put_((slot, pos), k.to(dt))
            w.index_put_((slot, pos), v.to(dt))
            outs.append(attend(q.to(dt), c, w, slot))
        outs.append(attend(q2, kc, vc, neg))
        outs.append(attend(q, kc[1:], vc[1:], neg))        # an index of a slice: copied
        kt = kc[two].transpose(1, 2)                       # [2, KVH, T, D]: gathered
        outs.append(torch.matmul(q[:, :KVH].expand(2, KVH, 1, D), kt.transpose(2, 3)))
        ks = repeat_kv(vc[slot].transpose(1, 2), REP)      # taken before the write below
        vc.index_put_((slot, pos + 1), v * 3.0)
        outs.append(torch.matmul(q, ks.transpose(2, 3)))
        outs.append(attend(q, kc, vc, slot))               # after it
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
q = torch.randn(1, H, 1, D).npu()
q2 = torch.randn(1, H, 2, D).npu()
k = torch.randn(1, KVH, D).npu()
v = torch.randn(1, KVH, D).npu()
kc, vc = torch.randn(SLOTS, T, KVH, D).npu(), torch.randn(SLOTS, T, KVH, D).npu()
hk, hv = torch.randn(SLOTS, T, KVH, D).half().npu(), torch.randn(SLOTS, T, KVH, D).half().npu()
bk, bv = torch.randn(SLOTS, T, KVH, D).bfloat16().npu(), torch.randn(SLOTS, T, KVH, D).bfloat16().npu()
slot = torch.tensor([1]).npu()
neg = torch.tensor([-1]).npu()
pos = torch.tensor([6]).npu()
two = torch.tensor([2, 0]).npu()
with torch.no_grad():
    outs = model(q, q2, k, v, kc, vc, hk, hv, bk, bv, slot, neg, pos, two)
print(len(outs))
