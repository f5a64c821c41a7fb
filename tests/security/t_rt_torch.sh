#!/bin/sh
# t_rt_torch.sh - hostile torch.save files and safetensors indexes given to
# a launcher's --weights (runtime/torch.c, safetensors.c's index): each is
# refused with exit 2 and exactly one line on stderr naming what was found,
# within 10 s, never a crash (the sanitizer build aborts on one) or a run
# of anything the pickle names. The fake bundle's one weight is 'w' f32[4].
#   good         torch.save({'w': ...}) of Debian's torch: exit 0 (also
#                from Python's zipfile, and an nn.Parameter saved as such)
#   os.system, builtins.eval   GLOBALs a state dict never uses
#   reduce       REDUCE calling a storage class, and a string
#   key          a storage key past the archive's entries
#   stride       size and stride reaching past the storage
#   local        a local header whose name disagrees with the directory
#   bomb         an entry declaring 4 GiB in a small file
#   overlap      two directory records sharing one local header
#   count        an end record claiming 65535 entries
#   deflate      compressed entries
#   dotdot, abs  entry names with '..' and a leading '/'
#   stack, memo, marks   a pickle past the machine's bounds
#   truncated    the good file cut short
#   index        an index naming '../w.safetensors', '/abs' or '.hidden'
#
# usage: sh t_rt_torch.sh BUILD_DIR   (holding libtngcrt.a)
. "$(dirname "$0")/lib.sh"

fake_launcher

${PYTHON:-/usr/bin/python3} - "$tmp" <<'PYEOF' || { fail data "python3 with torch"; exit 1; }
import io, json, os, struct, sys, zipfile
import torch
d = sys.argv[1]
w = torch.tensor([0.5, 1.0, 1.5, 2.0])
torch.save({"w": w}, d + "/good.pt")
torch.save({"w": torch.nn.Parameter(w)}, d + "/param.pt")   # through _rebuild_parameter
good = open(d + "/good.pt", "rb").read()
z = zipfile.ZipFile(d + "/good.pt")
prefix = z.namelist()[0].split("/")[0]
pkl = z.read(prefix + "/data.pkl")
blob = z.read(prefix + "/data/0")

def put(name, data):
    open(d + "/" + name + ".pt", "wb").write(data)

def mkzip(entries, method=zipfile.ZIP_STORED):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", method) as zf:
        for n, v in entries:
            zf.writestr(n, v)
    return b.getvalue()

def archive(p, extra=(), method=zipfile.ZIP_STORED):
    return mkzip([("archive/data.pkl", p), ("archive/data/0", blob)] + list(extra), method)

def once(hay, old, new):
    assert hay.count(old) == 1, (old, hay.count(old))
    return hay.replace(old, new)

