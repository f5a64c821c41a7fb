# The torch_npu fused ops as static kernels (reduce-overhead
# with _aclnn_static_shape_kernel: each op compiled with its shapes as
# constants, the kernel bodies of runtime/tngrt_impl_npu.h inlined):
# npu_add_rms_norm, npu_fused_infer_attention_score (BSH, softmax_lse),
# scatter_update_ into an input, npu_dynamic_quant and
# npu_moe_gating_top_k_softmax, float32. Static shapes, one gear (as
# static_kernels.py). (tests/conform/run.sh builds it from a copy next to an
# empty static_kernel_build/.)
import os
import torch
import torch_npu
import torchair

BUILD_DIR = "./static_kernel_build"


class Model(torch.nn.Module):
    def forward(self, a, b, g, q, k, v, cache, pos, kv, e):
        y, r, x = torch_npu.npu_add_rms_norm(a, b, g)
        o, lse = torch_npu.npu_fused_infer_attention_score(q, k, v, num_heads=2, input_layout="BSH",
                                                           softmax_lse_flag=True)
        torch_npu.scatter_update_(cache, pos, kv, 1)
        yq, s = torch_npu.npu_dynamic_quant(a)
        m = torch_npu.npu_moe_gating_top_k_softmax(e, None, k=2)
        return y, r, x, o, lse, cache * 1.0, yq, s, m[0], m[1], m[2]


if __name__ == "__main__":
    os.makedirs(BUILD_DIR, exist_ok=True)
    config = torchair.CompilerConfig()
    config.mode = "reduce-overhead"
    config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
    config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = BUILD_DIR
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = torch.compile(Model().npu(), backend=npu_backend)
    a = torch.randn(6, 8).npu()
    b = torch.randn(6, 8).npu()
    g = torch.randn(8).npu()
    q = torch.randn(2, 3, 16).npu()
    k = torch.randn(2, 5, 16).npu()
    v = torch.randn(2, 5, 16).npu()
    cache = torch.randn(2, 6, 4).npu()
    pos = torch.tensor([1, 3]).npu()
    kv = torch.randn(2, 1, 4).npu()
    e = torch.randn(6, 8).npu()
    with torch.no_grad():
        outs = model(a, b, g, q, k, v, cache, pos, kv, e)
