#!/bin/sh
# run.sh - end-to-end tests of templates/launcher.c, built standalone against
# the hand-written bundle tests/launcher/fake_bundle.c and libtngcrt.
#
# usage: sh tests/launcher/run.sh BUILD_DIR     (build or build/san)
#
# Builds four launchers (static gears 1,2,4; plus a dynamic gear; s0 not
# paddable; y bf16), makes the data with mknpy.py (python3, standard
# library), and checks: good runs with exact output values for each gear,
# the trace, --pad with cropped outputs, the dynamic gear, a bf16 input read
# from a '<u2' .npy of its bit patterns or from a '<f4' .npy rounded to
# nearest even, --widen-outputs, and every bad input (exit status 2,
# exactly one line on stderr, nothing left in the output directory). Outside
# sanitizer builds, good runs also go through valgrind when it is installed.
set -uf   # -f: no globbing of the unquoted argument lists (cache['k'])
build=${1:?usage: sh tests/launcher/run.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/launcher
case $build in /*) ;; *) build=$PWD/$build ;; esac
lib=$build/libtngcrt.a
[ -f "$lib" ] || { echo "launcher: $lib is missing (make $lib first)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-launcher.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# DWARF 4: Debian 12's valgrind cannot read clang 14's DWARF 5
flags="-std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L -O1 -g -gdwarf-4"
flags="$flags -I$root/runtime"
case $build in
*san) flags="$flags -fsanitize=address,undefined -fno-sanitize-recover=undefined" ;;
esac
for v in launcher:-DFAKE_STATIC launcher_dyn:-DFAKE_DYNAMIC launcher_nopad:-DFAKE_NO_PAD \
         launcher_bf16:-DFAKE_BF16 launcher_named:-DFAKE_NAMED; do
    # shellcheck disable=SC2086  # $flags is a word list
    ${CC:-cc} $flags "${v#*:}" -o "$tmp/${v%%:*}" "$root/templates/launcher.c" \
        "$here/fake_bundle.c" "$lib" -lopenblas -lpthread -lm \
        || { echo "launcher: build failed"; exit 1; }
done
data=$tmp/data
mkdir "$data"
python3 "$here/mknpy.py" make "$data" || { echo "launcher: mknpy.py failed"; exit 1; }

ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL $1: $2"
    sed 's/^/    | /' "$tmp/stderr" "$tmp/stdout" 2>/dev/null | head -20
}

# args N: the arguments of a run with s0 = N ($w: the weights file)
w=$data/w.safetensors
args() { echo "--weights $w --input x=$data/x$1.npy --input y=$data/y.npy"; }
cache() { echo "--input=cache['k']=$data/c$1.npy"; }

# same NAME FILE EXPECTED: the file holds exactly the expected values
same() {
    python3 "$here/mknpy.py" same "$2" "$3" >"$tmp/diff" 2>&1 && return 0
    cp "$tmp/diff" "$tmp/stderr"
    bad "$1" "$(basename "$2") differs"
    return 1
}

# good NAME STDOUT_PATTERN PROG ARGS...: exit 0, nothing on stderr, the
# pattern (grep -E) in stdout; the run's directory is $out
good() {
    name=$1 pat=$2 prog=$3
    shift 3
    out=$tmp/out.$passed.$failed
    rm -rf "$out" && mkdir "$out"
    "$tmp/$prog" --out-dir "$out" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    if [ $rc -ne 0 ]; then bad "$name" "exit $rc"; return 1; fi
    if [ -s "$tmp/stderr" ]; then bad "$name" "stderr not empty"; return 1; fi
    if ! grep -Eq "$pat" "$tmp/stdout"; then bad "$name" "stdout lacks /$pat/"; return 1; fi
    return 0
}

# values NAME N RUNS: out0, out1, out2 and the cache of the last good run
# (s0 = N, RUNS runs in all)
values() {
    for o in out0 out1 out2; do
        same "$1" "$out/$o.npy" "$data/exp_${o}_$2.npy" || return 1
    done
    same "$1" "$out/cache__k__.npy" "$data/exp_cache$2_r$3.npy" && ok
}

# reject NAME STATUS NEEDLE PROG [--stdout-full] ARGS...: exit STATUS, one
# line on stderr containing NEEDLE, and no file left in the output directory
# (--stdout-full: stdout goes to /dev/full)
reject() {
    name=$1 want=$2 needle=$3 prog=$4
    shift 4
    out=$tmp/rej
    rm -rf "$out" && mkdir "$out"
    so=$tmp/stdout
    if [ "${1:-}" = --stdout-full ]; then so=/dev/full; shift; fi   # stdout on a full device
    case " $* " in
    *" --out-dir "*) "$tmp/$prog" "$@" >"$so" 2>"$tmp/stderr" ;;   # the case names its own
    *) "$tmp/$prog" --out-dir "$out" "$@" >"$so" 2>"$tmp/stderr" ;;
    esac
    rc=$?
    lines=$(wc -l <"$tmp/stderr")
    if [ $rc -ne "$want" ]; then bad "$name" "exit $rc, expected $want"
    elif [ "$lines" -ne 1 ]; then bad "$name" "$lines lines on stderr, expected 1"
    elif ! grep -Fq -- "$needle" "$tmp/stderr"; then bad "$name" "stderr lacks '$needle'"
    elif [ -n "$(ls -A "$out")" ]; then bad "$name" "files left: $(ls -A "$out")"
    else ok; fi
}

# ---- good runs ----
if "$tmp/launcher" --help >"$tmp/stdout" 2>"$tmp/stderr" && grep -Fq "x f32[s0,4]" "$tmp/stdout" \
    && grep -Fq "s0=4" "$tmp/stdout" && grep -Fq "updated by every iteration" "$tmp/stdout"
then ok; else bad help "--help"; fi
# shellcheck disable=SC2046  # args/cache print word lists
good "gear s0=1" '^gear 0: s0=1$' launcher $(args 1) $(cache 1) && values "gear s0=1" 1 11
# shellcheck disable=SC2046
good "gear s0=2 + trace" '^latency: p50 [0-9.]+ us, p90 [0-9.]+ us, p99 [0-9.]+ us over 10 runs$' \
    launcher $(args 2) $(cache 2) --trace "$tmp/t.json" && values "gear s0=2" 2 11
if grep -q '"thread_name"' "$tmp/t.json" 2>/dev/null; then ok; else bad trace "no thread_name"; fi
# shellcheck disable=SC2046
good "gear s0=4" '^wrote .*/cache__k__\.npy$' launcher $(args 4) $(cache 4) \
    && values "gear s0=4" 4 11
# shellcheck disable=SC2046
good "warmup 1 iters 1" '^gear 1: s0=2$' launcher $(args 2) $(cache 2) --warmup 1 --iters=1 \
    && values "updated once per run" 2 2
# shellcheck disable=SC2046
good "pad 3 -> 4" '^padded: x \[3,4\] -> \[4,4\]$' launcher $(args 3) $(cache 3) --pad \
    && values "pad: cropped values" 3 11
if grep -q '^gear 2: s0=4$' "$tmp/stdout"; then ok; else bad "pad: gear" "not gear 2"; fi
# shellcheck disable=SC2046
good "dynamic gear s0=5" '^gear 3: s0=\? \(bound: s0=5\)$' launcher_dyn $(args 5) $(cache 5) \
    && values "dynamic gear s0=5" 5 11
# shellcheck disable=SC2046
good "dynamic: a static gear first" '^gear 1: s0=2$' launcher_dyn $(args 2) $(cache 2) \
    && values "dyn s0=2" 2 11

# bf16 input: a '<u2' .npy of bfloat16 bit patterns (numpy has no bfloat16),
# or a '<f4' .npy rounded to nearest even
if "$tmp/launcher_bf16" --help >"$tmp/stdout" 2>"$tmp/stderr" \
    && grep -Fq "y bf16[4]  (a '<f4' .npy, rounded, or a '<u2' .npy of bfloat16 bits)" "$tmp/stdout" \
    && grep -Fq -- "--widen-outputs    write bf16 and f16 outputs" "$tmp/stdout"
then ok; else bad "bf16 help" "--help does not show y as a '<f4' or '<u2' bf16 input"; fi
# shellcheck disable=SC2046
good "bf16 input from '<u2'" '^gear 1: s0=2$' launcher_bf16 --weights "$w" \
    --input "x=$data/x2.npy" --input "y=$data/y_bf16.npy" $(cache 2) && values "bf16 y" 2 11
# shellcheck disable=SC2046
good "bf16 input from '<f4'" '^gear 1: s0=2$' launcher_bf16 --weights "$w" \
    --input "x=$data/x2.npy" --input "y=$data/y.npy" $(cache 2) && values "bf16 y from <f4" 2 11
# y_round.npy: ties and near values that round to Y in bfloat16
# shellcheck disable=SC2046
good "bf16 input from '<f4', rounded" '^gear 1: s0=2$' launcher_bf16 --weights "$w" \
    --input "x=$data/x2.npy" --input "y=$data/y_round.npy" $(cache 2) \
    && values "bf16 y rounded to nearest even" 2 11
# --widen-outputs leaves float32 results as they are
# shellcheck disable=SC2046
good "--widen-outputs, float32 results" '^gear 1: s0=2$' launcher $(args 2) $(cache 2) \
    --widen-outputs && values "--widen-outputs" 2 11

# ---- bad inputs: exit 2, one line ----
# shellcheck disable=SC2046
{
reject "missing --input" 2 "missing --input cache['k']" launcher $(args 2)
reject "unknown input" 2 "unknown input 'z'" launcher $(args 2) $(cache 2) --input "z=$data/y.npy"
reject "duplicate input" 2 "input 'x' is given twice" launcher $(args 2) $(cache 2) \
    --input "x=$data/x2.npy"
reject "--input without =" 2 "expected NAME=FILE.npy" launcher $(args 2) $(cache 2) --input x
reject "wrong dtype" 2 "input 'x': dtype f16, expected f32" launcher --weights "$w" \
    --input "x=$data/x_f16.npy" --input "y=$data/y.npy" $(cache 2)
reject "bf16 input from '<i2'" 2 "input 'y': $data/y_i2.npy: dtype '<i2': a bf16 tensor is read from a '<f4' .npy (rounded to bfloat16) or a '<u2' .npy of its bfloat16 bit patterns" \
    launcher_bf16 --weights "$w" --input "x=$data/x2.npy" --input "y=$data/y_i2.npy" $(cache 2)
reject "'<u2' for a float32 input" 2 "y_bf16.npy: unsupported dtype '<u2'" launcher --weights "$w" \
    --input "x=$data/x2.npy" --input "y=$data/y_bf16.npy" $(cache 2)
reject "wrong rank" 2 "input 'x': 3 dims" launcher --weights "$w" \
    --input "x=$data/x_rank3.npy" --input "y=$data/y.npy" $(cache 2)
reject "shape in no gear" 2 "x=[3,4], cache['k']=[3,4] match no gear; gears: s0=1, s0=2, s0=4" \
    launcher $(args 3) $(cache 3)
reject "wrong constant dim" 2 "input 'y': shape [5], expected [4]" launcher --weights "$w" \
    --input "x=$data/x2.npy" --input "y=$data/y5.npy" $(cache 2)
reject "truncated .npy" 2 "trunc.npy: truncated" launcher --weights "$w" \
    --input "x=$data/trunc.npy" --input "y=$data/y.npy" $(cache 2)
reject "hostile .npy shape" 2 "hostile.npy" launcher --weights "$w" \
    --input "x=$data/hostile.npy" --input "y=$data/y.npy" $(cache 2)
reject "hostile .npy header" 2 "hostile2.npy: header" launcher --weights "$w" \
    --input "x=$data/hostile2.npy" --input "y=$data/y.npy" $(cache 2)
reject "missing .npy" 2 "nothere.npy" launcher --weights "$w" \
    --input "x=$data/nothere.npy" --input "y=$data/y.npy" $(cache 2)
reject "input is a directory" 2 "input 'x': $data is a directory" launcher --weights "$w" \
    --input "x=$data" --input "y=$data/y.npy" $(cache 2)
reject "missing weights" 2 "the model has 1 weight: pass --weights FILE (see --list-weights)" launcher \
    --input "x=$data/x2.npy" --input "y=$data/y.npy" $(cache 2)
for f in "w_shape:weight 'w' has shape [2,2], the model expects [4]" \
         "w_dtype:weight 'w' has dtype f16, the model expects f32" \
         "w_missing:weight 'w' is missing" "w_garbage:w_garbage.safetensors: " \
         "nothere:nothere.safetensors"; do
    reject "weights ${f%%:*}" 2 "${f#*:}" launcher --weights "$data/${f%%:*}.safetensors" \
        --input "x=$data/x2.npy" --input "y=$data/y.npy" $(cache 2)
done
for n in 0 -1 10x "" " 5" 99999999999; do
    reject "--iters '$n'" 2 "--iters: '$n' is not an integer" launcher $(args 2) $(cache 2) \
        --iters "$n"
done
reject "--warmup x" 2 "--warmup: 'x' is not an integer" launcher $(args 2) $(cache 2) --warmup x
reject "--iters without value" 2 "--iters needs a value" launcher $(args 2) $(cache 2) --iters
reject "option given twice" 2 "--iters given twice" launcher $(args 2) $(cache 2) --iters 1 --iters 2
reject "unknown option" 2 "unknown option '--frob'" launcher $(args 2) $(cache 2) --frob
reject "stray argument" 2 "unexpected argument 'extra'" launcher $(args 2) $(cache 2) extra
reject "out-dir with a missing parent" 2 "--out-dir '$tmp/nope/deeper': cannot create it" \
    launcher $(args 2) $(cache 2) --out-dir "$tmp/nope/deeper"
[ ! -e "$tmp/nope" ] && ok || bad "out-dir with a missing parent" "$tmp/nope created"
reject "out-dir is a file" 2 "--out-dir '$data/y.npy': not a directory" launcher \
    $(args 2) $(cache 2) --out-dir "$data/y.npy"
reject "trace directory missing" 2 "--trace '$tmp/nope/t.json': no such directory" launcher \
    $(args 2) $(cache 2) --trace "$tmp/nope/t.json"
reject "pad: too large" 2 "(--pad: no gear is large enough)" launcher $(args 5) $(cache 5) --pad
reject "pad: sizes disagree" 2 "input 'cache['k']' dim 0 is 2, but s0 is 3" launcher \
    $(args 3) $(cache 2) --pad
reject "pad: not row-independent" 2 \
    "dim s0 (input 'x' dim 0) cannot be padded: the planner did not prove it row-independent" \
    launcher_nopad $(args 3) $(cache 3) --pad
reject "kernel failure: exit 1" 1 "fake kernel: y[0] is -1234" launcher --weights "$w" \
    --input "x=$data/x2.npy" --input "y=$data/y_fail.npy" $(cache 2)
reject "bad values in the input: exit 2" 2 "launcher: fake.py:7: fake embedding: id -4321" \
    launcher --weights "$w" --input "x=$data/x2.npy" --input "y=$data/y_bad.npy" $(cache 2)
reject "weights: trailing bytes" 2 "w_trailing.safetensors: 4 trailing bytes after the last tensor's data" \
    launcher --weights "$data/w_trailing.safetensors" --input "x=$data/x2.npy" \
    --input "y=$data/y.npy" $(cache 2)
reject "weights: unused tensor with --strict" 2 \
    "w_unused.safetensors: 1 tensor the model does not use (--strict): 'unused'" launcher --strict \
    --weights "$data/w_unused.safetensors" --input "x=$data/x2.npy" --input "y=$data/y.npy" $(cache 2)
reject "weights: a key the model never reads does not stand for a weight" 2 \
    "w_state_missing.safetensors: weight 'w' is missing" launcher --strict \
    --weights "$data/w_state_missing.safetensors" --input "x=$data/x2.npy" --input "y=$data/y.npy" $(cache 2)
reject "weights: unknown tensor beside unread keys with --strict" 2 \
    "w_state_extra.safetensors: 1 tensor the model does not use (--strict): 'bn.running_men'" launcher --strict \
    --weights "$data/w_state_extra.safetensors" --input "x=$data/x2.npy" --input "y=$data/y.npy" $(cache 2)
reject "stdout on /dev/full" 2 "launcher: stdout: write error: No space left on device" \
    launcher --stdout-full $(args 2) $(cache 2) --trace "$tmp/rej/t.json"
}

# an unused tensor in the weights: one warning line, the run goes on
out=$tmp/unused && mkdir "$out"
# shellcheck disable=SC2046
"$tmp/launcher" --out-dir "$out" --weights "$data/w_unused.safetensors" --input "x=$data/x2.npy" \
    --input "y=$data/y.npy" $(cache 2) >"$tmp/stdout" 2>"$tmp/stderr"
if [ $? -eq 0 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && [ -f "$out/out0.npy" ] \
    && grep -Fxq "launcher: warning: $data/w_unused.safetensors: 1 tensor the model does not use, ignored: 'unused'" "$tmp/stderr"
then ok; else bad "weights: unused tensor" "not one warning line, or no output"; fi

# state_dict()'s file with a key the model never reads (num_batches_tracked):
# no warning, accepted by --strict, same output as without it
# shellcheck disable=SC2046
good "weights: unread state_dict key, --strict" "^gear 1: s0=2$" launcher --strict \
    --weights "$data/w_state.safetensors" --input "x=$data/x2.npy" --input "y=$data/y.npy" $(cache 2) \
    && same "weights: unread state_dict key" "$out/out0.npy" "$data/exp_out0_2.npy"

# a missing --out-dir is created (one level), with mode 0777 & ~umask
# shellcheck disable=SC2046
"$tmp/launcher" $(args 2) $(cache 2) --out-dir "$tmp/made" >"$tmp/stdout" 2>"$tmp/stderr"
if [ $? -eq 0 ] && [ -f "$tmp/made/out0.npy" ] \
    && [ "$(stat -c %a "$tmp/made")" = "$(printf '%o' $((0777 & ~$(umask))))" ]
then ok; else bad "out-dir created" "missing, or its mode is not 0777 & ~umask"; fi

# named outputs (a returned dict): <name>.npy each, same values as out<k>;
# a name with '/' stays inside --out-dir ('/' -> '_'); --help lists them
# shellcheck disable=SC2046
if good "named outputs" "gear 1" launcher_named $(args 2) $(cache 2) \
    && same "named logits" "$out/logits.npy" "$data/exp_out0_2.npy" \
    && same "named layer.0-norm" "$out/layer.0-norm.npy" "$data/exp_out1_2.npy" \
    && same "named ../up/evil" "$out/.._up_evil.npy" "$data/exp_out2_2.npy"; then
    if [ "$(ls -A "$out" | LC_ALL=C sort | tr '\n' ' ')" = ".._up_evil.npy cache__k__.npy layer.0-norm.npy logits.npy " ] \
        && [ ! -e "$tmp/up" ] && [ ! -e "$out/../up" ]; then
        ok
    else
        bad "named outputs" "files: $(ls -A "$out" | tr '\n' ' ')"
    fi
fi
if "$tmp/launcher_named" --help >"$tmp/stdout" 2>"$tmp/stderr" && grep -q "^  logits f32\[s0,4\]$" "$tmp/stdout" \
    && grep -q "^  layer.0-norm f32" "$tmp/stdout" && grep -q "its keys: logits.npy" "$tmp/stdout"
then ok; else bad "named outputs: --help" "does not list the names"; fi

# ---- valgrind ----
case $build in
*san) ;;
*)
    if command -v valgrind >/dev/null 2>&1; then
        for prog in launcher launcher_dyn; do
            out=$tmp/vg && rm -rf "$out" && mkdir "$out"
            # shellcheck disable=SC2046
            if valgrind -q --error-exitcode=99 --leak-check=full "$tmp/$prog" --out-dir "$out" \
                $(args 3) $(cache 3) --pad --trace "$out/t.json" --iters 3 \
                >"$tmp/stdout" 2>"$tmp/stderr" && [ ! -s "$tmp/stderr" ]; then
                ok
            else
                bad "valgrind $prog" "not clean"
            fi
        done
    fi ;;
esac

echo "launcher: $passed passed, $failed failed"
[ $failed -eq 0 ]
