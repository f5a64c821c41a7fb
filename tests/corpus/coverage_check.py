#!/usr/bin/python3
"""Checks docs/rules-coverage.tsv, the table of TorchAir's raise, assert and
warning sites that a script reaches, and writes docs/rules-coverage.md.

    python3 tests/corpus/coverage_check.py            check the table
    python3 tests/corpus/coverage_check.py --markdown print the page

The check, without snapshots: every row has its twelve columns, a known kind,
severity and lint status; every rule the lint column names is a row of
frontend/diag/rules.def; operator names are unique; docs/rules-coverage.md is
what --markdown prints.  Where a local snapshot of a row's repository is
present (the lookup of tests/corpus/real.sh: $TNGC_MIRRORS/owner+name/repo,
.../owner+name or .../owner+name/.git, default root /work/.mirror), the
cited line at the cited commit must still contain the row's text; a row that
does not is named and fails the check.  Without any snapshot that part is
skipped with a message.  Exit status 0 when all is well, 1 otherwise.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TABLE = os.path.join(ROOT, "docs", "rules-coverage.tsv")
PAGE = os.path.join(ROOT, "docs", "rules-coverage.md")
RULES = os.path.join(ROOT, "frontend", "diag", "rules.def")

COLUMNS = ["id", "repo", "commit", "site", "text", "api", "kind", "severity",
           "condition", "lint", "note", "operator"]
KINDS = ("raise", "assert", "warn", "ignored", "signature")
SEVERITIES = ("error", "warning", "note")
STATUSES = ("planned", "open", "no")
RULE_RE = re.compile(r"^TNG[0-9]{3}$")


def read_table(path=TABLE):
    """The rows as dicts (with their line number in 'n'), and the problems."""
    rows, problems = [], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != len(COLUMNS):
                problems.append(f"rules-coverage.tsv:{n}: {len(cols)} columns, want {len(COLUMNS)}")
                continue
            row = dict(zip(COLUMNS, cols))
            row["n"] = n
            rows.append(row)
    return rows, problems


def rule_list(row):
    """The TNG rules a row names in its lint column (none for planned/open/no)."""
    if row["lint"] in STATUSES:
        return []
    return row["lint"].split(",")


def check_rows(rows):
    problems = []
    with open(RULES, encoding="utf-8") as f:
        known = set(re.findall(r"^RULE\((TNG[0-9]{3}),", f.read(), re.M))
    ids, operators = set(), set()
    for r in rows:
        where = f"rules-coverage.tsv:{r['n']} ({r['id']})"
        if r["id"] in ids:
            problems.append(f"{where}: id used twice")
        ids.add(r["id"])
        if r["kind"] not in KINDS:
            problems.append(f"{where}: kind {r['kind']!r} not one of {', '.join(KINDS)}")
        if r["severity"] not in SEVERITIES:
            problems.append(f"{where}: severity {r['severity']!r} not one of {', '.join(SEVERITIES)}")
        if not re.match(r"^[0-9a-f]{40}$", r["commit"]):
            problems.append(f"{where}: commit is not 40 hex digits")
        if not re.match(r"^[^:]+:[0-9]+$", r["site"]):
            problems.append(f"{where}: site is not path:line")
        if not r["text"].strip():
            problems.append(f"{where}: no text to check the site by")
        if r["lint"] in STATUSES:
            if not r["note"]:
                problems.append(f"{where}: lint {r['lint']} needs a note (what is planned, or why not decidable)")
        else:
            for rule in rule_list(r):
                if not RULE_RE.match(rule):
                    problems.append(f"{where}: lint {r['lint']!r}: want TNGnnn[,TNGnnn], planned, open or no")
                elif rule not in known:
                    problems.append(f"{where}: {rule} is not in frontend/diag/rules.def")
        op = r["operator"]
        if op != "-":
            if op in operators:
                problems.append(f"{where}: operator {op} used twice")
            operators.add(op)
            if r["lint"] == "no":
                problems.append(f"{where}: operator on a row lint cannot decide")
    return problems


def gitdir(repo):
    root = os.environ.get("TNGC_MIRRORS", "/work/.mirror")
    d = os.path.join(root, repo.replace("/", "+"))
    for g in (os.path.join(d, "repo"), d, os.path.join(d, ".git")):
        if os.path.isdir(g) and subprocess.run(
                ["git", "--git-dir", g, "rev-parse", "-q", "--git-dir"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            return g
    return None


def check_sites(rows):
    """Problems, rows checked, repositories without a snapshot."""
    problems, checked, absent = [], 0, set()
    files = {}
    for r in rows:
        g = gitdir(r["repo"])
        if g is None:
            absent.add(r["repo"])
            continue
        path, line = r["site"].rsplit(":", 1)
        key = (g, r["commit"], path)
        if key not in files:
            p = subprocess.run(["git", "--git-dir", g, "show", f"{r['commit']}:{path}"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            files[key] = p.stdout.decode("utf-8", "replace").split("\n") if p.returncode == 0 else None
        text = files[key]
        where = f"rules-coverage.tsv:{r['n']} ({r['id']}) {r['repo']}@{r['commit'][:8]}:{r['site']}"
        if text is None:
            problems.append(f"{where}: no such file at that commit in {g}")
        elif int(line) > len(text) or r["text"] not in text[int(line) - 1]:
            got = text[int(line) - 1].strip() if int(line) <= len(text) else "(past the end)"
            problems.append(f"{where}: line does not contain {r['text']!r}; it is {got!r}")
        checked += 1
    return problems, checked, absent


PAGE_HEAD = """# TorchAir's raise sites and the lint rules that check them

