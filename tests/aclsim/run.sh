#!/bin/sh
# The aclsim suite: ACL bundles (tngc build --target acl) executed by aclsim
# (tests/aclsim/aclsim.c: streams as threads, aclnn operators as reference
# loops, the race and lifetime checker) and compared with PyTorch.
#
# usage: tests/aclsim/run.sh TNGC [MODEL.py...]
#
# For each script (default: every conformance model, every script an
# example's Makefile lists in TNGC_BUNDLES, and tests/aclsim/models), in a
# temporary folder:
#   ref      tests/ref/harness.py --all-gears records it under PyTorch
#            (one fork server for all: tests/ref/serve.sh);
#   eager    tngc build --target acl --acl-home SIM (the toolkit build.sh
#            makes; --cache-dir shared by all builds) and each bundle's
#            launcher on the recorded call and on every gear (launch.sh,
#            --warmup 0 --iters 1);
#   captured the same from the copy captured.py writes, its compile
#            configs in reduce-overhead mode: a static gear runs eagerly
#            once, is captured, then replayed (--warmup 1 --iters 2: the
#            outputs compared are a replay's, and the launcher must have
#            replayed: aclsim's TNGC_ACLSIM_LOG), byte for byte equal to
#            the eager build's third call, and compared with PyTorch too
#            unless that third call differs from the first (a script whose
#            runs update inputs or state in place);
#   compare  every run of both modes in one process (compare_calls.py:
#            tests/e2e/compare.py's comparison, the script's tolerance class);
#   mutations (mutate.sh, on tests/conform/models/streams.py; left out
#            with ACLSIM_NO_MUTATIONS=1): one planned event wait removed,
#            one workspace shrunk, two arguments of one aclnn call swapped,
#            each failing with a message naming it; and captured_test.sh,
#            captured.py's rewrites and refusals.
# A failing (model, mode) is expected only when README.md's "Known
# failures" block lists it with a part of its message; a listed one that
# passes, or fails otherwise, fails the suite too.
# The scripts run JOBS at a time (default: the CPUs), the mutation checks
# beside them. Prints one line per check, the workers' wall time per phase
# and "aclsim: N passed, M failed (S s)".
# PYTHON: the interpreter (default /usr/bin/python3, with torch); KEEP=1
# keeps the temporary folder.
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TNGC [MODEL.py...]" >&2
    exit 2
