#!/bin/sh
# t_rt_safetensors.sh - the safetensors reader's work is bounded per byte
# of the header: duplicate metadata keys and tensor names, and overlapping
# tensors, are found by sorting (n log n), not by comparing every pair, and
# the tensors of the file no weight uses are found through the index. A
# 2.7 MB header of 200,000 metadata keys kept the launcher busy for about
# 70 s; 200,000 tensor names, or 200,000 tensors with data, as long.
#
# Each file holds the fake bundle's weight 'w' besides the crowd; the
# launcher must finish within 10 s with the right answer:
#   meta         200,000 metadata keys: exit 0, no warning
#   meta dup     the same with the first key repeated last: exit 2
#   names        200,000 empty tensors: exit 0, one warning (200000 unused)
#   names dup    the same with a name repeated last: exit 2
#   data         200,000 one-float tensors side by side: exit 0, a warning;
#                --strict: exit 2
#   overlap      the same with the last two overlapping: exit 2
#
# usage: sh t_rt_safetensors.sh BUILD_DIR   (holding libtngcrt.a)
. "$(dirname "$0")/lib.sh"

fake_launcher

python3 - "$tmp" <<'PYEOF' || { fail data "python3"; exit 1; }
import json, struct, sys
d, n = sys.argv[1], 200000
w = struct.pack("<4f", 0.5, 1.0, 1.5, 2.0)

def write(name, text, blob):
    with open("%s/%s.safetensors" % (d, name), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text.encode() + blob)

def meta(dup):
    keys = ['"k%d":""' % i for i in range(n)] + (['"k0":"again"'] if dup else [])
    tensor = '"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}'
    write("meta_dup" if dup else "meta", '{"__metadata__":{%s},%s}' % (",".join(keys), tensor), w)

def names(dup):
    ts = ['"t%d":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}' % i for i in range(n)]
    if dup:
        ts.append('"t7":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}')
    ts.append('"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}')
    write("names_dup" if dup else "names", "{%s}" % ",".join(ts), w)

def side_by_side(overlap):
    ts = ['"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}']
    at = 16
    for i in range(n):
        begin = at - 2 if overlap and i == n - 1 else at
        ts.append('"d%d":{"dtype":"I8","shape":[4],"data_offsets":[%d,%d]}' % (i, begin, begin + 4))
        at = begin + 4
    write("overlap" if overlap else "data", "{%s}" % ",".join(ts), w + b"\0" * (at - 16))

meta(False); meta(True); names(False); names(True); side_by_side(False); side_by_side(True)
PYEOF

# launch NAME WEIGHTS ARGS...: $tmp/WEIGHTS.safetensors (lib.sh's fake_run)
launch() {
    l_name=$1 l_w=$2
    shift 2
    fake_run "$l_name" "$tmp/$l_w.safetensors" "$@"
}
expect() { fake_expect "$@"; }

launch meta meta && expect meta 0 0 ""
check "meta: outputs written" '[ -f "$tmp/out/out0.npy" ]'
launch "meta dup" meta_dup && expect "meta dup" 2 1 "duplicate metadata key 'k0'"
launch names names && expect names 0 1 "200000 tensors the model does not use"
launch "names dup" names_dup && expect "names dup" 2 1 "duplicate tensor name 't7'"
launch data data && expect data 0 1 "200000 tensors the model does not use, ignored: 'd0', 'd1', 'd2' and 199997 more"
launch "data --strict" data --strict && expect "data --strict" 2 1 "200000 tensors the model does not use (--strict)"
launch overlap overlap && expect overlap 2 1 "tensors 'd199998' and 'd199999' overlap"

[ $fails -eq 0 ]
