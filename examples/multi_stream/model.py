# Multi-stream execution inside one graph: ops inside
# torchair.scope.npu_stream_switch(tag) run on the stream named by the tag;
# npu_wait_tensor(a, b) makes the ops that use a wait until b is computed.
#
# TorchAir's documented example, unchanged: add_result and mm1 run on the default
# stream, mm_result on stream "1" and add2 on stream "2".
import torch, os
import torch_npu
import torchair as tng
from torchair.configs.compiler_config import CompilerConfig
from torchair.core.utils import logger
import logging
logger.setLevel(logging.DEBUG)


# 定义模型model (define the model)
# add_result、mm1在默认stream,mm_result在流“1”,add2在流“2”
# (add_result and mm1 on the default stream, mm_result on stream "1", add2 on stream "2")
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, in1, in2, in3, in4):
        add_result = torch.add(in1, in2)
        with tng.scope.npu_stream_switch('1'):
            # torch.mm算子(mm_result)等待torch.add算子(add_result)执行完再执行
            # (mm_result waits until add_result has been computed)
            tng.scope.npu_wait_tensor(in4, add_result)
            mm_result = torch.mm(in3, in4)
        mm1 = torch.mm(in3, in4)
        with tng.scope.npu_stream_switch('2'):
            # torch.add算子(add2)等待torch.mm算子(mm_result)执行完再执行
            # (add2 waits until mm_result has been computed)
            tng.scope.npu_wait_tensor(in4, mm_result)
            add2 = torch.add(in3, in4)
        return add_result, mm_result, mm1, add2


model = Model()
config = CompilerConfig()
config.debug.graph_dump.type = "pbtxt"
npu_backend = tng.get_npu_backend(compiler_config=config)

# 使用torchair的backend去调用compile接口编译模型
# (compile the model with the TorchAir backend)
model = torch.compile(model, backend=npu_backend, dynamic=False, fullgraph=True)
in1 = torch.randn(1000, 1000, dtype=torch.float16).npu()
in2 = torch.randn(1000, 1000, dtype=torch.float16).npu()
in3 = torch.randn(1000, 1000, dtype=torch.float16).npu()
in4 = torch.randn(1000, 1000, dtype=torch.float16).npu()
result = model(in1, in2, in3, in4)
print(f"Result:\n{result}\n")

# Conformance (tests/e2e/compare.py): the outputs come from float matmuls, so
# they are compared at the matmul tolerances.
# tolerance: matmul