fi
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/aclsim
py=${PYTHON:-/usr/bin/python3}
harness=$root/tests/ref/harness.py
# the default scripts: every conformance model, every script an example's
# Makefile lists in TNGC_BUNDLES, and the suite's own (tests/aclsim/models:
# what no other script covers, FRACTAL_NZ weights)
default_scripts() {
    for m in "$root"/tests/conform/models/*.py; do echo "$m"; done
    for mk in "$root"/examples/*/Makefile; do
        for b in $(sed -n 's/^TNGC_BUNDLES *:= *//p' "$mk"); do echo "$(dirname "$mk")/$b"; done
    done
    for m in "$here"/models/*.py; do echo "$m"; done
}

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
show() { tail -n "${2:-8}" "$1" | sed 's/^/    /'; }
# now: sets now to "WALL CPU", the wall clock and the CPU seconds (user
# and system) of this shell and its finished children (times must run in
# this shell: a subshell's counts start at 0)
now() {
    times >"$tmp/$key.times"
    now="$(date +%s.%N) $(tr -s 'ms\n' '   ' <"$tmp/$key.times" | awk '{ print $1 * 60 + $2 + $3 * 60 + $4 + $5 * 60 + $6 + $7 * 60 + $8 }')"
}
# spent PHASE T0: adds the wall and CPU seconds since T0 (a value of now)
# to t_PHASE and c_PHASE
spent() {
    now
    eval "t_$1=\$(echo \"\$t_$1 \$2 \$now\" | awk '{ printf \"%.2f\", \$1 + \$4 - \$2 }')"
    eval "c_$1=\$(echo \"\$c_$1 \$2 \$now\" | awk '{ printf \"%.2f\", \$1 + \$5 - \$3 }')"
}

# the known failures: README.md's block after "## Known failures", one
# "MODEL MODE: TEXT" a line, TEXT a part of the failure's message
known=$(sed -n '/^## Known failures/,/^## /p' "$here/README.md" | sed -n '/^```$/,/^```$/p' | grep -v '^```')
known_text() { printf '%s\n' "$known" | sed -n "s|^$1 $2: ||p" | head -n 1; }

# check MODEL MODE STATUS DETAIL: one (model, mode) judged against the list
check() {
    c_text=$(known_text "$1" "$2")
    if [ "$3" = ok ]; then
        if [ -n "$c_text" ]; then
            bad "$1 $2: passes, but README.md lists it as a known failure ($4)"
        else
            ok "$1 $2: matches PyTorch ($4)"
        fi
    elif [ -z "$c_text" ]; then
        bad "$1 $2: $4"
    elif printf '%s\n' "$4" | grep -qF -- "$c_text"; then
        ok "$1 $2: fails as README.md's known failures say ($c_text)"
    else
        bad "$1 $2: fails otherwise than README.md's known failures say (\"$c_text\"): $4"
    fi
}

# run_mode SCRIPT MODE: builds every bundle of the script in MODE and runs
# it on every recorded call and gear; sets status (ok or failed) and
# detail; the runs still to be compared with PyTorch go to $w/compare.list
# ("MODE:BUNDLE:CALL<tab>EXPECTED<tab>ACTUAL"), the number of runs checked
# to n_MODE
run_mode() {
    r_script=$1 r_mode=$2 r_w=$w/$2
    r_stem=$(basename "$r_script" .py)
    eval "n_$r_mode=0"
    mkdir -p "$r_w/src/static_kernel_build"
    if [ "$r_mode" = captured ]; then
        # a copy whose compile configs are in reduce-overhead mode
        if ! "$py" "$here/captured.py" "$r_script" "$r_w/src/$r_stem.py" >"$r_w/captured.log" 2>&1; then
            status=failed detail="no reduce-overhead copy (tests/aclsim/captured.py): $(sed -n 's/^[^:]*: //p' "$r_w/captured.log" | head -n 1)"
            return
        fi
    else
        cp "$r_script" "$r_w/src/$r_stem.py"
    fi
    # the modules beside it (an example's), the script's copy kept
    cp -n "${r_script%/*}"/*.py "$r_w/src/"
    now && t=$now
    if ! (cd "$r_w/src" && "$tngc" build --target acl --acl-home "$sim" --cache-dir "$tmp/cache" --opt -O0 \
        -o ../out "$r_stem.py") >"$r_w/build.log" 2>&1; then
        spent build "$t"
        status=failed detail="tngc build --target acl: $(grep -m1 'error' "$r_w/build.log" || tail -n 1 "$r_w/build.log")"
        return
    fi
    spent build "$t"
    now && t=$now
    status=ok detail='' n=0
    for ref in "$w"/ref/*/; do
        ref=${ref%/}
        name=${ref##*/}
        calls=$ref
        [ -f "$ref/gears.txt" ] && calls=$(ls -d "$ref"/gear*/)
        for c in $calls; do
            c=${c%/}
            call=${c##*/}
            o=$r_w/run-$name-$call
            iters="--warmup 0 --iters 1"
            [ "$r_mode" = captured ] && iters="--warmup 1 --iters 2"
            rm -f "$w/simlog"
            # shellcheck disable=SC2086
            if ! TNGC_ACLSIM_LOG=$w/simlog sh "$here/launch.sh" "$r_w/out/${name}_launcher" "$c" "$o" $iters \
                >"$o.log" 2>&1; then
                status=failed detail="$name $call: $(grep -m1 'aclsim:\|error' "$o.log" || tail -n 1 "$o.log")"
                break 2
            fi
            if [ "$r_mode" = captured ] && grep -q "^gear [0-9]*: all static" "$o.log" &&
                ! grep -q "^replay" "$w/simlog" 2>/dev/null; then
                status=failed detail="$name $call: a static gear in reduce-overhead mode was not replayed"
                break 2
            fi
            n=$((n + 1))
            if [ "$r_mode" = captured ]; then
                # the replay against the eager build's third call, byte for
                # byte; and against PyTorch too unless the eager build's
                # third call differs from its first (inputs or state
                # updated in place by every run)
                e=$w/eager/run-$name-$call
                # shellcheck disable=SC2086
                if ! sh "$here/launch.sh" "$w/eager/out/${name}_launcher" "$c" "$e-3" $iters \
                    >"$e-3.log" 2>&1; then
                    status=failed detail="$name $call: the eager launcher failed at its third call"
                    break 2
                fi
                same=1
                for f in "$e-3"/*.npy; do
                    if ! cmp -s "$f" "$o/${f##*/}"; then
                        status=failed detail="$name $call: ${f##*/} of the replay differs from the eager run's"
                        break 3
                    fi
                    [ $same = 0 ] || cmp -s "$f" "$e/${f##*/}" || same=0
                done
                [ $same = 1 ] || continue
            fi
            printf '%s:%s:%s\t%s\t%s\n' "$r_mode" "$name" "$call" "$c/expected" "$o" >>"$w/compare.list"
        done
    done
    spent run "$t"
    eval "n_$r_mode=\$n"
}

# run_one SCRIPT: both modes of one script, its check lines on stdout
run_one() {
    script=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    # a conformance model by its name, an example's script as DIR/SCRIPT
    case $script in
    "$root"/tests/conform/models/*) label=$(basename "$script" .py) ;;
    *) label=$(basename "$(dirname "$script")")/$(basename "$script" .py) ;;
    esac
    w=$tmp/$(printf '%s' "$label" | tr / _)
    mkdir -p "$w"
    : >"$w/compare.list"
    now && t=$now
    if ! "$py" "$harness" "$script" "$w/ref" --all-gears >"$w/harness.log" 2>&1; then
        spent ref "$t"
        bad "$label: PyTorch reference (tests/ref/harness.py --all-gears)"
        show "$w/harness.log"
        return
    fi
    spent ref "$t"
    # (st_MODE, dt_MODE read back by eval below)
    # shellcheck disable=SC2034
    run_mode "$script" eager
    st_eager=$status dt_eager=$detail
    run_mode "$script" captured
    st_captured=$status dt_captured=$detail
    # every run that got as far, both modes, compared in one process
    now && t=$now
    if [ -s "$w/compare.list" ]; then
        "$py" "$here/compare_calls.py" "$script" <"$w/compare.list" >"$w/compare.out" 2>&1
    fi
    spent cmp "$t"
    for mode in eager captured; do
        eval "status=\$st_$mode detail=\$dt_$mode n=\$n_$mode"
        if [ "$status" = ok ]; then
            if [ -s "$w/compare.list" ] && ! grep -q "^$mode:" "$w/compare.out" &&
                grep -q "^$mode:" "$w/compare.list"; then
                status=failed detail="tests/aclsim/compare_calls.py: $(tail -n 1 "$w/compare.out")"
            elif f=$(grep -m1 "^$mode:[^ ]* FAIL " "$w/compare.out" 2>/dev/null); then
                k=${f%% *} && k=${k#*:}   # BUNDLE:CALL
                status=failed detail="${k%%:*} ${k#*:}: differs from PyTorch: ${f#* FAIL }"
            else
                worst=$(sed -n "s/^$mode:[^ ]* ok //p" "$w/compare.out" 2>/dev/null | sort -n | tail -n 1)
                detail="$n calls, worst ${worst:-0} of the tolerance"
            fi
        fi
        check "$label" "$mode" "$status" "$detail"
    done
}

# The scripts run JOBS at a time (default: the CPUs), each in a worker (this
# script again, with ACLSIM_ONE set to the shared temporary folder) that
# writes its lines, counts and times there; the mutation checks are one more
# worker. Lines are printed in the scripts' order, the mutations' last.
if [ -n "${ACLSIM_ONE:-}" ]; then
    tmp=$ACLSIM_ONE sim=$ACLSIM_ONE/sim
    t_ref=0 t_build=0 t_run=0 t_cmp=0 c_ref=0 c_build=0 c_run=0 c_cmp=0
    key=mutations
    if [ "$1" = --mutations ]; then
        now && t=$now
        sh "$here/mutate.sh" "$tngc" "$sim" "$tmp/mut" >"$tmp/mut.log" 2>&1
        sh "$here/captured_test.sh" "$tmp/captured-test" >>"$tmp/mut.log" 2>&1
        spent run "$t"
        sed -n 's/^\(ok  \|FAIL\) /&/p' "$tmp/mut.log" >"$tmp/mutations.lines"
        echo "$(grep -c '^ok ' "$tmp/mut.log") $(grep -c '^FAIL ' "$tmp/mut.log")" >"$tmp/mutations.count"
        echo "$t_ref $t_build $t_run $t_cmp $c_ref $c_build $c_run $c_cmp" >"$tmp/mutations.time"
        exit 0
    fi
    key=$(printf '%s' "$1" | tr / _)
    run_one "$1" >"$tmp/$key.lines" 2>&1
    echo "$pass $fail" >"$tmp/$key.count"
    echo "$t_ref $t_build $t_run $t_cmp $c_ref $c_build $c_run $c_cmp" >"$tmp/$key.time"
    exit 0
fi

if ! "$py" -c 'import torch, numpy' 2>/dev/null; then
    echo "aclsim: $py cannot import torch and numpy (install python3-torch)" >&2
    echo "aclsim: 0 passed, 1 failed"
    exit 1
fi
if [ $# -eq 0 ]; then
    # shellcheck disable=SC2046
    set -- $(default_scripts)
fi
. "$root/tests/ref/serve.sh"
harness_tmp aclsim
t0=$(date +%s)
sim=$tmp/sim
if ! sh "$here/build.sh" "$sim" >"$tmp/sim.log" 2>&1; then
    bad "tests/aclsim/build.sh builds the toolkit"
    show "$tmp/sim.log"
    echo "aclsim: $pass passed, $fail failed"
    exit 1
fi
harness_serve "$tmp"
jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
mut=
[ -n "${ACLSIM_NO_MUTATIONS:-}" ] || mut=--mutations
# the examples' and the suite's own scripts start first (the largest, so
# that the workers end together), then the conformance models
{ [ -z "$mut" ] || echo "$mut"; printf '%s\n' "$@" | grep -v '/tests/conform/models/'
  printf '%s\n' "$@" | grep '/tests/conform/models/'; } |
    ACLSIM_ONE=$tmp xargs -d '\n' -P "$jobs" -n 1 sh "$here/run.sh" "$tngc"
harness_stop
for script in "$@" $mut; do
    key=$(printf '%s' "$script" | tr / _)
    [ "$script" = --mutations ] && key=mutations
    worker_collect "$key" "$script"
done
t1=$(date +%s)
times=$(cat "$tmp"/*.time 2>/dev/null | awk '{ for (i = 1; i <= 8; i++) s[i] += $i }
    END { printf "PyTorch references %.0f s, tngc build %.0f s (CPU %.0f s), runs %.0f s (CPU %.0f s), comparisons %.0f s (CPU %.0f s)",
          s[1], s[2], s[6], s[3], s[7], s[4], s[8] }')
echo "aclsim: the workers' wall time ($jobs at a time): $times"
echo "aclsim: $pass passed, $fail failed ($((t1 - t0)) s)"
[ $fail -eq 0 ]
