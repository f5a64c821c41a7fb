"""torchair stand-in for the tngc reference: the annotations are accepted and
do nothing (eager execution on the CPU gives the results a compiled graph
must reproduce); set_dim_gears and cache_compile check their arguments the
way TorchAir documents them.
"""
import _tngc_ref

_tngc_ref.install()

from . import configs, core, inference, ops, scope  # noqa: E402
from .configs.compiler_config import CompilerConfig  # noqa: E402

__version__ = "0.0+tngc.ref"


class _NpuBackend:
    """What get_npu_backend returns: a torch.compile backend. The stand-in
    torch.compile never calls it; called directly, it runs the graph
    module eagerly."""

    def __init__(self, compiler_config):
        self.compiler_config = compiler_config

    def __call__(self, gm, example_inputs=None):
        return gm.forward

    def __repr__(self):
        return "<torchair npu backend (tngc reference), mode=%s>" % self.compiler_config.mode


def get_npu_backend(*, compiler_config=None, custom_decompositions=None):
    if compiler_config is None:
        compiler_config = CompilerConfig()
    if not isinstance(compiler_config, CompilerConfig):
        raise TypeError("get_npu_backend: compiler_config must be a CompilerConfig, got %r"
                        % (type(compiler_config).__name__,))
    return _NpuBackend(compiler_config)


def get_compiler(compiler_config=None):
    return get_npu_backend(compiler_config=compiler_config)
