#!/bin/sh
# No source file of tngc, its runtime or its templates is over 2,000 lines
# (a file past that is split by what it owns: docs/architecture.md says
# where each part lives). Prints the largest and "file-sizes: N files,
# M over".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
limit=2000
over=0 n=0
for f in tngc.c tngc_*.[ch] support/*.[ch] frontend/*/*.[ch] frontend/*/*.def ir/*.[ch] ir/*.def hostlog/*.[ch] \
         planner/*.[ch] codegen/*.[ch] codegen/*.def runtime/*.[ch] templates/*.[ch]; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    l=$(wc -l <"$f")
    if [ "$l" -gt $limit ]; then
        echo "FAIL $f: $l lines (at most $limit)"
        over=$((over + 1))
    fi
done
largest=$(wc -l tngc.c tngc_*.c support/*.c frontend/*/*.c ir/*.c hostlog/*.c planner/*.c codegen/*.c runtime/*.c 2>/dev/null |
          grep -v ' total$' | sort -n | tail -1)
echo "largest: $largest"
echo "file-sizes: $n files, $over over $limit lines"
[ $over -eq 0 ]
