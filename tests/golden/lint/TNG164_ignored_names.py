import torch
import torch_npu
import torchair

# Some parts of CompilerConfig store any attribute a script sets and never
# read the unknown ones: export (_ExportConfig never calls
# NpuBaseConfig.__init__, so it has no list of options), aclgraph_config and
# npugraphex_config (plain classes). A typo there is silently ignored: a
# warning. export.experimental is an NpuBaseConfig again: an error.
config = torchair.CompilerConfig()
config.export.export_name = "decoder"
config.export.export_nmae = "decoder"  # expect: TNG164
config.export.experimental.enable_lite_export = True
config.export.experimental.enable_lite = True  # expect: TNG164
config.aclgraph_config.use_custom_pool = None
config.aclgraph_config.use_custom_pools = None  # expect: TNG164

# npugraph_ex options are read only from torch.compile(..., options={...})
# (configs/npugraphex_config.py:103-122); npugraphex_config's attributes are
# never read, whether the name is an option or not.
config.npugraphex_config.force_eager = True  # expect: TNG164
config.npugraphex_config.clone_inptu = False  # expect: TNG164
# graph_dump_type was an npugraph_ex option at 770a4d54, not at fced8842.
config.npugraphex_config.graph_dump_type = "py"  # expect: TNG164

# An option is an OptionValue object: an attribute other than .value is
# stored on it and never read.
config.mode.valeu = "reduce-overhead"  # expect: TNG164
config.debug.graph_dump.path = "/tmp/graphs"
