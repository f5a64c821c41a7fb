import torch
import torch._dynamo
import torch_npu
import torchair


class Decoder(torch.nn.Module):
    def decode(self, x, xa, positional_embedding):
        return x + xa + positional_embedding


if __name__ == "__main__":
    config = torchair.CompilerConfig()
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    decoder = Decoder().npu()
    decoder.decode = torch.compile(decoder.decode, dynamic=False, fullgraph=True, backend=npu_backend)
    x = torch.randn(1, 448, 384).npu()
    xa = torch.randn(1, 448, 384).npu()
    positional_embedding = torch.randn(1, 448, 384).npu()
    torch._dynamo.mark_static(x)  # expect: TNG140
    torch._dynamo.mark_static(xa)  # expect: TNG140
    out = decoder.decode(x, xa, positional_embedding)
