# Runs the LLaMA-style model of modeling.py on the NPU through TorchAir:
# a prefill entry (one prompt, its length geared) and a decode entry (one
# token for each of a batch of sequences, the batch geared), both compiled
# with the TorchAir backend, sharing one static KV-cache pool.
#
#   prefill  input_ids [1, S] int64, S in PREFILL_GEARS; slot_ids [1] int64
#   decode   input_ids [B, 1], positions [B], slot_ids [B] int64, B in DECODE_GEARS
#   both     kv_caches: per layer (key_cache, value_cache) bfloat16
#            [num_slots, max_position_embeddings, num_key_value_heads, head_dim],
#            mark_static, updated in place
#   out      float32 logits, [1, S, vocab] (prefill) or [B, 1, vocab] (decode)
#
# It prefills one prompt per slot, then runs decode steps for all of them.
import torch
import torch_npu
import torchair

from modeling import LlamaConfig, LlamaForCausalLM, init_kv_caches

DTYPE = torch.bfloat16       # weights, activations and the KV cache, as deployed
PREFILL_GEARS = [4, 8]       # prompt lengths the prefill graph is built for
DECODE_GEARS = [1, 2, 4]     # tngc: ignore[TNG125] (batch 1 is a real decode shape)
DECODE_STEPS = 3


if __name__ == "__main__":
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=16,
                         num_slots=4)
    model = LlamaForCausalLM(config).to(DTYPE).npu().eval()

    # The KV-cache pool never changes shape: mark it static, so that only the
    # geared dims of the token inputs are dynamic.
    kv_caches = init_kv_caches(config, dtype=DTYPE)
    for key_cache, value_cache in kv_caches:
        torch._dynamo.mark_static(key_cache)
        torch._dynamo.mark_static(value_cache)

    compiler_config = torchair.CompilerConfig()
    npu_backend = torchair.get_npu_backend(compiler_config=compiler_config)
    prefill = torch.compile(model.prefill, backend=npu_backend, dynamic=True, fullgraph=True)
    decode = torch.compile(model.decode, backend=npu_backend, dynamic=True, fullgraph=True)

    with torch.no_grad():
        # Prefill: one prompt per slot, each of a length in PREFILL_GEARS.
        prompt_lens = [8, 4, 8, 4]
        last_tokens = []
        for slot in range(config.num_slots):
            input_ids = torch.randint(0, config.vocab_size, (1, prompt_lens[slot])).npu()
            torchair.inference.set_dim_gears(input_ids, dim_gears={1: PREFILL_GEARS})
            logits = prefill(input_ids, torch.tensor([slot]).npu(), kv_caches)
            last_tokens.append(logits[:, -1:].argmax(dim=-1))
        print("prefill logits:", tuple(logits.shape))

        # Decode: every sequence at its own position in its own slot.
        input_ids = torch.cat(last_tokens, dim=0)
        positions = torch.tensor(prompt_lens).npu()
        slot_ids = torch.arange(config.num_slots).npu()
        for t in (input_ids, positions, slot_ids):
            torchair.inference.set_dim_gears(t, dim_gears={0: DECODE_GEARS})
        for step in range(DECODE_STEPS):
            logits = decode(input_ids, positions, slot_ids, kv_caches)
            input_ids = logits.argmax(dim=-1)
            positions = positions + 1
        print("decode logits:", tuple(logits.shape))
        print("next tokens:", input_ids[:, 0])

# Conformance (tests/e2e/compare.py): the outputs come from float matmuls, so
# they are compared at the matmul tolerances.
# tolerance: matmul
