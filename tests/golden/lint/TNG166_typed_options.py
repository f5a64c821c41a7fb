import torch
import torch_npu
import torchair


def my_pass(gm):
    return gm


# The setters of OptionValue's subclasses (configs/_option_base.py).
config = torchair.CompilerConfig()
# IntRangeValue: an int (a bool is one) in its range, else ValueError.
config.debug.aclgraph.static_capture_size_limit = 128
config.debug.aclgraph.static_capture_size_limit = True
config.debug.aclgraph.static_capture_size_limit = 0  # expect: TNG166
config.debug.aclgraph.static_capture_size_limit = 1.5  # expect: TNG166
config.experimental_config.static_model_ops_lower_limit = -1
config.experimental_config.static_model_ops_lower_limit = -2  # expect: TNG166
# IntListValue: None or a list of ints, else TypeError.
config.experimental_config.aclgraph._aclnn_static_shape_kernel_sym_value_range = [1, 64]
config.experimental_config.aclgraph._aclnn_static_shape_kernel_sym_value_range = [1, "64"]  # expect: TNG166
config.experimental_config.aclgraph._aclnn_static_shape_kernel_sym_value_range = 64  # expect: TNG166
# StrOptionValue, DictOptionValue: a str, a dict, or None.
config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = 7  # expect: TNG166
config.experimental_config.aclgraph._super_kernel_optimize_options = "stream-fusion=1"  # expect: TNG166
config.experimental_config.aclgraph._super_kernel_debug_options = {"debug-sync-all": "1"}
# CallableValue: a callable or None, else TypeError.
config.post_grad_custom_pre_pass = my_pass
config.post_grad_custom_post_pass = lambda gm: gm
config.post_grad_custom_pre_pass = "my_pass"  # expect: TNG166
# RegexValue: re.match against the option's pattern, else ValueError.
config.dump_config.dump_step = "0|5|10-20"
config.dump_config.dump_step = "0,5"  # expect: TNG166
config.dump_config.dump_layer = "Conv2D_1 MatMul"
config.dump_config.dump_layer = "conv;mm"  # expect: TNG166
# MustExistedPathValue: None is never an existing directory.
config.dump_config.dump_path = None  # expect: TNG166
# MustExistedFileAddr: "" raises ValueError; None is accepted.
config.dump_config.dump_config_path = None
config.dump_config.dump_config_path = ""  # expect: TNG166
# The path properties take os.path.realpath(value).
config.debug.graph_dump.path = "./graphs"
config.debug.data_dump.path = 0  # expect: TNG166
# A plain attribute takes anything.
config.debug.data_dump.filter = 42
