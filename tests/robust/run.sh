#!/usr/bin/env bash
# Robustness tests: hostile and extreme inputs for tngc lint, scan and plan.
#
#   tests/robust/run.sh [TNGC]        (default TNGC: build/tngc)
#
# Every input is generated into a temporary directory (deterministic: fixed
# seeds) and run through `tngc lint` (text, json, sarif) and
# `tngc scan --format json` and `tngc plan` (which runs the module-level
# code abstractly), each under `timeout 60`, from an empty working
# directory. Asserted for every run:
#   - exit status 0, 1 or 2 (never a timeout, a signal or another status),
#     and no sanitizer report on stderr;
#   - status 2 exactly for the unreadable inputs (a directory, a missing
#     file), which print exactly one line to stderr naming the path;
#   - inputs with syntax errors: lint exits 1 and reports TNG001;
#     ordinary valid inputs: no TNG001;
#   - JSON output parses; SARIF output parses and has "version": "2.1.0";
#   - the working directory stays empty.
# Prints "ok  NAME" or "FAIL NAME: why" per case and "N passed, M failed";
# exits 1 if any case failed.
#
# Environment: JOBS (cases run in parallel, default: number of CPUs, at most
# 4), ROBUST_KEEP=DIR (copy the inputs of failed cases into DIR),
# ROBUST_TIMEOUT (seconds per run, default 60: the 5 MB inputs take about
# 10 s each under AddressSanitizer, and two cases run at once on 2 cores),
# ROBUST_ONLY=REGEX (run only the cases whose name matches).
set -uo pipefail

tngc=${1:-build/tngc}
limit=${ROBUST_TIMEOUT:-60}
if [ -x /usr/bin/python3 ]; then py=/usr/bin/python3; else py=python3; fi

if [ ! -x "$tngc" ] || [ -d "$tngc" ]; then
    echo "run.sh: $tngc: no such executable (build it with make)" >&2
    exit 2
fi
tngc=$(cd "$(dirname "$tngc")" && pwd)/$(basename "$tngc")

jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs" -gt 4 ] && jobs=4
[ "$jobs" -lt 1 ] && jobs=1

