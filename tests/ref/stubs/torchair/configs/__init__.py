from . import compiler_config  # noqa: F401
