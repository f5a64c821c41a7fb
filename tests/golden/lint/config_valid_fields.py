import torch
import torch_npu
import torchair


def pre_pass(gm):
    return gm


# Settings TorchAir accepts, from every section: no finding.
config = torchair.CompilerConfig()
config.mode = "npugraph_ex"
config.mode.value = "reduce-overhead"
config.post_grad_custom_pre_pass = pre_pass
config.post_grad_custom_post_pass = None
config.debug.graph_dump.type = "py"
config.debug.graph_dump.path = "./graphs"
config.debug.graph_dump._path = "./graphs"
config.debug.data_dump.type = "npy"
config.debug.data_dump.filter = lambda name: name.startswith("mm")
config.debug.fx_summary.type = "csv"
config.debug.fx_summary.skip_compile = 0
config.debug.run_eagerly = 1
config.debug.aclgraph.static_capture_size_limit = 32
config.debug.aclgraph.clone_input = False
config.debug.deadlock_check = True
config.export.export_mode = True
config.export.export_name = "decoder"
config.export.experimental.auto_atc_config_generated = True
config.dump_config.enable_dump = True
config.dump_config.dump_mode = "output"
config.dump_config.dump_step = "0|2-4"
config.dump_config.dump_layer = "Conv2D_1 MatMul/2"
config.dump_config.dump_data = "stats"
config.dump_config.data_dump_stage = "original"
config.experimental_config.cc_parallel_enable = False
config.experimental_config.static_model_ops_lower_limit = 4
config.experimental_config.jit_compile = "auto"
config.experimental_config.aot_config_output_loss_index = 3
config.experimental_config.topology_sorting_strategy = "BFS"
config.experimental_config.aclgraph._aclnn_static_shape_kernel_sym_index = 1
config.experimental_config.aclgraph._aclnn_static_shape_kernel_sym_value_range = (1, 8)
config.inference_config.dynamic_gears_merge_policy = "zip"
config.ge_config.enable_single_stream = False
config.ge_config.oo_level = "O3"
config.ge_config.oo_constant_folding = True
config.ge_config.export_compile_stat = "1"
config.ge_config.aicore_num = "24|48"
config.ge_config.optimization_switch = "pass1:off"
config.aclgraph_config.use_custom_pool = None
