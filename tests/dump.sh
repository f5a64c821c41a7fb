#!/bin/sh
# dump.sh - `--dump=STAGE` stops the pipeline at a stage and prints its
# intermediate form on stdout: ast (the syntax tree), scan (the annotations,
# as `tngc scan`), graph (the op graphs: the graph section of the plan) and
# plan (as `tngc plan`). Checks each on examples/multi_stream/model.py, that
# a dump writes nothing else (gen without -o DIR), that errors of the
# stages run are reported with exit status 1, and that an unknown stage, or
# one past the command's last, is a usage error (exit status 2).
#
# usage: sh tests/dump.sh TNGC
set -u
tngc=$(cd "$(dirname "${1:?usage: sh tests/dump.sh TNGC}")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
t() {   # name shell-condition
    if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}
cd "$tmp" || exit 2
cp "$here/../examples/multi_stream/model.py" m.py

# ast: the tree, one named node a line with line:col, children indented
"$tngc" plan --dump=ast m.py > ast.out 2> ast.err
t "ast: exit 0, nothing on stderr" '[ $? -eq 0 ] && [ ! -s ast.err ]'
t "ast: the module first" '[ "$(head -n 1 ast.out)" = "module 1:1" ]'
t "ast: statements indented under the module" 'grep -q "^  class_definition [0-9]*:1$" ast.out && grep -q "^  import_statement [0-9]*:1$" ast.out'
t "ast: calls and identifiers with their text" 'grep -q "^ *call [0-9]*:[0-9]*$" ast.out && grep -q "^ *identifier [0-9]*:[0-9]* \"torch\"$" ast.out'
t "ast: lint's dump is the same" '"$tngc" lint --dump=ast m.py 2>/dev/null | cmp -s - ast.out'

# scan: what tngc scan lists
"$tngc" scan m.py > scan.want
"$tngc" plan --dump=scan m.py > scan.out 2> scan.err
t "scan: exit 0, as tngc scan" '[ $? -eq 0 ] && [ ! -s scan.err ] && cmp -s scan.want scan.out'
t "scan: annotations listed" 'grep -q "npu_stream_switch" scan.out && grep -q "torch_compile" scan.out'

# graph: the plan's graph section, without the schedule
"$tngc" plan m.py > plan.want
"$tngc" plan --dump=graph m.py > graph.out 2> graph.err
t "graph: exit 0" '[ $? -eq 0 ] && [ ! -s graph.err ]'
t "graph: entry, inputs, ops, outputs" 'head -n 1 graph.out | grep -q "^entry Model.forward" && grep -q "^input %0 " graph.out && grep -q "^graph:$" graph.out && grep -q "^  %[0-9]*:f16\[" graph.out && tail -n 1 graph.out | grep -q "^outputs: "'
t "graph: no gears or events" '! grep -q "^gear \|^events" graph.out'
t "graph: the start of the plan" 'head -n "$(wc -l < graph.out)" plan.want | cmp -s - graph.out'

# plan: as tngc plan; gen stops there and writes nothing (no -o DIR needed)
"$tngc" plan --dump=plan m.py > plan.out 2> plan.err
t "plan: exit 0, as tngc plan" '[ $? -eq 0 ] && [ ! -s plan.err ] && cmp -s plan.want plan.out'
"$tngc" gen --dump=plan m.py > gen.out 2> gen.err
t "gen --dump=plan: the plan, no files" '[ $? -eq 0 ] && cmp -s plan.want gen.out && [ "$(ls)" = "$(printf "%s\n" ast.err ast.out gen.err gen.out graph.err graph.out m.py plan.err plan.out plan.want scan.err scan.out scan.want)" ]'
"$tngc" build --dump=ast m.py 2>/dev/null | cmp -s - ast.out
t "build --dump=ast: build takes gen's options" '[ $? -eq 0 ]'

# errors of the stages run: on stderr with their rule, exit status 1
printf 'import torch\nx = (1,\n' > bad.py
"$tngc" plan --dump=ast bad.py > bad.out 2> bad.err
t "ast of a syntax error: exit 1, TNG001, the tree still printed" '[ $? -eq 1 ] && grep -q "error: .*\[TNG001\]" bad.err && [ "$(head -n 1 bad.out)" = "module 1:1" ] && grep -q "ERROR\|missing" bad.out'
"$tngc" plan --dump=graph bad.py > bad2.out 2> bad2.err
t "graph of a script with errors: exit 1, nothing on stdout" '[ $? -eq 1 ] && [ ! -s bad2.out ] && grep -q "\[TNG001\]" bad2.err'

# usage errors
"$tngc" plan --dump=frob m.py > u1.out 2> u1.err
t "unknown stage: exit 2, the stages named" '[ $? -eq 2 ] && [ ! -s u1.out ] && grep -q "unknown --dump stage .frob. (ast, scan, graph, plan)" u1.err && grep -q "^usage: tngc plan" u1.err'
"$tngc" scan --dump=plan m.py > u2.out 2> u2.err
t "a stage past the command: exit 2" '[ $? -eq 2 ] && [ ! -s u2.out ] && grep -q "unknown --dump stage .plan. (ast, scan)" u2.err'
"$tngc" plan --dump m.py > u3.out 2> u3.err
t "--dump m.py: m.py taken as the stage" '[ $? -eq 2 ] && grep -q "unknown --dump stage .m.py." u3.err'
"$tngc" recompiles --dump=ast x.log > u4.out 2> u4.err
t "recompiles has no --dump" '[ $? -eq 2 ] && grep -q "unknown option .--dump=ast." u4.err'

echo "dump: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
