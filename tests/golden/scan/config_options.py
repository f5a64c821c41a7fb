# tngc scan golden: config_options.py
#
# compiler_config (each CompilerConfig() call) and config_option (each
# assignment to a field of a config object).  A config object is a name or a
# `self.<attr>` assigned the result of a CompilerConfig() call: a name is one in
# the function (or module) where it is assigned, and module-level config names
# are also seen from functions that do not bind that name themselves; a
# `self.<attr>` is one in every method of its class.  A config_option reports the
# object (`config`), the field path after it, and the value; its position is the
# start of the assignment target.  Only a TorchAir (resolved) CompilerConfig()
# makes a config object: the fields of another package's CompilerConfig()
# object are not reported.  Unknown fields are still reported (lint judges them).
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   47:10 compiler_config resolved fn=<module> args() scopes[]
#   48:1 config_option resolved fn=<module> set(config.mode = "reduce-overhead") scopes[]
#   49:1 config_option resolved fn=<module> set(config.experimental_config.aclgraph._aclnn_static_shape_kernel = True) scopes[]
#   50:1 config_option resolved fn=<module> set(config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = "/tmp/build") scopes[]
#   51:1 config_option resolved fn=<module> set(config.debug.graph_dump.type = "py") scopes[]
#   52:1 config_option resolved fn=<module> set(config.inference_config.dynamic_gears_merge_policy = "product") scopes[]
#   53:1 config_option resolved fn=<module> set(config.ge_config.enable_single_stream = False) scopes[]
#   54:1 config_option resolved fn=<module> set(config.no_such_field = 1) scopes[]
#   58:13 compiler_config UNRESOLVED fn=<module> args() scopes[]
#   63:11 compiler_config resolved fn=make_backend args() scopes[]
#   64:5 config_option resolved fn=make_backend set(cfg.ge_config.enable_single_stream = expr(single_stream)) scopes[]
#   65:5 config_option resolved fn=make_backend set(config.mode = "max-autotune") scopes[]
#   66:12 get_npu_backend resolved fn=make_backend args(compiler_config=expr(cfg)) scopes[]
#   71:32 compiler_config resolved fn=Runner.__init__ args() scopes[]
#   72:9 config_option resolved fn=Runner.__init__ set(self.compiler_config.mode = "npugraph_ex") scopes[]
#   75:9 config_option resolved fn=Runner.tweak set(self.compiler_config.debug.graph_dump.type = "txt") scopes[]
#
# Notes:
#   Not reported: line 55 (a read), line 57 (not a config object),
#   line 59 (an option of a CompilerConfig that is not TorchAir's),
#   line 79 (parameter `config` shadows the module-level object).
#   Line 58: a CompilerConfig that is not TorchAir's: reported with resolved false.
# Diagnostics: none.
# ---- end of expectations ----

import types

import mypkg.configs
import torchair
from torchair.configs.compiler_config import CompilerConfig

config = CompilerConfig()
config.mode = "reduce-overhead"
config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = "/tmp/build"
config.debug.graph_dump.type = "py"
config.inference_config.dynamic_gears_merge_policy = "product"
config.ge_config.enable_single_stream = False
config.no_such_field = 1
print(config.mode)
model_args = types.SimpleNamespace()
model_args.mode = "train"
other_cfg = mypkg.configs.CompilerConfig()
other_cfg.mode = "fast"


def make_backend(single_stream):
    cfg = torchair.CompilerConfig()
    cfg.ge_config.enable_single_stream = single_stream
    config.mode = "max-autotune"
    return torchair.get_npu_backend(compiler_config=cfg)


class Runner:
    def __init__(self):
        self.compiler_config = CompilerConfig()
        self.compiler_config.mode = "npugraph_ex"

    def tweak(self):
        self.compiler_config.debug.graph_dump.type = "txt"


def other(config):
    config.mode = "eager"
