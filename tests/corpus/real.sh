#!/bin/sh
# make corpus: lint real public code that uses TorchAir and hold every
# finding to a verdict read from TorchAir's source.
#
#   sh tests/corpus/real.sh TNGC
#
# sources.tsv names the files (repository, commit, path); they are not in
# this repository.  Each one is taken out of a local git snapshot of its
# repository, $TNGC_MIRRORS/<owner>+<name>/repo or .../<owner>+<name>
# (a bare or ordinary git directory; default root /work/.mirror), into a
# temporary tree <owner>+<name>/<path>, and linted with `tngc lint --format
# json`.  Every finding, keyed by (repository, path, line, rule), is looked up
# in verdicts.tsv:
#   - a finding whose verdict is false fails the run;
#   - a finding with no verdict fails the run (classify it: REAL.md);
#   - a verdict `true` whose finding no longer fires is a lost true finding
#     and fails the run, unless its verdict is `gone-ok` (the loss was
#     judged acceptable and written down);
#   - a verdict `false` whose finding no longer fires is reported as fixed.
# With --recall (make corpus), it then measures recall by mutation on the
# same files: tests/corpus/mutate.py injects the misuses of
# docs/rules-coverage.tsv at real call sites and counts those lint reports
# (REAL.md).  With no snapshot at all (CI), it says so and exits 0.
set -u
tngc=${1:?usage: real.sh TNGC [--recall [--verbose]]}
recall=${2:-}
recall_verbose=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
mirrors=${TNGC_MIRRORS:-/work/.mirror}
case $tngc in /*) ;; */*) tngc=$(pwd)/$tngc ;; esac

# gitdir REPOSITORY: the snapshot's git directory, or nothing
gitdir() {
    d=$mirrors/$(echo "$1" | tr / +)
    for g in "$d/repo" "$d" "$d/.git"; do
        if [ -d "$g" ] && git --git-dir="$g" rev-parse -q --git-dir >/dev/null 2>&1; then
            echo "$g"; return
        fi
    done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
: >"$tmp/files"; : >"$tmp/absent"; : >"$tmp/missing"

grep -v '^#' "$here/sources.tsv" | while IFS='	' read -r repo commit path; do
    [ -n "$repo" ] || continue
    g=$(gitdir "$repo")
    if [ -z "$g" ]; then echo "$repo" >>"$tmp/absent"; continue; fi
    dest=$(echo "$repo" | tr / +)/$path
    mkdir -p "$tmp/tree/$(dirname "$dest")"
    if git --git-dir="$g" show "$commit:$path" >"$tmp/tree/$dest" 2>/dev/null; then
        echo "$dest" >>"$tmp/files"
    else
        rm -f "$tmp/tree/$dest"
        echo "$repo $commit $path" >>"$tmp/missing"
    fi
done

if [ ! -s "$tmp/files" ]; then
    echo "corpus: skipped (no local snapshots in $mirrors)"
    exit 0
fi
sort -u "$tmp/absent" | sed 's/^/corpus: no snapshot of /'
sed 's/^/corpus: not in the snapshot: /' "$tmp/missing"

# lint in batches (one JSON array per batch); exit 0 or 1 only
split -l 40 "$tmp/files" "$tmp/batch."
status=0
for b in "$tmp"/batch.*; do
    set --
    while IFS= read -r f; do set -- "$@" "$f"; done <"$b"
    (cd "$tmp/tree" && "$tngc" lint --format json "$@") >"$b.json" 2>"$b.err"
    rc=$?
    if [ $rc -gt 1 ]; then
        echo "corpus: tngc lint exited $rc on $(head -1 "$b") ..."; head -5 "$b.err"
        status=1
    fi
done
[ $status -eq 0 ] || exit 1

python3 - "$here/verdicts.tsv" "$tmp/files" "$tmp"/batch.*.json <<'PY'
import json, sys

verdicts_file, files_file, outputs = sys.argv[1], sys.argv[2], sys.argv[3:]

def key_of(path, line, rule):
    top, _, rest = path.partition("/")
    return (top.replace("+", "/", 1), rest, int(line), rule)

linted = set()
for f in open(files_file, encoding="utf-8"):
    top, _, rest = f.strip().partition("/")
    linted.add((top.replace("+", "/", 1), rest))

verdict, bad_rows = {}, 0
for n, row in enumerate(open(verdicts_file, encoding="utf-8"), 1):
    if row.startswith("#") or not row.strip():
        continue
    cols = row.rstrip("\n").split("\t")
    if len(cols) < 6 or cols[4] not in ("true", "false", "gone-ok") or not cols[2].isdigit():
        print(f"corpus: verdicts.tsv:{n}: want repository, path, line, rule, "
              "true|false|gone-ok, evidence, note")
        bad_rows += 1
        continue
    verdict[(cols[0], cols[1], int(cols[2]), cols[3])] = cols[4]

findings = []
for o in outputs:
    findings += json.load(open(o, encoding="utf-8"))

true_n = false_n = 0
false_rows, new_rows, fired = [], [], set()
for d in findings:
    k = key_of(d["path"], d["line"], d["rule"])
    fired.add(k)
    v = verdict.get(k)
    shown = f'{d["path"]}:{d["line"]}:{d["col"]}: {d["severity"]}: {d["message"]} [{d["rule"]}]'
    if v is None:
        new_rows.append(shown)
    elif v == "false":
        false_n += 1
        false_rows.append(shown)
    else:
        true_n += 1

lost, gone_ok, fixed = [], 0, 0
for k, v in sorted(verdict.items()):
    if k in fired or (k[0], k[1]) not in linted:
        continue
    if v == "true":
        lost.append("%s/%s:%d %s" % (k[0].replace("/", "+"), k[1], k[2], k[3]))
    elif v == "gone-ok":
        gone_ok += 1
    else:
        fixed += 1

for title, rows in (("FALSE finding (TorchAir accepts this line)", false_rows),
                    ("UNCLASSIFIED finding (add a verdict: tests/corpus/REAL.md)", new_rows),
                    ("LOST true finding (no longer reported; mark gone-ok only if that is right)", lost)):
    for r in rows:
        print(f"corpus: {title}: {r}")
classified = true_n + false_n
precision = f"{100.0 * true_n / classified:.1f}%" if classified else "n/a"
print(f"corpus: {len(linted)} files linted, {len(findings)} findings: {true_n} true, "
      f"{false_n} false, {len(new_rows)} unclassified; precision {precision}; "
      f"{len(lost)} lost true, {gone_ok} gone-ok, {fixed} false findings no longer reported")
sys.exit(1 if false_rows or new_rows or lost or bad_rows else 0)
PY
status=$?
if [ "$recall" = --recall ]; then
    if [ "$recall_verbose" = --verbose ]; then
        python3 "$here/mutate.py" "$tngc" "$tmp/tree" "$tmp/files" --verbose || status=1
    else
        python3 "$here/mutate.py" "$tngc" "$tmp/tree" "$tmp/files" || status=1
    fi
fi
exit $status
