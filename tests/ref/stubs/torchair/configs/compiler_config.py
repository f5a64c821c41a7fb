"""CompilerConfig stand-in: the sections and fields tngc reads, with
TorchAir's defaults. Like TorchAir's own option objects it accepts other
fields too (TorchAir has many that tngc does not interpret)."""


class _Section:
    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __repr__(self):
        items = ", ".join("%s=%r" % kv for kv in self.__dict__.items())
        return "%s(%s)" % (type(self).__name__, items)


class _GraphDump(_Section):
    pass


class _Debug(_Section):
    pass


class _AclGraph(_Section):
    pass


class _Experimental(_Section):
    pass


class _GeConfig(_Section):
    pass


class _Inference(_Section):
    pass


class CompilerConfig(_Section):
    def __init__(self):
        super().__init__(
            mode="max-autotune",
            debug=_Debug(graph_dump=_GraphDump(type=None, path=None)),
            dump_config=_Section(enable_dump=False),
            export=_Section(),
            aoe_config=_Section(),
            fusion_config=_Section(),
            experimental_config=_Experimental(
                aclgraph=_AclGraph(_aclnn_static_shape_kernel=False,
                                   _aclnn_static_shape_kernel_build_dir=None),
                frozen_parameter=False,
                tiling_schedule_optimize=False,
            ),
            inference_config=_Inference(dynamic_gears_merge_policy="zip"),
            ge_config=_GeConfig(enable_single_stream=False),
        )
