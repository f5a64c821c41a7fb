import torch
import torchair

# _get_compiled_gm (npu_fx_compiler.py:614-634) warns about the debug
# options: fx_summary writes no csv files in npugraph_ex mode; in
# max-autotune with skip_compile (the default) it summarises the graph and
# runs it eagerly; data_dump dumps and runs it eagerly in every mode.

c1 = torchair.CompilerConfig()
c1.debug.fx_summary.type = "csv"  # expect: TNG169
b1 = torchair.get_npu_backend(compiler_config=c1)
m1 = torch.compile(torch.nn.Linear(2, 2), backend=b1)

c2 = torchair.CompilerConfig()
c2.mode = "npugraph_ex"
c2.debug.fx_summary.type = "csv"  # expect: TNG169
c2.debug.data_dump.type = "npy"  # expect: TNG169
b2 = torchair.get_npu_backend(compiler_config=c2)
m2 = torch.compile(torch.nn.Linear(2, 2), backend=b2)

c3 = torchair.CompilerConfig()
c3.debug.fx_summary.type = "csv"
c3.debug.fx_summary.skip_compile = False
c3.debug.data_dump.type = "npy"  # expect: TNG169
b3 = torchair.get_npu_backend(compiler_config=c3)
m3 = torch.compile(torch.nn.Linear(2, 2), backend=b3)

c4 = torchair.CompilerConfig()
c4.mode = "reduce-overhead"  # expect: TNG175
c4.debug.fx_summary.type = "csv"  # expect: TNG169
b4 = torchair.get_npu_backend(compiler_config=c4)
m4 = torch.compile(torch.nn.Linear(2, 2), backend=b4)

# not compiled: no warning
c5 = torchair.CompilerConfig()
c5.debug.data_dump.type = "npy"
