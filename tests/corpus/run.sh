#!/bin/sh
# Corpus test. For each model file of tests/corpus:
#  - `tngc scan` reports an annotation starting on exactly the lines marked
#    `# resolved` / `# unresolved`, with that resolved flag;
#  - scan and lint never crash (exit 0 or 1) and give the same bytes twice.
# Then every .py file of CPython's standard library on this machine (real
# code from a public code base, ~600k lines) is scanned and linted: no crash.
set -u
tngc=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

for py in "$here"/*.py; do
    name=$(basename "$py")
    "$tngc" scan --format json "$py" >"$tmp/a.json"; s1=$?
    "$tngc" scan --format json "$py" >"$tmp/b.json"
    "$tngc" lint "$py" >"$tmp/a.lint"; s2=$?
    "$tngc" lint "$py" >"$tmp/b.lint"
    [ $s1 -le 1 ] && [ $s2 -le 1 ] && ok || bad "$name: exit status scan $s1, lint $s2"
    cmp -s "$tmp/a.json" "$tmp/b.json" && cmp -s "$tmp/a.lint" "$tmp/b.lint" && ok || bad "$name: output differs between runs"
    python3 - "$py" "$tmp/a.json" <<'PY' && ok || bad "$name: resolved flags differ from the markers"
import json, re, sys
src, out = sys.argv[1], sys.argv[2]
want = {}
for i, line in enumerate(open(src, encoding="utf-8"), 1):
    m = re.search(r"#\s*(un)?resolved\s*$", line)
    if m:
        want[i] = m.group(1) is None
got = {}
for a in json.load(open(out))["files"][0]["annotations"]:
    if a["line"] in got:
        print(f"  line {a['line']}: two annotations"); sys.exit(1)
    got[a["line"]] = a["resolved"]
diff = sorted(set(want.items()) ^ set(got.items()))
for line, _ in diff:
    print(f"  line {line}: marked {want.get(line, 'nothing')}, scanned {got.get(line, 'nothing')}")
sys.exit(1 if diff else 0)
PY
done

stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])' 2>/dev/null)
if [ -d "$stdlib" ]; then
    find "$stdlib" -name '*.py' -not -path '*/site-packages/*' | sort > "$tmp/files"
    n=$(wc -l < "$tmp/files")
    xargs "$tngc" scan --format json < "$tmp/files" > "$tmp/std.json" 2>"$tmp/std.err"; s1=$?
    xargs "$tngc" lint < "$tmp/files" > /dev/null 2>>"$tmp/std.err"; s2=$?
    # xargs reports 123 when a command exited 1..125, 124+ for a crash or signal
    if [ $s1 -le 123 ] && [ $s2 -le 123 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/std.json" 2>/dev/null; then
        ok; echo "ok   $n stdlib files of $stdlib scanned and linted"
    else
        bad "stdlib: exit status scan $s1, lint $s2"; head -5 "$tmp/std.err"
    fi
fi
echo "corpus: $pass passed, $fail failed"
[ $fail -eq 0 ]
