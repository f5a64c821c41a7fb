# A scalar minus a tensor (aclnnRsubs): the one form of conform/binary.py's
# that no other model of the ACL tests reaches, binary.py itself stopping at
# its unmapped div. With it, the bundles the tests build call every aclnn
# operator of codegen/aclnn.def.
import torch
import torchair


class Model(torch.nn.Module):
    def forward(self, x):
        return 2.0 - x


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, fullgraph=True)
model(torch.ones(2, 8))
