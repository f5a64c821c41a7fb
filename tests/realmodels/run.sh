#!/bin/sh
# make realmodels: public model files, used unchanged, each driven by a short
# script of drivers/ that builds it small and compiles its inference call the
# way a TorchAir user does; tngc builds each, and every gear of every
# compiled entry is compared with PyTorch.
#
#   sh tests/realmodels/run.sh TNGC [NAME...]
#   sh tests/realmodels/run.sh TNGC --repro [FILE...]   (repro/: below)
#
# manifest.tsv names the files (name, repository, commit, paths, notes); they
# are not in this repository. For each row, in a temporary tree:
#   - the stand-in modules of stubs/ (packages the files import that are not
#     installed here, written for this suite) are copied in, then each path
#     is taken from the local git snapshot of its repository,
#     $REALMODELS_DIR/<owner>+<name>/repo or .../<owner>+<name> (a bare or
#     ordinary git directory; default root /work/.mirror), and drivers/NAME.py
#     beside them;
#   ref      tests/ref/harness.py --all-gears records the driver under
#            PyTorch, with pyonly/ on PYTHONPATH (its sitecustomize makes the
#            CUDA calls of the files no-ops on this CPU-only PyTorch);
#   build    tngc build NAME.py -o out --cache-dir CACHE;
#   run      each bundle's launcher on the recorded call and on every gear;
#   compare  tests/e2e/compare.py --script NAME.py.
# One line per model: "ok   NAME: ..." or "FAIL NAME: STEP: first diagnostic";
# VERBOSE=1 adds the tail of the failing step's log, KEEP=1 keeps the tree.
# Prints "realmodels: N of M build unchanged and match PyTorch". With no
# snapshot at all (CI) it prints "realmodels: skipped (no snapshots)" and
# exits 0. Exit status 1 when a model failed (the suite is a measurement:
# it is not part of make check).
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TNGC [NAME...]" >&2
    exit 2
fi
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
e2e=$root/tests/e2e
py=${PYTHON:-/usr/bin/python3}
mirrors=${REALMODELS_DIR:-${TNGC_MIRRORS:-/work/.mirror}}

