import torch
import torch_npu
import npugraph_ex

# torch.compile(backend="npugraph_ex", options={...}): npugraph_ex's
# _npu_backend sets each key on its own CompilerConfig
# (configs/compiler_config.py:172-203): a key that is not one of its fields
# raises ValueError, a value the field's setter refuses raises there.


class Model(torch.nn.Module):
    def forward(self, x):
        return x * 2


model = Model()
a = torch.compile(model, backend="npugraph_ex", options={"force_eagr": True})  # expect: TNG167
b = torch.compile(model, backend="npugraph_ex", options={"as_dict": 1})  # expect: TNG167
c = torch.compile(model, backend="npugraph_ex", options={"clone_input": "False"})  # expect: TNG166
d = torch.compile(model, backend="npugraph_ex", options={"capture_limit": 0})  # expect: TNG166
e = torch.compile(model, backend="npugraph_ex", options={"mode": "reduce-overhead"})  # expect: TNG166
f = torch.compile(model, backend="npugraph_ex", options={"data_dump_stage": "final"})  # expect: TNG166
g = torch.compile(model, backend="npugraph_ex", options={"super_kernel_optimize_options": "x"})  # expect: TNG166

# accepted: True in [True, False], 1 == True, any use_graph_pool, None for
# a dict or callable option, a value known only at run time
ok = torch.compile(model, backend="npugraph_ex",
                   options={"clone_input": False, "force_eager": 1, "use_graph_pool": 3,
                            "capture_limit": 8, "mode": "npugraph_ex", "data_dump_stage": "original",
                            "post_grad_custom_pre_pass": None, "super_kernel_optimize_options": {},
                            "capture_error_mode": "relaxed", "deadlock_check": model.training})
# the options of TorchAir's own backend keep TNG167's own table
h = torch.compile(model, backend="inductor", options={"force_eagr": True})
x = a(torch.ones(2))
