"""The older torchair.ops spelling of the multi-stream annotations."""
from ..scope import npu_stream_switch, npu_wait_tensor  # noqa: F401


class NpuStreamSwitch:
    def __init__(self, stream_tag, stream_priority=0):
        self._scope = npu_stream_switch(stream_tag, stream_priority)

    def __enter__(self):
        return self._scope.__enter__()

    def __exit__(self, *exc):
        return self._scope.__exit__(*exc)
