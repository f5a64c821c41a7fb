# Expect (tngc scan): with star imports from os and from torchair.scope, a
# bare super_kernel resolves through the torchair one; calls inside f-string
# interpolations are scanned like any other code.
#   8:8  super_kernel resolved callee torchair.scope.super_kernel args(scope="a")
#   9:9  npu_stream_switch resolved fn=<module> args(stream_tag="1")
from os import *
from torchair.scope import *
x = f"{super_kernel('a')}"
y = f"-{npu_stream_switch('1')!r}-"
