# Two compiled entries whose bundle names would be the same
# (collide_A_b_run): A_b.run and A.b_run. tngc gen must refuse.
import torch


class A_b(torch.nn.Module):
    def run(self, x):
        return x + 1


class A(torch.nn.Module):
    def b_run(self, x):
        return x * 2


m1 = A_b()
m2 = A()
f1 = torch.compile(m1.run, fullgraph=True)
f2 = torch.compile(m2.b_run, fullgraph=True)
f1(torch.ones(2))
f2(torch.ones(2))