# gitdir REPOSITORY: the snapshot's git directory, or nothing
gitdir() {
    d=$mirrors/$(echo "$1" | tr / +)
    for g in "$d/repo" "$d" "$d/.git"; do
        if [ -d "$g" ] && git --git-dir="$g" rev-parse -q --git-dir >/dev/null 2>&1; then
            echo "$g"; return
        fi
    done
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-realmodels.XXXXXX") || exit 2
if [ "${KEEP:-0}" = 1 ]; then
    echo "realmodels: keeping $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
    trap 'rm -rf "$tmp"; exit 1' INT TERM
fi

# first_diag LOG [DRIVER]: the first error diagnostic of LOG in a model file
# (an error in DRIVER.py is usually a consequence: a result of an entry that
# did not plan), else its first error diagnostic, else its first line that
# names an error, else its first line
first_diag() {
    l=
    [ -z "${2:-}" ] || l=$(grep ': error: ' "$1" | grep -v "^$2\.py:" | head -n 1)
    [ -n "$l" ] || l=$(grep -m 1 ': error: ' "$1")
    [ -n "$l" ] || l=$(grep -m 1 -E 'Error|error' "$1")
    [ -n "$l" ] || l=$(head -n 1 "$1")
    echo "$l"
}
verbose() { [ "${VERBOSE:-0}" = 1 ] && tail -n "${2:-15}" "$1" | sed 's/^/    /'; return 0; }

# run_model NAME REPOSITORY COMMIT PATHS: prints the model's line; returns 0
# when it matched PyTorch at every call
run_model() {
    name=$1 repo=$2 commit=$3 paths=$4
    g=$(gitdir "$repo")
    w=$tmp/$name
    mkdir -p "$w/tree"
    cp -R "$here/stubs/." "$w/tree/"
    for p in $(echo "$paths" | tr , ' '); do
        mkdir -p "$w/tree/$(dirname "$p")"
        if ! git --git-dir="$g" show "$commit:$p" >"$w/tree/$p" 2>"$w/git.log"; then
            echo "FAIL $name: $repo $commit: no $p in the snapshot"
            return 1
        fi
    done
    cp "$here/drivers/$name.py" "$w/tree/$name.py"
    check_script "$name" "$w"
}

# check_script NAME DIR: records DIR/tree/NAME.py under PyTorch, builds it,
# runs every bundle on every recorded call and compares; prints one line
check_script() {
    name=$1 w=$2
    script=$w/tree/$name.py
    if ! PYTHONPATH=$here/pyonly "$py" "$root/tests/ref/harness.py" "$script" "$w/ref" \
        --all-gears >"$w/harness.log" 2>&1; then
        echo "FAIL $name: PyTorch reference: $(tail -n 1 "$w/harness.log")"
        verbose "$w/harness.log"
        return 1
    fi
    if ! (cd "$w/tree" && "$tngc" build "$name.py" -o "$w/out" --cache-dir "$tmp/cache") \
        >"$w/build.log" 2>&1; then
        echo "FAIL $name: tngc build: $(first_diag "$w/build.log" "$name")"
        verbose "$w/build.log"
        return 1
    fi
    checks=0
    for ref in "$w"/ref/*/; do
        ref=${ref%/}
        bundle=$(basename "$ref")
        launcher=$w/out/${bundle}_launcher
        if [ ! -x "$launcher" ]; then
            echo "FAIL $name: bundle $bundle: no launcher"
            return 1
        fi
        if [ -f "$ref/gears.txt" ]; then
            set --
            for gd in "$ref"/gear*/; do set -- "$@" "${gd%/}"; done
        else
            set -- "$ref"
        fi
        for call in "$@"; do
            k=
            case $call in */gear*) k=${call##*/gear} ;; esac
            o=$w/run-$bundle${k:+-gear$k}
            label="$bundle${k:+ gear $k}"
            if ! sh "$e2e/launch.sh" "$launcher" "$call" "$o" --warmup 0 --iters 1 \
                >"$o.log" 2>&1; then
                echo "FAIL $name: $label: the launcher failed: $(first_diag "$o.log")"
                verbose "$o.log"
                return 1
            fi
            if [ -n "$k" ] && ! grep -q "^gear $k:" "$o.log"; then
                echo "FAIL $name: $label: the launcher ran $(grep '^gear' "$o.log"), not gear $k"
                return 1
            fi
            if ! "$py" "$e2e/compare.py" --script "$script" "$call/expected" "$o" \
                >"$o.cmp" 2>&1; then
                echo "FAIL $name: $label: differs from PyTorch: $(grep -m 1 -iv '^ok' "$o.cmp")"
                verbose "$o.cmp"
                return 1
            fi
            checks=$((checks + 1))
        done
    done
    echo "ok   $name: $checks calls match PyTorch"
}

# --repro [FILE...]: the minimal reproductions of repro/ (or the files
# given), each checked alone the same way; a line per file, "refused" while
# tngc still stops on it (the expected state of the worklist), "ok" once it
# builds and matches PyTorch, "FAIL" when it builds and differs. Exit 0
# unless one differs.
if [ "${1:-}" = --repro ]; then
    shift
    [ $# -gt 0 ] || set -- "$here"/repro/*.py
    n=0 fixed=0 wrong=0
    for f in "$@"; do
        n=$((n + 1))
        name=$(basename "$f" .py)
        mkdir -p "$tmp/repro-$name/tree"
        cp "$f" "$tmp/repro-$name/tree/"
        line=$(check_script "$name" "$tmp/repro-$name" </dev/null)
        case $line in
            "ok "*) fixed=$((fixed + 1)); echo "$line" ;;
            *"tngc build: "*) echo "refused $name: ${line#*tngc build: }" ;;
            *) wrong=$((wrong + 1)); echo "$line" ;;
        esac
    done
    echo "realmodels repro: $n reproductions, $((n - fixed - wrong)) refused by tngc, $fixed build and match PyTorch, $wrong differ"
    [ $wrong -eq 0 ]
    exit
fi

rows=$tmp/rows
grep -v '^#' "$here/manifest.tsv" | grep -v '^[[:space:]]*$' >"$rows"
if [ $# -gt 0 ]; then
    for n in "$@"; do grep "^$n	" "$rows"; done >"$rows.some"
    mv "$rows.some" "$rows"
fi
total=0 good=0 absent=0
while IFS='	' read -r name repo commit paths notes; do
    total=$((total + 1))
    if [ -z "$(gitdir "$repo")" ]; then
        absent=$((absent + 1))
        continue
    fi
    if run_model "$name" "$repo" "$commit" "$paths" </dev/null; then
        good=$((good + 1))
    fi
done <"$rows"
if [ $absent -eq $total ]; then
    echo "realmodels: skipped (no snapshots)"
    exit 0
fi
[ $absent -eq 0 ] || echo "realmodels: $absent models have no snapshot in $mirrors"
echo "realmodels: $good of $((total - absent)) build unchanged and match PyTorch"
[ $good -eq $((total - absent)) ]
