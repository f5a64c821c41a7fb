# tolerance: matmul
# openai/whisper whisper/model.py, unchanged: a two-layer audio encoder
# (Conv1d subclasses overriding _conv_forward, sinusoidal positions, an
# assert on the audio shape) and a two-layer text decoder with cross
# attention; LayerNorm and Linear subclass torch.nn's (super().forward,
# weights cast to the input dtype); attention by
# F.scaled_dot_product_attention (is_causal for the decoder's self attention:
# in the PyTorch 1.13 run, tests/ref's stand-in, imported by name at the
# file's top), the decoder's mask built with -np.inf. The file imports
# .decoding and .transcribe: stubs/whisper provides them (and an empty
# package __init__). Two entries: the encoder on 16 mel frames of 16 bins, the
# batch geared 2 or 3; the decoder on 6 tokens, the token count geared 4 or 6.
import torch
import torch_npu
import torchair

from whisper.model import ModelDimensions, Whisper

torch.manual_seed(0)
dims = ModelDimensions(n_mels=16, n_audio_ctx=8, n_audio_state=32, n_audio_head=2,
                       n_audio_layer=2, n_vocab=64, n_text_ctx=8, n_text_state=32,
                       n_text_head=2, n_text_layer=2)
model = Whisper(dims).eval()
# TextDecoder leaves its positional embedding uninitialised (torch.empty)
torch.nn.init.normal_(model.decoder.positional_embedding, std=0.02)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
encoder = torch.compile(model.encoder, backend=npu_backend, dynamic=True, fullgraph=True)
decoder = torch.compile(model.decoder, backend=npu_backend, dynamic=True, fullgraph=True)

mel = torch.randn(3, 16, 16)
torchair.inference.set_dim_gears(mel, dim_gears={0: [2, 3]})
with torch.no_grad():
    audio = encoder(mel)
    tokens = torch.randint(0, dims.n_vocab, (3, 6))
    torchair.inference.set_dim_gears(tokens, dim_gears={1: [4, 6]})
    logits = decoder(tokens, audio)
print(tuple(audio.shape), tuple(logits.shape))
