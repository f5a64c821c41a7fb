import torch
import torch_npu
import torchair

# An OptionValue with a list of values raises ValueError for a value not
# `in` the list (configs/_option_base.py:42-48). Python's `in` compares with
# ==, so 1 and 0.0 are in [True, False]; '2' and 2 are different.
config = torchair.CompilerConfig()
config.ge_config.oo_level = "O1"
config.ge_config.oo_level = "O2"  # expect: TNG166
config.experimental_config.frozen_parameter = 1
config.experimental_config.frozen_parameter = 0.0
config.experimental_config.frozen_parameter = 2  # expect: TNG166
config.experimental_config.frozen_parameter = "True"  # expect: TNG166
config.experimental_config.frozen_parameter = None  # expect: TNG166
config.aoe_config.aoe_mode = "2"
config.aoe_config.aoe_mode = 2  # expect: TNG166
config.dump_config.dump_mode = "inputs"  # expect: TNG166
config.experimental_config.topology_sorting_strategy = "StableRDFS"
# `option.value = v` is the same setter.
config.ge_config.export_compile_stat.value = 2  # expect: TNG166
config.ge_config.aicore_num = "24|48"
# _ExportConfig never calls NpuBaseConfig.__init__: assigning export_mode
# replaces the option object without a check, but its .value setter checks.
config.export.export_mode = "yes"
config.export.export_mode.value = "yes"  # expect: TNG166
# A value computed at run time is not judged.
level = "O" + str(len([1, 2]))
config.ge_config.oo_level = level