Generated from [rules-coverage.tsv](rules-coverage.tsv) by
`python3 tests/corpus/coverage_check.py --markdown`; edit the TSV, not this
page.

Every `raise`, `assert` and warning of TorchAir (Ascend/torchair at
fced8842, `python/torchair` and `npugraph_ex`) that a model script reaches
through the user-facing API: `get_npu_backend`, `CompilerConfig` and its
option classes, `torch.compile` options and mode for the TorchAir and
npugraph_ex backends, `torchair.scope.*` (`npu_stream_switch`,
`npu_wait_tensor`, `super_kernel`, `limit_core_num`, `op_never_timeout`),
`set_dim_gears`, `cache_compile`, tagged events, `npu_print` and
`ops.wait`; and the checks of CANN's super-kernel option parser (cited in
hicann/graph-autofusion at 423ae264, which calls it). A call that Python
itself refuses against the real signature (a keyword-only parameter given
positionally, an unknown keyword) is a `signature` row at the `def` line.
Where TorchAir silently drops what the script asks for (`ignored`), the
expected finding is a warning.

Columns of the TSV:

| column | meaning |
|---|---|
| id | the row's name; the recall test reports by it |
| repo, commit, site | where the check is: repository, commit, `path:line` |
| text | a distinctive part of that line; `coverage_check.py` verifies it against a local snapshot |
| api | the entry point the script calls |
| kind | `raise`, `assert`, `warn`, `ignored` (the request is dropped silently) or `signature` (Python's TypeError at the call) |
| severity | what lint must report: `error` where TorchAir or CANN raises, `warning` where it warns or ignores, `note` for TNG103 |
| condition | what the script does wrong |
| lint | the rule(s) that check it; `planned` (decidable from the script, a rule is being added), `open` (decidable, no rule yet), `no` (not decidable from the script's text) |
| note | for `planned` and `open`: the family of rules; for `no`: why not (file system, versions, run-time shapes) |
| operator | the recall test's mutation operator for the row (`tests/corpus/mutate.py`), `-` where none |

"""


def markdown(rows):
    out = [PAGE_HEAD]
    total = len(rows)
    decidable = [r for r in rows if r["lint"] != "no"]
    checked = [r for r in rows if rule_list(r)]
    planned = [r for r in rows if r["lint"] == "planned"]
    opened = [r for r in rows if r["lint"] == "open"]
    with_op = [r for r in rows if r["operator"] != "-"]
    out.append(f"{total} sites: {len(decidable)} decidable from the script's text, of which "
               f"{len(checked)} are checked by a rule, {len(planned)} planned and {len(opened)} open; "
               f"{total - len(decidable)} not decidable. {len(with_op)} rows have a mutation operator.\n")
    reasons = {}
    for r in rows:
        if r["lint"] == "no":
            reasons.setdefault(r["note"], []).append(r["id"])
    out.append("\nNot decidable, by reason:\n")
    for reason, ids in sorted(reasons.items()):
        out.append(f"- {reason}: {', '.join(ids)}")
    out.append("\nPlanned, by family (rows):\n")
    fam = {}
    for r in planned:
        fam.setdefault(r["note"], []).append(r["id"])
    for note, ids in sorted(fam.items()):
        out.append(f"- {note}: {', '.join(ids)}")
    out.append("")
    groups = {}
    for r in rows:
        groups.setdefault(r["api"], []).append(r)
    for api, group in groups.items():
        out.append(f"\n## {api}\n")
        out.append("| id | site | kind | condition | lint | severity | operator |")
        out.append("|---|---|---|---|---|---|---|")
        for r in group:
            out.append(row_markdown(r))
    return "\n".join(out) + "\n"


def row_markdown(r):
    """One row of the page's tables."""
    repo = "" if r["repo"] == "Ascend/torchair" else r["repo"] + " "
    lint = r["lint"] + (f" ({r['note']})" if r["note"] else "")
    cond = r["condition"].replace("|", "\\|")
    return (f"| {r['id']} | {repo}`{r['site']}` | {r['kind']} | {cond} | "
            f"{lint.replace('|', '/')} | {r['severity']} | {r['operator']} |")


def main(argv):
    rows, problems = read_table()
    if argv[1:] == ["--markdown"]:
        sys.stdout.write(markdown(rows))
        return 0
    problems += check_rows(rows)
    try:
        with open(PAGE, encoding="utf-8") as f:
            if f.read() != markdown(rows):
                problems.append("docs/rules-coverage.md is not what --markdown prints: regenerate it")
    except OSError:
        problems.append("docs/rules-coverage.md is missing")
    site_problems, checked, absent = check_sites(rows)
    problems += site_problems
    for p in problems:
        print(f"coverage: {p}")
    for repo in sorted(absent):
        print(f"coverage: no snapshot of {repo}: its sites not checked")
    if checked == 0:
        print("coverage: site check skipped (no local snapshots)")
    print(f"coverage: {len(rows)} rows, {checked} sites checked against snapshots, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
