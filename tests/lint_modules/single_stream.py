# A config that asks GE for a single stream.
import torchair

config = torchair.CompilerConfig()
config.ge_config.enable_single_stream = True
backend = torchair.get_npu_backend(compiler_config=config)
