#!/usr/bin/env python3
"""Writes a copy of a TorchAir script whose compiled entries run in
reduce-overhead mode (the aclsim suite's "captured" builds).

usage: python3 tests/aclsim/captured.py SCRIPT OUT

The script's syntax tree says where its compile configs are made and used:

- NAME = <...>CompilerConfig() (a statement of its own): the line
  NAME.mode = "reduce-overhead" follows it;
- <...>CompilerConfig() anywhere else (an argument, as in
  get_npu_backend(compiler_config=torchair.CompilerConfig())): a config of
  its own, made and set to reduce-overhead on the lines just before the
  statement that holds the call, takes the call's place;
- <...>cache_compile(FUNC) with no config= argument (TorchAir's default, a
  CompilerConfig() in max-autotune mode): config= such a config is added.

A later assignment NAME.mode = "<another mode>" would undo the first rule:
it is reported, as is a script with none of the three. Everything else is
copied byte for byte, so the copy differs from the script only in the
lines above (its line numbers shift by the lines added).

Exit status: 0 the copy is written; 1 the script cannot be put in
reduce-overhead mode this way (one line on stderr says why); 2 usage.
"""
import ast
import sys

MODE = "reduce-overhead"


def callee(node):
    """The last name of a call's function (f, a.b.f -> "f"), or None."""
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def is_config_call(node):
    return isinstance(node, ast.Call) and callee(node) == "CompilerConfig" and not node.args \
        and not node.keywords


def torchair_alias(tree):
    """The name the script imports torchair as (import torchair [as X]), or None."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "torchair":
                    return a.asname or "torchair"
    return None


class Rewriter:
    def __init__(self, src):
        self.src = src
        self.lines = src.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        self.edits = []   # (offset, order, text to insert, bytes to drop)
        self.n = 0

    def offset(self, lineno, col):
        """The byte offset of (1-based line, byte column)."""
        return self.starts[lineno - 1] + col

    def indent_of(self, stmt):
        line = self.lines[stmt.lineno - 1]
        head = line[:stmt.col_offset]
        if head.strip():
            return None   # the statement follows other code on its line
        return head

    def config_before(self, stmt, make):
        """Makes a config in reduce-overhead mode just before stmt; its name."""
        indent = self.indent_of(stmt)
        if indent is None:
            raise ValueError("line %d: the statement shares its line with other code" % stmt.lineno)
        self.n += 1
        name = "_aclsim_config_%d" % self.n
        indent = indent.decode()
        text = "%s%s = %s\n%s%s.mode = \"%s\"\n" % (indent, name, make, indent, name, MODE)
        self.edits.append((self.starts[stmt.lineno - 1], 0, text.encode(), 0))
        return name

    def set_after(self, stmt, name):
        indent = self.indent_of(stmt)
        if indent is None:
            raise ValueError("line %d: the statement shares its line with other code" % stmt.lineno)
        text = "%s%s.mode = \"%s\"\n" % (indent.decode(), name, MODE)
        self.edits.append((self.starts[stmt.end_lineno], 1, text.encode(), 0))

    def replace(self, node, text):
        a = self.offset(node.lineno, node.col_offset)
        b = self.offset(node.end_lineno, node.end_col_offset)
        self.edits.append((a, 2, text, b - a))

    def insert_at_end(self, node, text):
        self.edits.append((self.offset(node.end_lineno, node.end_col_offset), 2, text, 0))

    def result(self):
        out = self.src
        for off, _, text, drop in sorted(self.edits, key=lambda e: (e[0], e[1]), reverse=True):
            out = out[:off] + text + out[off + drop:]
        return out


def statements(tree):
    """(statement, its innermost enclosing statement's children) in source order."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody", "handlers"):
            children = getattr(node, field, None)
            for child in children if isinstance(children, list) else []:
                if isinstance(child, ast.stmt):
                    yield child


def innermost_stmt(tree, target):
    """The innermost statement that contains the node target."""
    best = None
    for stmt in statements(tree):
        for sub in ast.walk(stmt):
            if sub is target:
                if best is None or (stmt.lineno, stmt.col_offset) >= (best.lineno, best.col_offset):
                    best = stmt
                break
    return best


def rewrite(src):
    tree = ast.parse(src.decode("utf-8"))
    rw = Rewriter(src)
    named = {}   # config name -> the statement that makes it
    own = set()  # the CompilerConfig() calls that are such statements' values
    for stmt in statements(tree):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and is_config_call(stmt.value):
            named[stmt.targets[0].id] = stmt
            own.add(id(stmt.value))
            rw.set_after(stmt, stmt.targets[0].id)
    for stmt in statements(tree):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            t = stmt.targets[0]
            if isinstance(t, ast.Attribute) and t.attr == "mode" and isinstance(t.value, ast.Name) and \
                    t.value.id in named and not (isinstance(stmt.value, ast.Constant) and
                                                 stmt.value.value == MODE):
                raise ValueError("line %d: %s.mode is set to another mode after the config is made"
                                 % (stmt.lineno, t.value.id))
    alias = torchair_alias(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if is_config_call(node) and id(node) not in own:
            make = ast.get_source_segment(src.decode("utf-8"), node)
            rw.replace(node, rw.config_before(innermost_stmt(tree, node), make).encode())
        elif callee(node) == "cache_compile" and not any(k.arg == "config" for k in node.keywords):
            if alias is None:
                raise ValueError("line %d: cache_compile without config=, and no 'import torchair' "
                                 "to make one with" % node.lineno)
            name = rw.config_before(innermost_stmt(tree, node), alias + ".CompilerConfig()")
            last = (node.args + node.keywords)[-1] if node.args or node.keywords else None
            if last is None:
                raise ValueError("line %d: cache_compile with no arguments" % node.lineno)
            rw.insert_at_end(last, (", config=%s" % name).encode())
    if not rw.edits:
        raise ValueError("no CompilerConfig() and no cache_compile call to set reduce-overhead mode on")
    return rw.result()


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: captured.py SCRIPT OUT\n")
        return 2
    with open(argv[0], "rb") as f:
        src = f.read()
    try:
        out = rewrite(src)
        ast.parse(out.decode("utf-8"))
    except (ValueError, SyntaxError) as e:
        sys.stderr.write("%s: %s\n" % (argv[0], e))
        return 1
    with open(argv[1], "wb") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
