#!/bin/sh
# include_graph.sh - checks tngc's include graph (`make check` runs it).
#
#   scripts/include_graph.sh [ROOT]
#
# Reads every `#include "..."` of the C sources and headers under ROOT
# (default: the repository) and fails, naming the loop, when
#   1. files form a circle: a module is a .c file and the .h of the same
#      stem (interp.c + interp.h), so "a.c calls b.c and b.c calls a.c"
#      shows as a.h <-> b.h when each side includes the other's header;
#   2. folders form a circle (frontend/lint -> frontend/lower -> frontend/lint);
#   3. a folder includes a folder its README does not allow: each README.md
#      of a stage folder has one line `May include: DIR DIR ...` (paths from
#      the root; `nothing` for none).
# Includes that name no file of the repository (system headers, the
# generated torchair_schema.h) are not edges.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
dirs="support frontend/python frontend/diag frontend/lint frontend/lower ir hostlog planner codegen runtime"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# file edges: "from to", both paths from the root, normalised
for d in $dirs; do
    for f in "$d"/*.c "$d"/*.h "$d"/*.def; do
        [ -f "$f" ] || continue
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
        while IFS= read -r inc; do
            p=$(dirname "$f")/$inc
            [ -f "$p" ] || continue
            # normalise a/b/../c -> a/c
            p=$(printf '%s\n' "$p" | awk -F/ '{n=0; for(i=1;i<=NF;i++){ if($i==".."){ if(n>0)n--; } else if($i!="."){ s[++n]=$i } } o=s[1]; for(i=2;i<=n;i++) o=o"/"s[i]; print o}')
            printf '%s %s\n' "$f" "$p"
        done
    done
done > "$tmp/files"
[ -s "$tmp/files" ] || { echo "include_graph: no includes found under $root" >&2; exit 2; }

status=0
# 1. modules: strip the extension
sed 's/\.[ch] / /; s/\.[ch]$//' "$tmp/files" | awk '$1 != $2' > "$tmp/modules"
if ! tsort "$tmp/modules" > /dev/null 2> "$tmp/err1"; then
    echo "include_graph: files form a circle (module = stem.c + stem.h):" >&2
    sed -n 's/^tsort: //p' "$tmp/err1" | grep -v 'input contains a loop' | sed 's/^/  /' >&2
    status=1
fi
# 2. folders
awk '{ a=$1; b=$2; sub(/\/[^\/]*$/, "", a); sub(/\/[^\/]*$/, "", b); if (a != b) print a, b }' "$tmp/files" | sort -u > "$tmp/folders"
if ! tsort "$tmp/folders" > /dev/null 2> "$tmp/err2"; then
    echo "include_graph: folders form a circle:" >&2
    sed -n 's/^tsort: //p' "$tmp/err2" | grep -v 'input contains a loop' | sed 's/^/  /' >&2
    status=1
fi
# 3. each folder against its README
for d in $dirs; do
    if [ ! -f "$d/README.md" ]; then
        echo "include_graph: $d/README.md is missing" >&2; status=1; continue
    fi
    allowed=$(sed -n 's/^May include:[[:space:]]*//p' "$d/README.md" | head -n 1)
    if [ -z "$allowed" ]; then
        echo "include_graph: $d/README.md has no 'May include:' line" >&2; status=1; continue
    fi
    awk -v d="$d" '$1 == d { print $2 }' "$tmp/folders" | while IFS= read -r to; do
        case " $allowed " in
        *" $to "*) ;;
        *) echo "include_graph: $d includes $to, which $d/README.md does not allow:" >&2
           grep "^$d/[^/]* $to/" "$tmp/files" | sed 's/^/  /' >&2
           echo x ;;
        esac
    done > "$tmp/bad.$(echo "$d" | tr / _)"
    [ -s "$tmp/bad.$(echo "$d" | tr / _)" ] && status=1
done
if [ $status -eq 0 ]; then
    echo "include_graph: $(wc -l < "$tmp/files") includes, $(wc -l < "$tmp/folders") folder edges, no circles"
fi
exit $status
