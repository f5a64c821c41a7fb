#!/usr/bin/env bash
# tests/recompiles/run.sh - conformance test of `tngc recompiles` against the
# reference script examples/recompile/recompiled_op.py.
#
# Usage: tests/recompiles/run.sh [TNGC]     (default: <repo>/build/tngc)
#
# For each log, runs `python3 recompiled_op.py --log_path LOG` in a temporary
# directory and `tngc recompiles LOG -o FILE`, and requires byte-identical
# recompile_op_list.txt files.  Logs: the example's host.log, its CRLF and
# lone-CR versions, tests/recompiles/inputs/*.log (an optional NAME.flag
# holds the split flag), an empty log and a generated 200k-line log.  Then it
# checks the reports, the error exits, and that memory stays bounded on a
# generated ~200 MB log (max RSS < 20 MB, via /usr/bin/time -f %M; without
# it, a `ulimit -v` cap).  Prints "N passed, M failed"; exits 1 on failure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ $# -ge 1 ]; then
    tngc=$1
    case $tngc in /*) ;; *) tngc=$PWD/$tngc ;; esac
else
    tngc=$root/build/tngc
fi
ref=$root/examples/recompile/recompiled_op.py
export PYTHONUTF8=1 PYTHONDONTWRITEBYTECODE=1

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit $?
}

if ! "$tngc" recompiles --help >/dev/null 2>&1; then
    bad "setup" "'$tngc recompiles --help' does not work"
    finish
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tngc-recompiles.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# compare NAME LOG [SPLIT_FLAG]: list files must be byte-identical; the JSON
# report must parse and count the same iterations.
compare() {
    local name=$1 log=$2 flag=${3-=====iter} d=$work/$1 rc
    mkdir -p "$d/ref"
    if ! (cd "$d/ref" && python3 "$ref" --log_path "$log" --split_flag "$flag"); then
        bad "$name" "reference script failed"
        return
    fi
    "$tngc" recompiles "$log" --split-flag "$flag" -o "$d/list.txt" >"$d/report.txt" 2>"$d/err.txt"
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "$name" "exit $rc: $(head -c 300 "$d/err.txt")"
        return
    fi
    if ! cmp "$d/ref/recompile_op_list.txt" "$d/list.txt" >"$d/cmp.txt" 2>&1; then
        bad "$name" "list differs from recompiled_op.py: $(head -c 300 "$d/cmp.txt")"
        return
    fi
    "$tngc" recompiles "$log" --split-flag "$flag" --format json -o "$d/list2.txt" >"$d/report.json" 2>/dev/null
    rc=$?
    if [ $rc -ne 0 ] || ! python3 - "$d/report.json" "$d/list.txt" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1], encoding="utf-8"))
lines = open(sys.argv[2], "rb").read().split(b"\n")
assert rep["iterations"] == (len(lines) - 1) // 2, (rep["iterations"], len(lines))
for s in rep["suspects"]:
    assert s["first_iteration"] > rep["after"] and s["iterations"][0] == s["first_iteration"]
EOF
    then
        bad "$name" "JSON report invalid or inconsistent"
        return
    fi
    ok "$name"
}

# --- logs compared with the reference script -------------------------------
ex=$root/examples/recompile/host.log
compare example "$ex"
sed 's/$/\r/' "$ex" >"$work/crlf.log"
compare crlf "$work/crlf.log"
tr '\n' '\r' <"$ex" >"$work/cr.log"
compare lone-cr "$work/cr.log"
for f in "$here"/inputs/*.log; do
    n=$(basename "$f" .log)
    if [ -f "$here/inputs/$n.flag" ]; then
        compare "$n" "$f" "$(head -n1 "$here/inputs/$n.flag")"
    else
        compare "$n" "$f"
    fi
done
: >"$work/empty.log"
compare empty "$work/empty.log"
printf 'To compile op: A\n=====iter0\nTo compile op: B' >"$work/nofinalnl.log"
compare no-final-newline "$work/nofinalnl.log"

# 200k generated lines: markers, noise, duplicates, padding, CRLF, commas,
# the flag twice, Unicode spaces, names that only appear late.
awk 'BEGIN {
    seed = 12345; it = 0
    for (i = 0; i < 200000; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648; r = int(seed / 65536) % 1000
        eol = (r % 17 == 0) ? "\r\n" : "\n"
        if (r < 8) { printf "To compile op|=====iter%d%s", it++, eol; continue }
        if (r < 500) { printf "[INFO] GE(%d,python3): step %d noise line %d%s", r, it, i, eol; continue }
        op = "Op" (r % 40)
        if (r % 9 == 0 && it > 20) op = "Dyn_" int(it / 3)
        if (r % 23 == 0) op = op ",x"
        pre = (r % 5 == 0) ? "  \t" : ""
        post = (r % 7 == 0) ? " \342\200\200 " : ""
        if (r % 31 == 0) post = " To compile op: " op "_again"
        if (r % 37 == 0) post = "To compile op: "
        printf "%s[INFO] TBE(1,python3): To compile op: %s%s%s", pre, op, post, eol
    }
}' >"$work/generated.log"
compare generated-200k "$work/generated.log"

# --- reports ------------------------------------------------------------------
d=$work/reports
mkdir -p "$d"
if "$tngc" recompiles "$ex" -o "$d/list.txt" >"$d/text.txt" 2>"$d/err.txt" &&
    head -n1 "$d/text.txt" | grep -q '^11 iterations, 27 distinct ops; 3 compiled for the first time after iteration 3 (dynamic-shape suspects):$' &&
    [ "$(sed -n '2,$p' "$d/text.txt" | awk '{print $1}' | tr '\n' ' ')" = "ConcatD GatherV2D NonZero " ] &&
    grep -q '^  NonZero  first compiled in iteration 6, compiled in iterations 6,8,9$' "$d/text.txt" &&
    [ ! -s "$d/err.txt" ]; then
    ok "text report"
else
    bad "text report" "$(head -c 300 "$d/text.txt")"
fi
if "$tngc" recompiles "$ex" --after 0 --format json -o "$d/list.txt" >"$d/r.json" 2>/dev/null &&
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["iterations"] == 11 and r["ops"] == 27 and r["after"] == 0, r
assert [s["op"] for s in r["suspects"]][:3] == ["Conv2D", "BNTrainingReduce", "BNTrainingUpdate"], r
assert r["suspects"][-1] == {"op": "NonZero", "first_iteration": 6, "iterations": [6, 8, 9], "iteration_count": 3}, r
' "$d/r.json"; then
    ok "json report --after 0"
else
    bad "json report --after 0" "$(head -c 300 "$d/r.json")"
fi
(cd "$d" && python3 "$ref" --log_path "$ex")
if "$tngc" recompiles "$ex" -o - >"$d/stdout.txt" 2>/dev/null && cmp -s "$d/stdout.txt" "$d/recompile_op_list.txt"; then
    ok "-o - writes the list to stdout"
else
    bad "-o - writes the list to stdout"
fi
rm -f "$d/recompile_op_list.txt"
if (cd "$d" && "$tngc" recompiles "$ex" >/dev/null 2>&1) && cmp -s "$d/list.txt" "$d/recompile_op_list.txt"; then
    ok "default output recompile_op_list.txt"
else
    bad "default output recompile_op_list.txt"
fi

# --- errors: exit 2, one message "tngc: PATH: reason", no file left ----------
# expect_error NAME EXPECTED_MESSAGE_REGEX DIR_TO_CHECK ARGS...
expect_error() {
    local name=$1 re=$2 dir=$3 rc
    shift 3
    mkdir -p "$dir"
    "$tngc" recompiles "$@" >"$work/e.out" 2>"$work/e.err"
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$work/e.err")" -eq 1 ] && grep -Eq "$re" "$work/e.err" &&
        [ -z "$(ls -A "$dir")" ]; then
        ok "$name"
    else
        bad "$name" "exit $rc, stderr: $(head -c 300 "$work/e.err"), dir: $(ls -A "$dir" | head -3 | tr '\n' ' ')"
    fi
}
expect_error "missing log" "^tngc: $work/nope\\.log: No such file or directory\$" "$work/e1" \
    "$work/nope.log" -o "$work/e1/list.txt"
expect_error "log is a directory" "^tngc: $work/e2: Is a directory\$" "$work/e2" \
    "$work/e2" -o "$work/e2/list.txt"
expect_error "output directory missing" "^tngc: $work/e3/no/list\\.txt: No such file or directory\$" "$work/e3" \
    "$ex" -o "$work/e3/no/list.txt"
mkdir -p "$work/e4/list.txt"
expect_error "output is a directory" "^tngc: $work/e4/list\\.txt: Is a directory\$" "$work/e4/list.txt" \
    "$ex" -o "$work/e4/list.txt"
if [ "$(id -u)" -ne 0 ]; then
    mkdir -p "$work/e5" && chmod 555 "$work/e5"
    expect_error "output directory not writable" "^tngc: $work/e5/list\\.txt: Permission denied\$" "$work/e5" \
        "$ex" -o "$work/e5/list.txt"
    chmod 755 "$work/e5"
fi

# --- bounded memory on a ~200 MB log with a 24 MB line -------------------------
big=$work/big.log
awk 'BEGIN {
    s = "x"; while (length(s) < 8388608) s = s s
    for (i = 0; i < 2600000; i++) {
        if (i % 1000 == 0) print "To compile op|=====iter" int(i / 1000)
        else if (i % 7 == 0) print "[INFO] TBE(1,python3): To compile op: Op" (i % 50) (i % 91 == 0 ? "_dyn" int(i / 100000) : "")
        else print "[INFO] GE(24617,python3):2024-03-18-10:00:00.754.411 [graph_manager.cpp:1204] noise " i
        if (i == 1300000) print s "To compile op: " s s
    }
}' >"$big"
size=$(wc -c <"$big")
if [ -x /usr/bin/time ]; then
    : >"$work/empty.log"
    /usr/bin/time -f %M -o "$work/rss0" "$tngc" recompiles "$work/empty.log" -o "$work/m0.txt" >/dev/null 2>&1
    /usr/bin/time -f %M -o "$work/rss1" "$tngc" recompiles "$big" -o "$work/m1.txt" >/dev/null 2>"$work/m1.err"
    rc=$?
    base=$(tail -n1 "$work/rss0")
    rss=$(tail -n1 "$work/rss1")
    # 20 MB; if the binary alone already needs more than 4 MB (shared
    # libraries), allow 16 MB above what it needs for an empty log.
    limit=20480
    [ "$base" -gt 4096 ] && limit=$((base + 16384))
    if [ $rc -eq 0 ] && [ "$rss" -lt "$limit" ] && grep -q '^iter: 2600$' "$work/m1.txt" &&
        grep -q 'warning: op name longer than' "$work/m1.err"; then
        ok "bounded memory: $((size / 1048576)) MB log, max RSS ${rss} KB (empty log: ${base} KB, limit ${limit} KB)"
    else
        bad "bounded memory" "exit $rc, max RSS ${rss} KB (limit ${limit} KB), $(head -c 200 "$work/m1.err")"
    fi
else
    # the smallest address-space cap that an empty log runs under, + 32 MB
    : >"$work/empty.log"
    for cap in 32768 65536 131072 262144 524288 1048576 2097152; do
        (ulimit -v $cap && "$tngc" recompiles "$work/empty.log" -o "$work/m0.txt" >/dev/null 2>&1) && break
    done
    limit=$((cap + 32768))
    (ulimit -v $limit && "$tngc" recompiles "$big" -o "$work/m1.txt" >/dev/null 2>&1)
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^iter: 2600$' "$work/m1.txt"; then
        ok "bounded memory: $((size / 1048576)) MB log under ulimit -v $((limit / 1024)) MB"
    else
        bad "bounded memory" "exit $rc under ulimit -v $((limit / 1024)) MB"
    fi
fi
rm -f "$big" "$work/m1.txt"

finish
