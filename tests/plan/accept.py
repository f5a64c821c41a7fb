"""The acceptance checks of the planner, on the JSON plans of the examples.

usage: accept.py DIR   (DIR holds examples_<folder>_<script>.json)
"""
import json
import os
import sys

d = sys.argv[1]
failures = []


def load(name):
    with open(os.path.join(d, name)) as f:
        return json.load(f)


def check(cond, what):
    if not cond:
        failures.append(what)


def entry(plan, name=None):
    es = plan["entries"]
    if name is None:
        return es[0]
    return next(e for e in es if e["name"] == name)


# examples/dim_gears, zip: gears (2,2)(2,2) and (4,2)(4,2), in that order
e = entry(load("examples_dim_gears_model.py.json"))
got = [[g["shapes"]["x1"], g["shapes"]["x2"]] for g in e["gears"]]
check(got == [[[2, 2], [2, 2]], [[4, 2], [4, 2]]], "dim_gears zip gears: %s" % got)

# product: the four combinations, lexicographic over (input, dim)
e = entry(load("examples_dim_gears_product.py.json"))
got = [[g["shapes"]["x1"], g["shapes"]["x2"]] for g in e["gears"]]
want = [[[2, 2], [2, 2]], [[2, 2], [4, 2]], [[4, 2], [2, 2]], [[4, 2], [4, 2]]]
check(got == want, "dim_gears product gears: %s" % got)

# examples/multi_stream: three streams; events add_result -> mm_result (0 -> 1) and
# mm_result -> add2 (1 -> 2) only: add2's wait on add_result is redundant
e = entry(load("examples_multi_stream_model.py.json"))
check(len(e["streams"]) == 3, "multi_stream: %d streams" % len(e["streams"]))
ops = {o["id"]: o for o in e["ops"]}
edges = sorted((ev["from"], ev["to"], ops[ev["after_op"]]["kind"], ops[ev["before_op"]]["kind"])
               for ev in e["events"])
check(edges == [(0, 1, "add", "mm"), (1, 2, "mm", "add")], "multi_stream events: %s" % edges)
tags = [s["tag"] for s in e["streams"]]
check(tags == [None, "1", "2"], "multi_stream tags: %s" % tags)

# the decoder: a strict saving of memory in every gear, four batch gears
e = entry(load("examples_decoder_model.py.json"))
check(len(e["gears"]) == 4, "decoder: %d gears" % len(e["gears"]))
for m in e["memory"]:
    check(m["arena_bytes"] is not None and m["arena_bytes"] < m["naive_bytes"],
          "decoder gear %s: arena %s, naive %s" % (m["gear"], m["arena_bytes"], m["naive_bytes"]))
check(len(e["streams"]) >= 2, "decoder: one stream")
check(any(sk["segments"] for sk in e["super_kernels"]), "decoder: no super-kernel segment")
check(len(e["weights"]) > 0 and all("." in w["name"] for w in e["weights"]),
      "decoder: weights not named like state_dict keys")

# cache_compile's prefill/decode: one entry per cache-compiled method
p = load("examples_cache_compile_prefill_decode.py.json")
names = [x["name"] for x in p["entries"]]
check(names == ["Model.prefill", "Model.decode"], "prefill_decode entries: %s" % names)

# the super-kernel seed: two entries, the second with one segment of both ops
p = load("examples_super_kernel_model.py.json")
check(len(p["entries"]) == 2, "super_kernel: %d entries" % len(p["entries"]))
sk = p["entries"][1]["super_kernels"]
check(len(sk) == 1 and sk[0]["scope"] == "sp1" and len(sk[0]["segments"]) == 1,
      "super_kernel: segments %s" % sk)

# the CPU target's fused groups (codegen_fused_json): in every entry; in
# the decoder, epilogues of its Linears and a pointwise group inside its
# super-kernel segment, each group's ops op ids whose members read the op
# before them
kinds = {"epilogue", "pointwise", "rmsnorm", "layernorm", "softmax", "row"}
for name in sorted(os.listdir(d)):
    if name.endswith(".json"):
        for x in load(name)["entries"]:
            check(isinstance(x.get("fused_groups"), list), "%s: no fused_groups" % name)
e = entry(load("examples_decoder_model.py.json"))
ops = {o["id"]: o for o in e["ops"]}
fg = e["fused_groups"]
check(any(g["kind"] == "epilogue" and ops[g["ops"][0]]["kind"] == "linear" for g in fg),
      "decoder: no Linear epilogue in %s" % fg)
check(any(g["segment"] is not None and g["stream"] is None for g in fg),
      "decoder: no fused group in a segment")
for g in fg:
    check(g["kind"] in kinds and all(i in ops for i in g["ops"]), "decoder group %s" % g)
    for a, b in zip(g["ops"], g["ops"][1:]):
        check(ops[a]["outputs"][0]["value"] in ops[b]["inputs"], "decoder group %s: %d -> %d" % (g, a, b))

for f in failures:
    print("FAIL accept:", f)
print("accept: %d failed" % len(failures))
sys.exit(1 if failures else 0)
