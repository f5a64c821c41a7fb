# The compile settings of run_*.py: a reduce-overhead config and its backend.
import torchair as tng

config = tng.CompilerConfig()
config.mode = "reduce-overhead"
config.debug.graph_dump.type = "py"
npu_backend = tng.get_npu_backend(compiler_config=config)