put("zipped", archive(pkl))   # the same state dict in Python's zipfile: exit 0
put("system", archive(b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03."))
put("eval", archive(b"\x80\x02cbuiltins\neval\nX\x01\x00\x00\x001\x85R."))
put("reduce", archive(b"\x80\x02ctorch\nFloatStorage\n)R."))
put("reduce_str", archive(b"\x80\x02X\x01\x00\x00\x00a)R."))
put("key", archive(once(pkl, b"X\x01\x00\x00\x000", b"X\x02\x00\x00\x0099")))
put("stride", archive(once(pkl, b"K\x01\x85", b"K\x02\x85")))
a = archive(pkl)
put("local", a[:30] + a[30:46].replace(b"data.pkl", b"data.pkX") + a[46:])
cd = a.rindex(b"PK\x01\x02")      # the last directory record: data/0
lh = a.index(b"PK\x03\x04", 1)   # data/0's local header: both declare 4 GiB
big = struct.pack("<II", 0xfffffff0, 0xfffffff0)
put("bomb", a[:lh + 18] + big + a[lh + 26:cd + 20] + big + a[cd + 28:])
# a third directory record: a copy of data/0's under another name, same local header
end = a.index(b"PK\x05\x06")
rec = a[cd:end]
rec2 = rec.replace(b"archive/data/0", b"archive/data/1")
e = bytearray(a[end:])
struct.pack_into("<HHI", e, 8, 3, 3, len(a[a.index(b"PK\x01\x02"):end]) + len(rec2))
put("overlap", a[:end] + rec2 + bytes(e))
e = bytearray(a[end:])
struct.pack_into("<HH", e, 8, 0xfffe, 0xfffe)
put("count", a[:end] + bytes(e))
put("deflate", archive(pkl, method=zipfile.ZIP_DEFLATED))
put("dotdot", archive(pkl, [("archive/../x/abc", b"hi")]))
abs_ = archive(pkl, [("archive/zz/abcd", b"hi")])
put("abs", abs_.replace(b"archive/zz/abcd", b"/archive/zzabcd"))
put("stack", archive(b"\x80\x02" + b"]" * (1 << 21) + b"."))
put("memo", archive(b"\x80\x02]r\xff\xff\xff\xff."))
put("marks", archive(b"\x80\x02" + b"(" * 10000 + b"."))
put("truncated", good[:len(good) // 2])

st = struct.pack("<4f", 0.5, 1.0, 1.5, 2.0)
h = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
h += b" " * (-len(h) % 8)
open(d + "/w.safetensors", "wb").write(struct.pack("<Q", len(h)) + h + st)
os.mkdir(d + "/sub")
for name, shard in (("dotdot", "../w.safetensors"), ("abs", d + "/w.safetensors"),
                    ("hidden", ".w.safetensors"), ("good", "w.safetensors")):
    json.dump({"weight_map": {"w": shard}}, open("%s/sub/%s.index.json" % (d, name), "w"))
os.link(d + "/w.safetensors", d + "/sub/w.safetensors")
PYEOF

launch() { fake_run "$@"; }
expect() { fake_expect "$@"; }
refuse() {   # NAME NEEDLE: $tmp/NAME.pt refused in one line
    launch "$1" "$tmp/$1.pt" && expect "$1" 2 1 "$2"
}

launch good "$tmp/good.pt" && expect good 0 0 ""
check "good: outputs written" '[ -f "$tmp/out/out0.npy" ]'
launch zipped "$tmp/zipped.pt" && expect "zipped (no data descriptors)" 0 0 ""
launch param "$tmp/param.pt" && expect "an nn.Parameter saved as such" 0 0 ""
refuse system "pickle at offset 2: GLOBAL 'os system' is not one a state dict uses"
refuse eval "GLOBAL 'builtins eval' is not one a state dict uses"
refuse reduce "REDUCE calls a storage class"
refuse reduce_str "REDUCE calls something not a GLOBAL"
refuse key "storage key 99 is out of range"
refuse stride "tensor 'w': its size, stride and offset reach past its storage of 4 elements"
refuse local "zip entry 'archive/data.pkl': its local header disagrees with the central directory"
refuse bomb "zip entry 'archive/data/0': 4294967280 bytes at offset"
refuse overlap "overlap"
refuse count "zip archive claims 65534 entries"
refuse deflate "is compressed (method 8)"
refuse dotdot "zip entry 'archive/../x/abc' has an unsafe name"
refuse abs "zip entry '/archive/zzabcd' has an unsafe name"
refuse stack "stack deeper than the limit"
refuse memo "a memo key beyond the limit"
refuse marks "MARKs nested deeper than the limit"
refuse truncated "no zip end of central directory record"
launch "index good" "$tmp/sub/good.index.json" && expect "index good" 0 0 ""
for n in dotdot abs hidden; do
    launch "index $n" "$tmp/sub/$n.index.json" && expect "index $n" 2 1 "is not a plain file name"
done
"$tmp/launcher" --check-weights "$tmp/system.pt" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
expect "--check-weights of a hostile file: exit 1, one line" 1 1 "GLOBAL 'os system'"

[ $fails -eq 0 ]
