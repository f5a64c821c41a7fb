#!/bin/sh
# op_switches.sh - checks that no switch over op kinds has a default
# (`make check` runs it).
#
#   scripts/op_switches.sh [ROOT]
#
# Reads the C sources and headers of ir, planner, codegen, frontend (and its
# subfolders), runtime, templates and tngc.c under ROOT (default: the
# repository) and fails, naming FILE:LINE of each, on a `default:` of a
# switch whose case labels name an op kind (OP_...) or a libtngcrt
# elementwise sub-kind (TNGRT_UN_..., TNGRT_BIN_..., TNGRT_RED_...). A fact
# that differs by kind is a column of ir/ops.def (or a value of a small
# enum the row fills in, switched over without a default), so that a new
# kind cannot fall silently into a default: with no default, -Wswitch
# (-Wall -Werror) stops the build on a value no case names.
# Comments, string and character literals are skipped; a label belongs to
# the innermost switch around it.
#
# Exempt (FILE and the switch's expression, one a line): none.
exempt=''
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
files=$(find ir planner codegen frontend runtime templates tngc.c \
             \( -name '*.c' -o -name '*.h' \) -type f 2>/dev/null | sort)
[ -n "$files" ] || { echo "op_switches: no sources under $root" >&2; exit 2; }

# shellcheck disable=SC2086
awk -v exempt="$exempt" '
BEGIN {
    n = split(exempt, ex, "\n")
    for (i = 1; i <= n; i++) if (ex[i] != "") allowed[ex[i]] = 1
}
function report(i) {
    if (sw_ops[i] && sw_def[i] != "" && !((sw_file[i] " " sw_expr[i]) in allowed))
        { print sw_def[i] ": default: in a switch over op kinds (" sw_first[i] ")"; bad++ }
}
FNR == 1 {
    while (nsw > 0) { report(nsw); nsw-- }
    depth = 0; incomment = 0; pending = 0
}
{
    # strip comments, strings and character literals from the line
    s = $0; out = ""
    while (s != "") {
        if (incomment) {
            p = index(s, "*/")
            if (p == 0) { s = ""; break }
            s = substr(s, p + 2); incomment = 0; continue
        }
        c = substr(s, 1, 1); c2 = substr(s, 1, 2)
        if (c2 == "//") break
        if (c2 == "/*") { incomment = 1; s = substr(s, 3); out = out " "; continue }
        if (c == "\"" || c == "\047") {
            q = c; s = substr(s, 2)
            while (s != "") {
                d = substr(s, 1, 1)
                if (d == "\\") { s = substr(s, 3); continue }
                s = substr(s, 2)
                if (d == q) break
            }
            out = out q q; continue
        }
        out = out c; s = substr(s, 2)
    }
    line = out
    # walk the tokens that matter, in order: switch, {, }, case, default
    while (line != "") {
        if (match(line, /^[A-Za-z_][A-Za-z0-9_]*/)) {
            w = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1)
            if (w == "switch") {
                pending = 1
                # its expression: the rest of the line up to the brace
                pexpr = line; sub(/[ \t]*\{.*/, "", pexpr); gsub(/^[ \t]+/, "", pexpr)
            }
            else if (w == "case" && nsw > 0) {
                # the label runs to the colon
                lab = line; sub(/:.*/, "", lab)
                if (lab ~ /(^|[^A-Za-z0-9_])(OP_|TNGRT_UN_|TNGRT_BIN_|TNGRT_RED_)[A-Za-z0-9_]/ &&
                    lab !~ /OP_ANY/) {
                    if (!sw_ops[nsw]) { sw_ops[nsw] = 1; l = lab; gsub(/^[ \t]+|[ \t]+$/, "", l); sw_first[nsw] = "case " l }
                }
            } else if (w == "default" && nsw > 0 && line ~ /^[ \t]*:/) {
                if (sw_def[nsw] == "") sw_def[nsw] = FILENAME ":" FNR
            }
            continue
        }
        c = substr(line, 1, 1); line = substr(line, 2)
        if (c == "{") {
            depth++
            if (pending) {
                nsw++; swdepth[nsw] = depth; sw_ops[nsw] = 0; sw_def[nsw] = ""; sw_first[nsw] = ""
                sw_file[nsw] = FILENAME; sw_expr[nsw] = pexpr
                pending = 0
            }
        } else if (c == "}") {
            if (nsw > 0 && swdepth[nsw] == depth) { report(nsw); nsw-- }
            depth--
        }
    }
}
END {
    while (nsw > 0) { report(nsw); nsw-- }
    exit bad > 0
}
' $files
status=$?
if [ "$status" -ne 0 ]; then
    echo "op_switches: a switch over op kinds has a default; make the fact a column of ir/ops.def" >&2
fi
exit "$status"
