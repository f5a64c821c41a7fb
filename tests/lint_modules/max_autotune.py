# A default-mode config (max-autotune), and a field TorchAir refuses:
# reported when this file is linted, never in the files that import it.
import torchair

config = torchair.CompilerConfig()
config.mode = "max-autotune"
config.debug.graph_dump.type = "svg"
backend = torchair.get_npu_backend(compiler_config=config)
