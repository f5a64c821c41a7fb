import torch
import npugraph_ex

# The npugraph_ex package's CompilerConfig (npugraph_ex/configs/
# compiler_config.py) has its own fields: NpuBaseConfig.__setattr__ raises
# ValueError for any other name, and an option's setter for a value it
# refuses (mode takes only "npugraph_ex").

config = npugraph_ex.CompilerConfig()
config.force_eagr = True  # expect: TNG164
config.debug.graph_dump = 1  # expect: TNG164
config.clone_input = "False"  # expect: TNG166
config.mode = "reduce-overhead"  # expect: TNG166
config.capture_limit.value = 0  # expect: TNG166
config.data_dump_stage = "final"  # expect: TNG166
config.post_grad_custom_pre_pass = "my_pass"  # expect: TNG166
if torch.cuda.is_available():
    config.deadlock_check = "yes"  # expect: TNG166

# accepted
config.force_eager = 1
config.use_graph_pool = 3
config.capture_limit = 16
config.data_dump_stage = "original"
config.capture_error_mode = "thread_local"
config.super_kernel_optimize_options = {"a": 1}
config.clone_output = torch.cuda.is_available()

backend = npugraph_ex.get_npu_backend(compiler_config=config)
model = torch.compile(torch.nn.Linear(2, 2), backend=backend)
