import torch
import torch_npu
import torchair

# torch.compile hands options= and mode= to the backend as keywords;
# TorchAir's _npu_backend (npu_fx_compiler.py:865-884) gives them to
# _process_kwargs_options (configs/npugraphex_config.py:89-122): a key
# outside its table raises ValueError, a value goes through the setter of
# the config field the key maps to, and the mode is never read.


class Model(torch.nn.Module):
    def forward(self, x):
        return x + 1


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
m1 = torch.compile(Model(), backend=backend, options={"force_eagre": True})  # expect: TNG167
m2 = torch.compile(Model(), backend=backend, options={"force_eager": True, "capture_limit": "64"})  # expect: TNG166
m3 = torch.compile(Model(), backend=backend, mode="reduce-overhead")  # expect: TNG168
m4 = torch.compile(Model(), backend=backend, options={"clone_input": False, "inplace_pass": False})
m5 = torch.compile(Model(), backend=backend, mode="default")
m6 = torch.compile(Model(), backend="inductor", mode="reduce-overhead", options=None)
