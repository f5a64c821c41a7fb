#!/bin/sh
# Checks that the repository explains itself: no comment, document or test
# refers to a document that is not in it or to a tracker's numbers. Prints
# FILE:LINE: TEXT for each line that names
#   - DESIGN.md or "DESIGN" as a document ("DESIGN, Gears", "DESIGN's list"),
#     or STYLE.md (neither is in the repository);
#   - an issue by number ("issue 12", "Issue #4", "issue 18's kernels") or an
#     item of one ("(item 3)", "(items 1-3)");
#   - a seed document by its number ("seed 002", "Seed 000's manifest",
#     "seeds 001-003": three digits, the first 0) or as "the seed documents"
#     or "seed feature".
# Random-number seeds are not document numbers and pass: tests/diff's
# "program seed 215", "seed 1000005208", a fuzzer's seed scripts. So does
# English: "an issue", "the items".
# Files: *.c *.h *.def *.sh *.py *.md *.mk, Makefiles and the man page, as
# git lists them (every file under REPO but build/ and .git/ when REPO is not
# a git work tree). Exit status 0 when there is none, 1 when there are, 2 on
# a usage error.
# usage: scripts/self_contained.sh [REPO]
set -u
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$repo" || exit 2

# Not checked: this check and its test, which spell the patterns out.
skip='scripts/self_contained.sh
tests/self_contained.sh'

b='(^|[^A-Za-z0-9_])'       # a word starts
e='([^A-Za-z0-9_]|$)'       # a word ends
pat="${b}DESIGN(\\.md)?${e}|${b}STYLE\\.md${e}"
pat="$pat|${b}[Ii]ssues? ?#?[0-9]|\\([Ii]tems? [0-9]"
pat="$pat|${b}[Ss]eeds? 0[0-9][0-9]${e}|${b}seed (document|feature)s?${e}"

list() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
       [ "$(git rev-parse --show-toplevel)" = "$(pwd -P)" ]; then
        git ls-files --cached --others --exclude-standard
    else
        find . \( -name build -o -name .git \) -prune -o -type f -print | sed 's|^\./||'
    fi
}

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
printf '%s\n' "$skip" >"$tmp/skip"
# One grep over every file (names with blanks are left out: there are none).
list | grep -E '(\.(c|h|def|sh|py|md|mk|1)|(^|/)Makefile)$' | grep -vxF -f "$tmp/skip" |
    grep -v '[[:space:]]' | xargs grep -nE -- "$pat" /dev/null >"$tmp/found"
if [ -s "$tmp/found" ]; then
    cat "$tmp/found"
    echo "self_contained: $(wc -l <"$tmp/found" | tr -d ' ') line(s) refer to documents outside the repository or to issue and seed numbers: state the fact itself" >&2
    exit 1
fi
exit 0
