# An import cycle: each file is scanned once, and the partial module
# exports nothing.
import torchair
from cycle_b import backend_b

config = torchair.CompilerConfig()
config.mode = "reduce-overhead"
backend_a = torchair.get_npu_backend(compiler_config=config)
