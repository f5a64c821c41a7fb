import functools

import torch
import torch.nn as nn
import torchair


# Forms that real model runners use to hand cache_compile a bound method of
# an nn.Module: TorchAir only needs func.__self__ to be a Module
# (inference/_cache_compiler.py:612-616), so none of these is reported.
class Runner:
    def __init__(self, model, names):
        self.model = model
        self.model_runner = self
        for name in names:
            fn = getattr(type(model), name)
            self.model.__dict__[name] = fn.__get__(self.model, nn.Module)
            self.model.__dict__[name] = torchair.inference.cache_compile(self.model.__dict__[name])
        self.decode = torchair.inference.cache_compile(self.model.decode)
        self.prefill = torchair.inference.cache_compile(getattr(self.model_runner.model, names[0]))


class CompileMixin:
    def wrap(self, name):
        self.__dict__[name] = torchair.inference.cache_compile(self.__dict__[name])


# A partial is never a bound method: TorchAir raises ValueError.
def step(model, x):
    return model(x)


def build(model):
    return torchair.inference.cache_compile(functools.partial(step, model))  # expect: TNG150
