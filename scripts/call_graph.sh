#!/bin/sh
# call_graph.sh - checks that tngc's files call each other without circles
# (`make check` runs it, after the build).
#
#   scripts/call_graph.sh [ROOT [OBJDIR]]
#
# ROOT is the repository (default: this one), OBJDIR the object files of one
# build of it (default: ROOT/build/obj; the stage folders' and runtime/'s
# .o files, and tngc.o; `make check` passes its build's). A module is a .c file and the .h of the same stem
# (interp.c + interp.h), as in scripts/include_graph.sh; module A -> module B
# when A uses something B defines:
#   1. an object file's undefined symbol that another object file defines
#      (`nm`: calls of functions and uses of variables);
#   2. a call of a function a header defines (static inline helpers): the
#      sources with comments stripped (`gcc -fpreprocessed`), a function is
#      defined at brace depth 0, a call is NAME( inside a body or a
#      #define; a file calls header H's function NAME when it includes H
#      (directly or through other headers) and defines no NAME itself;
#   3. a call, in a header's function bodies and macros, of a function an
#      object file defines (the inline body is compiled into its callers,
#      so the call belongs to the header).
# CALL_GRAPH_EDGES=FILE writes every edge there ("from to symbols...").
# The check fails, naming the files and the edges between them with the
# symbols of each, when modules form a circle (a strongly connected
# component of more than one module) that is not, exactly, in the list
# `allowed` below. Function pointers in tables count (lib[] naming lo_*);
# calls through a pointer the caller receives (callbacks, hooks) do not.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
case ${2:-} in
"") obj=$root/build/obj ;;
/*) obj=$2 ;;
*) obj=$(pwd)/$2 ;;
esac
cd "$root" || exit 2
dirs="support frontend/python frontend/diag frontend/lint frontend/lower ir hostlog planner codegen runtime"
command -v gcc > /dev/null 2>&1 || { echo "call_graph: needs gcc (gcc -fpreprocessed strips comments)" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# Circles known and being broken up, one a line: the modules of the
# circle, sorted. Only a circle of exactly these modules passes; one that
# gains or loses a file fails, and so does a line no circle matches any
# more. (CALL_GRAPH_ALLOWED replaces the list: tests/call_graph.sh.) None
# now: every call goes one way.
allowed=${CALL_GRAPH_ALLOWED-''}

# 1. symbols: "module type name" of every object file
for d in $dirs .; do
    for o in "$obj/$d"/*.o; do
        [ -f "$o" ] || continue
        m=${o#"$obj"/}
        m=${m#./}
        m=${m%.o}
        [ "$d" = . ] && [ ! -f "$m.c" ] && continue   # generated: templates_data, torchair_schema
        nm -P -g "$o" | awk -v m="$m" 'NF >= 2 { print m, $2, $1 }'
    done
done > "$tmp/syms"
[ -s "$tmp/syms" ] || { echo "call_graph: no object files under $obj (build first)" >&2; exit 2; }

# 2. sources: "file def NAME", "file call NAME", "file inc PATH"
for d in $dirs .; do
    for f in "$d"/*.c "$d"/*.h; do
        [ -f "$f" ] || continue
        f=${f#./}
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
        while IFS= read -r inc; do
            p=$(dirname "$f")/$inc
            [ -f "$p" ] || continue
            p=$(printf '%s\n' "$p" | awk -F/ '{n=0; for(i=1;i<=NF;i++){ if($i==".."){ if(n>0)n--; } else if($i!="."){ s[++n]=$i } } o=s[1]; for(i=2;i<=n;i++) o=o"/"s[i]; print o}')
            printf '%s inc %s\n' "$f" "$p"
        done
        gcc -fpreprocessed -dD -E -P -x c "$f" > "$tmp/pp" 2> /dev/null ||
            { echo "call_graph: gcc -fpreprocessed could not read $f" >&2; exit 2; }
        awk -v f="$f" '
        BEGIN {
            split("if while for switch return sizeof defined _Alignof _Generic __attribute__ " \
                  "__typeof__ typeof _Static_assert", kw, " ")
            for (i in kw) skip[kw[i]] = 1
        }
        {
            line = $0
            # string and character literals: their braces and names are no code
            gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
            gsub(/\047([^\047\\]|\\.)*\047/, "0", line)
            pp = cont || line ~ /^[ \t]*#/
            cont = pp && line ~ /\\$/
            if (pp) {
                if (line ~ /^[ \t]*#[ \t]*(include|if|ifdef|ifndef|elif|else|endif|undef|pragma|error)/)
                    next
                sub(/^[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*/, "", line)   # the macro itself
                while (match(line, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
                    n = substr(line, RSTART, RLENGTH); sub(/[ \t]*\($/, "", n)
                    line = substr(line, RSTART + RLENGTH)
                    if (!(n in skip)) print f, "call", n
                }
                next
            }
            while (match(line, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(|[{};=]/)) {
                t = substr(line, RSTART, RLENGTH)
                line = substr(line, RSTART + RLENGTH)
                if (t == "{") {
                    if (depth == 0 && pending != "" && !eq)
                        print f, "def", pending
                    depth++
                    if (depth == 1) pending = ""
                } else if (t == "}") {
                    if (depth > 0) depth--
                    if (depth == 0) { pending = ""; eq = 0 }
                } else if (t == ";") {
                    if (depth == 0) { pending = ""; eq = 0 }
                } else if (t == "=") {
                    if (depth == 0) eq = 1
                } else {
                    sub(/[ \t]*\($/, "", t)
                    if (t in skip) continue
                    if (depth > 0) print f, "call", t
                    else if (pending == "") pending = t
                }
            }
        }
        END { if (depth != 0) print f, "unbalanced", depth }' "$tmp/pp"
    done
done > "$tmp/src"
if grep -q ' unbalanced ' "$tmp/src"; then
    echo "call_graph: could not follow the braces of:" >&2
    grep ' unbalanced ' "$tmp/src" | sed 's/ unbalanced.*//; s/^/  /' >&2
    exit 2
fi

# 3. edges "from to symbol", modules, and the circles among them
awk -v allowed="$allowed" -v edges_out="${CALL_GRAPH_EDGES:-}" '
function mod(p) { sub(/\.[ch]$/, "", p); return p }
function edge(a, b, s) {
    a = mod(a); b = mod(b)
    if (a == b) return
    if (!((a, b) in E)) { E[a, b] = s; succ[a] = succ[a] " " b; node[a]; node[b] }
    else if (index(" " E[a, b] " ", " " s " ") == 0 && split(E[a, b], tmp_, " ") < 4) E[a, b] = E[a, b] " " s
}
# every file that file f includes, directly or not
function closure(f, seen,   n, k, i, l) {
    n = split(inc[f], l, " ")
    for (i = 1; i <= n; i++)
        if (!(l[i] in seen)) { seen[l[i]] = 1; closure(l[i], seen) }
}
function tarjan(v,   n, k, w, l) {
    idx[v] = low[v] = ++counter
    stack[++sp] = v; on[v] = 1
    n = split(succ[v], l, " ")
    for (k = 1; k <= n; k++) {
        w = l[k]
        if (!(w in idx)) { tarjan(w); if (low[w] < low[v]) low[v] = low[w] }
        else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
    }
    if (low[v] == idx[v]) {
        comp = ""; size = 0
        do { w = stack[sp--]; on[w] = 0; member[++size] = w } while (w != v)
        if (size > 1) {
            # sorted member list
            for (i = 2; i <= size; i++)
                for (j = i; j > 1 && member[j - 1] > member[j]; j--) { t = member[j]; member[j] = member[j - 1]; member[j - 1] = t }
            for (i = 1; i <= size; i++) comp = comp (i > 1 ? " " : "") member[i]
            circles[++ncirc] = comp
        }
    }
}
FILENAME ~ /syms$/ {
    if ($2 == "U" || $2 == "w" || $2 == "v") users[$3] = users[$3] " " $1
    else { if (!($3 in definer)) definer[$3] = $1; else definer[$3] = definer[$3] " " $1 }
    next
}
$2 == "inc" { inc[$1] = inc[$1] " " $3; next }
$2 == "def" { def[$1, $3] = 1; if ($1 ~ /\.h$/) hdef[$3] = hdef[$3] " " $1; next }
$2 == "call" { ncall++; cf[ncall] = $1; cn[ncall] = $3; next }
END {
    # 1. undefined symbols defined elsewhere
    for (s in users) {
        if (!(s in definer)) continue
        nu = split(users[s], u, " "); nd = split(definer[s], dd, " ")
        for (i = 1; i <= nu; i++) for (j = 1; j <= nd; j++) edge(u[i], dd[j], s)
    }
    # 2. and 3. calls in the sources
    for (k = 1; k <= ncall; k++) {
        f = cf[k]; n = cn[k]
        if ((f, n) in def) continue
        if (n in hdef) {
            if (!(f in closed)) { delete seen; closure(f, seen); for (x in seen) reach[f, x] = 1; closed[f] = 1 }
            nh = split(hdef[n], hs, " ")
            for (i = 1; i <= nh; i++) if ((f, hs[i]) in reach) edge(f, hs[i], n)
        }
        if (f ~ /\.h$/ && (n in definer)) {
            nd = split(definer[n], dd, " ")
            for (j = 1; j <= nd; j++) edge(f, dd[j], n)
        }
    }
    for (v in node) nedges += split(succ[v], tmp_, " ")
    if (edges_out != "")
        for (v in node) { n = split(succ[v], tmp_, " "); for (k = 1; k <= n; k++) print v, tmp_[k], E[v, tmp_[k]] > edges_out }
    for (v in node) if (!(v in idx)) tarjan(v)
    na = split(allowed, al, "\n")
    status = 0
    for (c = 1; c <= ncirc; c++) {
        ok = 0
        for (a = 1; a <= na; a++) if (al[a] == circles[c]) { ok = 1; used[a] = 1 }
        if (ok) { print "call_graph: allowed circle (being broken up): " circles[c]; continue }
        status = 1
        print "call_graph: files call each other in a circle (module = stem.c + stem.h):" > "/dev/stderr"
        print "  " circles[c] > "/dev/stderr"
        nm_ = split(circles[c], ms, " ")
        for (i = 1; i <= nm_; i++) in_c[c, ms[i]] = 1
        for (i = 1; i <= nm_; i++) for (j = 1; j <= nm_; j++)
            if ((ms[i], ms[j]) in E) print "    " ms[i] " -> " ms[j] ": " E[ms[i], ms[j]] > "/dev/stderr"
    }
    for (a = 1; a <= na; a++)
        if (al[a] != "" && !(a in used)) {
            print "call_graph: the allowed circle \"" al[a] "\" is gone (or changed): take it out of the list" > "/dev/stderr"
            status = 1
        }
    if (status == 0) print "call_graph: " length(node) " modules, " nedges " edges, no circles but the allowed"
    exit status
}' "$tmp/syms" "$tmp/src"