T=$(mktemp -d "${TMPDIR:-/tmp}/tngc-robust.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/in" "$T/cwd" "$T/out" "$T/res"

# ---------------------------------------------------------------- inputs ---
# One python process writes every input and prints "NAME EXPECT FILE" lines:
# EXPECT is syntax (must report TNG001), valid (must not), any (either) or
# io (unreadable: status 2).
"$py" - "$T/in" > "$T/cases" <<'PYGEN' || { echo "run.sh: input generation failed" >&2; exit 2; }
import os, random, sys

d = sys.argv[1]
MB = 1 << 20

def case(name, expect, data=None, path=None):
    p = path or os.path.join(d, name + ".py")
    if data is not None:
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    print(name, expect, p)

MODULE = '''\
@register_block("block_{i}")
class Block{i}(nn.Module):
    """Decoder block {i}: attention on the main stream, MLP on stream '1'."""

    def __init__(self, hidden: int = 4096, heads: int = 32, eps: float = 1e-6):
        super().__init__()
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.k_proj = nn.Linear(hidden, hidden, bias=False)
        self.layers = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range({n})])
        self.eps = eps

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        residual = x
        with tng.scope.super_kernel("sk_{i}", "stream-fusion=1:feed-sync-all=0"):
            q = self.q_proj(x)
            with stream_switch("1", 0):
                k = self.k_proj(x)
                k = tng.scope.npu_wait_tensor(k, q)
        with tng.scope.npu_stream_switch("{tag}"):
            for i, layer in enumerate(self.layers):
                x = layer(x) if i % 2 == 0 else F.silu(layer(x))
        parts = [t.float() for t in torch.split(x, 2, dim=-1) if t is not None]
        logger.debug(f"block {i}: {{x.shape!r}} eps={{self.eps:.1e}}")
        return torch.cat(parts, dim=-1).to(q.dtype) + residual


'''
HEADER = '''\
import logging
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchair as tng
from torchair.configs.compiler_config import CompilerConfig
from torchair.scope import npu_stream_switch as stream_switch

logger = logging.getLogger(__name__)


def register_block(name):
    return lambda cls: cls


'''
FOOTER = '''\
config = CompilerConfig()
config.mode = "max-autotune"
backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Block0(), backend=backend, dynamic=False)
'''

def valid_module(size):
    out, n, i = [HEADER], len(HEADER), 0
    while n < size:
        s = MODULE.format(i=i, n=2 + i % 5, tag=1 + i % 3)
        out.append(s); n += len(s); i += 1
    out.append(FOOTER)
    return "".join(out)

case("empty", "valid", b"")
case("only_comments", "valid",
     "".join(f"# comment {i}: with tng.scope.npu_stream_switch('1'):\n" for i in range(2000))
     + "#!/no/newline at end")
case("binary_64k", "syntax", random.Random(64).randbytes(64 * 1024))
case("valid_10mb", "valid", valid_module(10 * MB))
case("garbage_10mb", "syntax", random.Random(10).randbytes(10 * MB))
rng = random.Random(7)
toks = ["(", ")", "[", "]", "{", "}", ":", ",", "=", "with", "def", "class", "if", "else",
        "lambda", "tng.scope.npu_stream_switch", "super_kernel", "'1'", '"""', "f'{",
        "\n", "\n    ", "\t", "\\", "@", "**", "x", "1", "import", "as", "from", "#"]
case("token_soup_1mb", "syntax", " ".join(rng.choice(toks) for _ in range(MB // 6)))
case("deep_parens_100k", "any", "x = " + "(" * 100000 + "x" + ")" * 100000 + "\n")
case("deep_lists_50k", "any", "x = " + "[" * 50000 + "]" * 50000 + "\n")
case("deep_parens_unclosed_100k", "syntax", "x = " + "(" * 100000 + "x\n")
# Right-nested prefix chains left unfinished, or after an earlier error:
# tree-sitter's error recovery then holds one stack entry per level.
case("deep_unary_unfinished_100k", "syntax", "x = " + "-" * 100000 + "\n")
case("deep_unary_after_error_100k", "syntax", "y = (\n" + "x = " + "-" * 100000 + "1\n")
case("deep_ifexp_unfinished_70k", "syntax", "x = " + "a if b else " * 70000 + "\n")
case("deep_lambda_unfinished_70k", "syntax", "x = " + "lambda: " * 70000 + "\n")
# Nested with blocks need one more column of indentation per level, so the
# file grows with the square of the depth: 4000 levels, one space each, is
# already 8 MB.
W = 4000
heads = ["with tng.scope.npu_stream_switch('1'):", "with stream_switch('2', 0):",
         "with tng.scope.super_kernel('sk', 'stream-fusion=1'):", "with torch.no_grad():"]
body = ["import torchair as tng\nfrom torchair.scope import npu_stream_switch as stream_switch\n",
        "def forward(self, a, b):\n"]
body += [" " * (1 + k) + heads[k % 4] + "\n" for k in range(W)]
body.append(" " * (1 + W) + "a = tng.scope.npu_wait_tensor(a, b)\n")
body.append("    return a\n")
case("deep_with_4000", "any", "".join(body))
case("deep_calls_5k", "any", "y = " + "f(" * 5000 + "x" + ")" * 5000 + "\n")
case("long_binop_10k", "any", "y = " + "+".join(["a"] * 10000) + "\n")
case("deep_unary_100k", "any", "y = " + "-" * 100000 + "1\nz = " + "not " * 50000 + "x\n")
case("deep_attribute_100k", "any",
     "import torchair as tng\nwith tng" + ".scope" * 100000 + ".npu_stream_switch('1'):\n"
     "    x = tng" + ".scope" * 100000 + ".npu_wait_tensor(a, b)\n"
     "y = a" + "[0]" * 100000 + "\n")
case("deep_lambda_ifexp_20k", "any",
     "f = " + "lambda: " * 20000 + "0\ng = " + "a if b else " * 20000 + "c\n")
case("unterminated_single", "syntax", "x = 'abc\ny = 1\n")
case("unterminated_triple_eof", "syntax", 'def f():\n    """docstring that never ends\n    x = 1\n')
case("unterminated_fstring", "syntax", 'x = f"value {y\nz = 2\n')
case("unterminated_fstring_expr", "syntax", 'x = f"value {tng.scope.npu_stream_switch(\'1\')')
case("nul_in_code", "syntax", b"import torchair as tng\nx = 1\x00\x00 + 2\nwith tng.scope.npu_stream_switch('1'\x00):\n    pass\n")
case("nul_in_string", "any", b"x = 'ab\x00cd'\ny = \"\"\"\x00\"\"\"\nz = 1\n")
case("latin1_comment", "any", b"# caf\xe9\nx = 1\n")
case("latin1_code", "any", b"caf\xe9 = 1\nwith tng.scope.npu_stream_switch('\xe9'):\n    pass\n")
case("lone_continuation", "any", b"x = '\x80\x81\xbf'\ny = \x80\n")
case("overlong_utf8", "any", b"x = '\xc0\xaf\xe0\x80\xaf\xf0\x80\x80\xaf'\ny\xc0\xaf = 1\n")
case("truncated_utf8_eof", "any", b"x = 1\ny = '\xe2\x82")
case("utf8_bom", "valid", b"\xef\xbb\xbfimport torchair as tng\nwith tng.scope.npu_stream_switch('1'):\n    x = 1\n")
case("cr_only_newlines", "any",
     "import torchair as tng\r" + "def f(x):\r    with tng.scope.npu_stream_switch('1'):\r"
     "        return x\r" * 200)
case("long_line_5mb", "valid", "x = [" + "1, " * (5 * MB // 3) + "]\n")
case("long_line_5mb_error", "syntax", "x = [" + "1, " * (5 * MB // 3) + ")\n")
case("long_string_5mb", "valid",
     "import torchair as tng\nwith tng.scope.super_kernel('" + "s" * (5 * MB) + "'):\n    pass\n")
case("tabs_spaces_mixed", "any",
     "def f(x):\n\tif x:\n\t    return 1\n  \telse:\n\t\treturn 2\n"
     "class C:\n    def g(self):\n\tpass\n")
case("many_errors_100k", "syntax", ")\n" * 50000 + "def (:\n" * 50000)
# Found in review: exponential constants, quadratic attribute chains and
# locals lookups, and a big literal mistaken for deep nesting.
case("nested_constants_40", "valid",
     "import torchair as tng\nA0 = 1\n" + "".join(f"A{i} = (A{i-1}, A{i-1})\n" for i in range(1, 40))
     + "tng.scope.super_kernel('s', A39)\n")
case("config_attr_chain_100k", "valid",
     "import torchair as tng\nx = tng.CompilerConfig()\nx" + ".a" * 100000 + " = 1\n")
case("locals_20k_constant_uses", "valid",
     "import torch\nimport torchair as tng\nN = 4\ndef f():\n"
     + "".join(f"    x{i} = tng.scope.npu_stream_switch(N, N)\n" for i in range(20000)))
case("big_literal_if_else", "valid",
     "T = [\n" + "    (1 if x else i),\n" * 20001 + "]\n")
case("many_annotations", "any",
     "import torchair as tng\n" + "".join(
         f"with tng.scope.npu_stream_switch('{i}'):\n    x = tng.scope.npu_wait_tensor(x, y)\n"
         for i in range(50000)))

def nested(depth, leaf):
    return "[" * depth + leaf + "]" * depth

big_dict = "{" + ", ".join(f"'k{i}': [{i}, {i}.5, 'v{i}', None, True]" for i in range(20000)) + "}"
case("huge_literal_args", "valid",
     "import torchair as tng\nfrom torchair.scope import super_kernel\n"
     "with tng.scope.npu_stream_switch(" + nested(90, "'1'") + ", " + big_dict + "):\n"
     "    with super_kernel(" + big_dict + ", " + nested(90, ", ".join(map(str, range(1000)))) + "):\n"
     "        x = tng.scope.npu_wait_tensor(" + big_dict + ", (" + "1, " * 100000 + "))\n")
case("deep_literal_args", "any",
     "import torchair as tng\n"
     "with tng.scope.npu_stream_switch(" + nested(20000, "'1'") + ", " + "{1: " * 20000 + "0" + "}" * 20000 + "):\n"
     "    with tng.scope.super_kernel(" + "(" * 20000 + "'sk'" + ",)" * 20000 + ", 'a=' + " * 5000 + "''):\n"
     "        pass\n")
os.mkdir(os.path.join(d, "a_directory.py"))
case("directory", "io", path=os.path.join(d, "a_directory.py"))
case("missing_file", "io", path=os.path.join(d, "does_not_exist.py"))
PYGEN

# --------------------------------------------------------------- checker ---
cat > "$T/check.py" <<'PYCHECK'
import json, sys
# argv: lint-json scan-json sarif output files; prints one line per problem.
for path, kind in zip(sys.argv[1:], ("lint --format json", "scan --format json", "lint --format sarif")):
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        continue
    except (ValueError, UnicodeDecodeError) as e:
        print(f"{kind}: output is not valid JSON ({str(e)[:80]})")
        continue
    if kind.endswith("sarif") and not (isinstance(doc, dict) and doc.get("version") == "2.1.0"):
        print(f"{kind}: no \"version\": \"2.1.0\"")
PYCHECK

# ----------------------------------------------------------------- cases ---
# check_case NAME EXPECT FILE: runs the five commands, writes the verdict to
# $T/res/NAME.
check_case() {
    local name=$1 expect=$2 file=$3
    local cwd=$T/cwd/$name out=$T/out/$name why=() mode rc lines
    mkdir -p "$cwd" "$out"
    for mode in lint lint-json lint-sarif scan-json plan; do
        local -a args
        case $mode in
            lint)       args=(lint "$file") ;;
            lint-json)  args=(lint --format json "$file") ;;
            lint-sarif) args=(lint --format sarif "$file") ;;
            scan-json)  args=(scan --format json "$file") ;;
            plan)       args=(plan "$file") ;;
        esac
        (cd "$cwd" && exec timeout -k 5 "$limit" "$tngc" "${args[@]}") \
            > "$out/$mode.out" 2> "$out/$mode.err" < /dev/null
        rc=$?
        [ "$rc" -le 2 ] || rm -f "$out/$mode.out"     # judged by its status alone
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            why+=("$mode: timed out after ${limit}s"); continue
        elif [ "$rc" -gt 128 ]; then
            why+=("$mode: killed by signal $((rc - 128))"); continue
        elif [ "$rc" -gt 2 ]; then
            why+=("$mode: exit status $rc"); continue
        fi
        if grep -qE 'Sanitizer|runtime error:' "$out/$mode.err"; then
            why+=("$mode: sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error:' "$out/$mode.err" | cut -c1-160)")
            rm -f "$out/$mode.out"; continue
        fi
        if [ "$expect" = io ]; then
            lines=$(awk 'END { print NR }' "$out/$mode.err")
            [ "$rc" -eq 2 ] || why+=("$mode: exit status $rc, want 2")
            [ "$lines" -eq 1 ] || why+=("$mode: $lines lines on stderr, want 1")
            grep -qF -- "$file" "$out/$mode.err" || why+=("$mode: stderr does not name $file")
            rm -f "$out/$mode.out"      # no JSON expected
            continue
        fi
        [ "$rc" -ne 2 ] || why+=("$mode: exit status 2 on a readable file: $(head -c 160 "$out/$mode.err")")
        case $expect:$mode in
            syntax:lint*)
                [ "$rc" -eq 1 ] || why+=("$mode: exit status $rc, want 1 (syntax error)")
                if [ "$mode" = lint ]; then
                    grep -qF '[TNG001]' "$out/$mode.out" || why+=("lint: no [TNG001] on stdout")
                else
                    grep -qF 'TNG001' "$out/$mode.out" || why+=("$mode: no TNG001 in output")
                fi ;;
            valid:lint)
                if grep -qF '[TNG001]' "$out/$mode.out"; then
                    why+=("lint: TNG001 on valid input: $(grep -m1 -F '[TNG001]' "$out/$mode.out" | cut -c1-160)")
                fi ;;
        esac
    done
    while IFS= read -r line; do why+=("$line"); done < <(
        "$py" "$T/check.py" "$out/lint-json.out" "$out/scan-json.out" "$out/lint-sarif.out")
    if [ -n "$(ls -A "$cwd")" ]; then
        why+=("files created in the working directory: $(ls -A "$cwd" | head -5 | tr '\n' ' ')")
    fi
    rm -rf "$out"
    if [ ${#why[@]} -eq 0 ]; then
        echo "ok  $name" > "$T/res/$name"
    else
        local msg
        msg=$(printf '%s; ' "${why[@]}")
        echo "FAIL $name: ${msg%; }" > "$T/res/$name"
        if [ -n "${ROBUST_KEEP:-}" ] && [ -e "$file" ] && [ ! -d "$file" ]; then
            mkdir -p "$ROBUST_KEEP" && cp "$file" "$ROBUST_KEEP/"
        fi
    fi
}

names=()
while read -r name expect file; do
    [[ $name =~ ${ROBUST_ONLY:-.} ]] || continue
    names+=("$name")
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    check_case "$name" "$expect" "$file" < /dev/null &
done < "$T/cases"
wait

passed=0 failed=0
for name in "${names[@]}"; do
    if [ -f "$T/res/$name" ]; then
        cat "$T/res/$name"
        case $(cat "$T/res/$name") in ok*) passed=$((passed + 1)) ;; *) failed=$((failed + 1)) ;; esac
    else
        echo "FAIL $name: the test harness did not finish this case"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
