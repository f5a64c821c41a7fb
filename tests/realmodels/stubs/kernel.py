"""Stand-in for DeepSeek-V3's inference/kernel.py (triton kernels for FP8;
tests/realmodels): the suite runs the model in bfloat16, where model.py
calls none of them."""


def act_quant(x, block_size=128, scale_fmt=None):
    raise NotImplementedError("FP8 kernels (triton) are not available in tests/realmodels")


def weight_dequant(x, s, block_size=128):
    raise NotImplementedError("FP8 kernels (triton) are not available in tests/realmodels")


def fp8_gemm(a, a_s, b, b_s):
    raise NotImplementedError("FP8 kernels (triton) are not available in tests/realmodels")
