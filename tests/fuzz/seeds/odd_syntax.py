# -*- coding: utf-8 -*-
import torch as t, torchair as ta
from torchair import *
from . import sibling
x = [i ** 2 for i in range(3) if i] + [*range(2)]
d = {**{"a": 1}, "b": (yield_ := 2)}
s = {1, 2} | {3}
match x:
    case [a, *rest]:
        pass
async def f(a, /, b, *, c=ta.scope.super_kernel):
    global x
    await f(1, 2)
    del d["a"]
    assert a, "msg"
    try:
        raise ValueError from None
    except (ValueError, TypeError) as e:
        pass
    finally:
        return ...
@t.compile(backend=ta.get_npu_backend(), dynamic=None)
def g(x: t.Tensor) -> t.Tensor:
    return -x if not x.dim() else ~x
g(t.zeros(2, 2, dtype=t.int32))
while False:
    break
else:
    continue_ = 1
