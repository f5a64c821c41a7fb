import torch
import torch_npu
import torchair


def step(x):
    with torchair.scope.super_kernel("sk"):  # expect: TNG114
        return x + 1


class Model(torch.nn.Module):
    def forward(self, x):
        with torchair.scope.super_kernel("model"):
            return x * 2


def dynamic_module_level():
    # the module-level step
    backend = torchair.get_npu_backend()
    return torch.compile(step, backend=backend, dynamic=True)


def dynamic_local():
    # a def inside a function shadows the module-level def of that name
    def step(x):
        return x - 1

    backend = torchair.get_npu_backend()
    return torch.compile(step, backend=backend, dynamic=True)


def dynamic_local_class():
    # and a class inside a function shadows the module-level class
    class Model(torch.nn.Module):
        def forward(self, x):
            return x - 2

    backend = torchair.get_npu_backend()
    return torch.compile(Model(), backend=backend, dynamic=True)


def outer():
    # a def nested two levels down sees its enclosing function's class
    class Model(torch.nn.Module):
        def forward(self, x):
            with torchair.scope.super_kernel("inner"):  # expect: TNG114
                return x / 2

    def make():
        backend = torchair.get_npu_backend()
        return torch.compile(Model(), backend=backend, dynamic=True)

    return make()


static = torch.compile(Model(), backend=torchair.get_npu_backend(), dynamic=False)
