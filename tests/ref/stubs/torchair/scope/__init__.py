"""torchair.scope stand-in: the scopes are null contexts; npu_wait_tensor
returns its first argument. On the CPU every op runs in program order on
one stream, which every stream and event schedule must agree with."""
import contextlib


def _check_tag(stream_tag, stream_priority):
    if not isinstance(stream_tag, str):
        raise TypeError("npu_stream_switch: stream_tag must be a str, got %r" % (stream_tag,))
    if not isinstance(stream_priority, int) or isinstance(stream_priority, bool):
        raise TypeError("npu_stream_switch: stream_priority must be an int, got %r" % (stream_priority,))


@contextlib.contextmanager
def npu_stream_switch(stream_tag, stream_priority=0):
    _check_tag(stream_tag, stream_priority)
    yield


@contextlib.contextmanager
def super_kernel(scope=None, options=""):
    if scope is not None and not isinstance(scope, str):
        raise TypeError("super_kernel: scope must be a str or None, got %r" % (scope,))
    if not isinstance(options, str):
        raise TypeError("super_kernel: options must be a str, got %r" % (options,))
    yield


@contextlib.contextmanager
def limit_core_num(op_aicore_num=None, op_vectorcore_num=None):
    yield


def npu_wait_tensor(self, dependency):
    """Later users of self wait until dependency has been computed."""
    return self
