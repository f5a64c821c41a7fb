# Found through -I: a reduce-overhead backend.
import torchair

cfg = torchair.CompilerConfig()
cfg.mode = "reduce-overhead"
backend = torchair.get_npu_backend(compiler_config=cfg)
