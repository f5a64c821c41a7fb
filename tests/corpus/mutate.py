#!/usr/bin/python3
"""The recall of tngc lint on real code, measured by mutation.

    python3 tests/corpus/mutate.py TNGC TREE FILES [--cap N] [--verbose]
    python3 tests/corpus/mutate.py --self-test

TREE is the folder real.sh extracts the corpus into, FILES its list of
paths relative to TREE (tests/corpus/REAL.md).  For each file, the mutation
operators of docs/rules-coverage.tsv (one per decidable row) find the call
sites `tngc scan` resolves to TorchAir (or the config assignments, options
dicts and gear dicts it reports) and inject the row's misuse there, at most
N mutants per operator per file (default 2), in source order.  Each mutant
replaces the file in TREE, is linted with `tngc lint --format json`, and the
file is put back.  A mutant is caught when lint reports, beyond the findings
of the unmutated file (compared by line, rule and severity, the lines after
an inserted line shifted), a finding on the mutated lines at the row's
severity and of one of its rules (any rule where the row is planned or
open), and no new finding elsewhere.  Prints recall per operator (with
--verbose also the misses, and the rules that caught each operator's
mutants) and overall; exit status 1 only when tngc fails (a signal or an exit status
above 1), an operator makes a mutant that is not Python, or no mutant is
made.  --self-test checks the judging of findings
on made-up ones.
"""
import ast
import itertools
import json
import os
import re
import subprocess
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coverage_check  # noqa: E402

NOT_TORCHAIR_SECTIONS = ("export.", "aclgraph_config.", "npugraphex_config.")
INT_RANGE_FIELDS = ("static_model_ops_lower_limit", "_aclnn_static_shape_kernel_sym_index",
                    "static_capture_size_limit", "capture_limit")


class Source:
    """A file's bytes with line offsets, its syntax tree and its scan."""

    def __init__(self, data, annotations):
        self.data = data
        self.starts = [0]
        for i, b in enumerate(data):
            if b == 10:
                self.starts.append(i + 1)
        self.tree = ast.parse(data)
        self.ann = annotations
        self.calls = {}
        self.assigns = {}
        self.parents = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
            if isinstance(node, ast.Call):
                self.calls[(node.lineno, node.col_offset)] = node
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                self.assigns.setdefault(node.lineno, node)

    def off(self, line, col):
        return self.starts[line - 1] + col

    def span(self, node):
        return self.off(node.lineno, node.col_offset), self.off(node.end_lineno, node.end_col_offset)

    def text(self, node):
        a, b = self.span(node)
        return self.data[a:b].decode("utf-8")

    def line_text(self, line):
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.data)
        return self.data[self.starts[line - 1]:end].decode("utf-8")

    def sites(self, kind, callee=None):
        """(annotation, Call node) of the resolved annotations of a kind."""
        out = []
        for a in self.ann:
            if a["kind"] != kind or not a["resolved"]:
                continue
            if callee and not re.search(callee, a.get("callee", "")):
                continue
            node = self.calls.get((a["line"], a["col"] - 1))
            if node is not None:
                out.append((a, node))
        return out


class Mutant:
    """A byte-range replacement (or a line inserted) and the lines it touches."""

    def __init__(self, src, edits, lines, inserted_after=None):
        self.src, self.edits, self.lines, self.inserted_after = src, edits, lines, inserted_after

    def apply(self):
        data = self.src.data
        for a, b, new in sorted(self.edits, reverse=True):
            data = data[:a] + new.encode("utf-8") + data[b:]
        return data


def call_lines(call):
    return set(range(call.lineno, call.end_lineno + 1))


def edit(src, call, node, new):
    a, b = src.span(node)
    return Mutant(src, [(a, b, new)], call_lines(call))


def add_arg(src, call, text):
    """The call with one more argument after its last one (a comment or a
    trailing comma after that stays where it is)."""
    given = call.args + call.keywords
    if given:
        last = max(given, key=lambda n: (n.end_lineno, n.end_col_offset))
        b = src.off(last.end_lineno, last.end_col_offset)
        return Mutant(src, [(b, b, ", " + text)], call_lines(call))
    b = src.off(call.end_lineno, call.end_col_offset) - 1        # the ')'
    return Mutant(src, [(b, b, text)], call_lines(call))


def drop_arg(src, call, index):
    """The call without its positional argument INDEX (not the first)."""
    prev, node = call.args[index - 1], call.args[index]
    a = src.off(prev.end_lineno, prev.end_col_offset)
    b = src.off(node.end_lineno, node.end_col_offset)
    return Mutant(src, [(a, b, "")], call_lines(call))


def keyword(call, name):
    for k in call.keywords:
        if k.arg == name:
            return k
    return None


def rename_kw(src, call, kw, new):
    a = src.off(kw.lineno, kw.col_offset)
    return Mutant(src, [(a, a + len(kw.arg), new)], call_lines(call))


def arg_of(call, index, name):
    """The argument at a position or given by keyword, or None."""
    if len(call.args) > index and not any(isinstance(x, ast.Starred) for x in call.args[:index + 1]):
        return call.args[index]
    k = keyword(call, name)
    return k.value if k is not None else None


def insert_after_stmt(src, node, text_of_stmt):
    """A new statement after the one holding NODE, at its indentation."""
    stmt = node
    while not isinstance(stmt, ast.stmt):
        stmt = src.parents[stmt]
    if not isinstance(stmt, (ast.Expr, ast.Assign)):
        return None
    indent = re.match(r"[ \t]*", src.line_text(stmt.lineno)).group(0)
    at = src.starts[stmt.end_lineno] if stmt.end_lineno < len(src.starts) else len(src.data)
    new = indent + text_of_stmt + "\n"
    if at == len(src.data) and not src.data.endswith(b"\n"):
        new = "\n" + new
    return Mutant(src, [(at, at, new)], {stmt.end_lineno + 1}, inserted_after=stmt.end_lineno)


def is_str(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


# ---- which backend a torch.compile call uses ------------------------------

def torchair_backend_names(src):
    names = set()
    for a, call in src.sites("get_npu_backend", r"^torchair\."):
        parent = src.parents.get(call)
        if isinstance(parent, ast.Assign):
            for t in parent.targets:
                if isinstance(t, ast.Name):
                    names.add(t.id)
    return names


def compile_sites(src, which):
    """torch.compile calls whose backend is TorchAir's get_npu_backend ("torchair")
    or the npugraph_ex string ("npugraph_ex")."""
    names = torchair_backend_names(src)
    out = []
    for a, call in src.sites("torch_compile"):
        be = keyword(call, "backend")
        if be is None:
            continue
        v = be.value
        if which == "npugraph_ex" and is_str(v) and v.value == "npugraph_ex":
            out.append(call)
        elif which == "torchair" and ((isinstance(v, ast.Name) and v.id in names)
                                      or re.match(r"^\w+\.get_npu_backend\(", src.text(v))
                                      and src.text(v).startswith("torchair.")):
            out.append(call)
    return out


def options_dict(call):
    k = keyword(call, "options")
    return k.value if k is not None and isinstance(k.value, ast.Dict) else None


def add_option(src, call, key_value):
    d = options_dict(call)
    if d is not None:
        a = src.off(d.lineno, d.col_offset) + 1
        sep = ", " if d.keys else ""
        return Mutant(src, [(a, a, key_value + sep)], call_lines(call))
    if keyword(call, "options") is not None:
        return None
    return add_arg(src, call, "options={" + key_value + "}")


# ---- config assignments ------------------------------------------------------

def npugraph_ex_config_names(src):
    names = set()
    for a in src.ann:
        if a["kind"] == "compiler_config" and "npugraph_ex" in a.get("callee", ""):
            node = src.assigns.get(a["line"])
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        names.add(t.id)
    return names


def config_sites(src, npugraph_ex=False):
    """(field, Assign node) of the assignments to TorchAir's CompilerConfig
    (or to npugraph_ex's, with npugraph_ex set)."""
    ex = npugraph_ex_config_names(src)
    out = []
    for a in src.ann:
        if a["kind"] != "config_option" or not a["resolved"]:
            continue
        field = a["args"].get("field", "")
        if not field or (not npugraph_ex and field.startswith(NOT_TORCHAIR_SECTIONS)):
            continue
        cfg = a["args"].get("config")
        name = cfg.get("expr") if isinstance(cfg, dict) else None
        if (name in ex) != npugraph_ex:
            continue
        node = src.assigns.get(a["line"])
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        if not isinstance(node.targets[0], ast.Attribute):
            continue
        out.append((field, node))
    return out


def cfg_mutant(src, node, new_value):
    a, b = src.span(node.value)
    return Mutant(src, [(a, b, new_value)], set(range(node.lineno, node.end_lineno + 1)))


# ---- the operators ---------------------------------------------------------

def op_gnb_positional(src):
    for a, call in src.sites("get_npu_backend", r"^torchair\."):
        k = keyword(call, "compiler_config")
        if k is not None and not call.args and call.keywords[0] is k:
            yield edit(src, call, k, src.text(k.value))


def op_gnb_kw_typo(src):
    for a, call in src.sites("get_npu_backend", r"^torchair\."):
        k = keyword(call, "compiler_config")
        if k is not None:
            yield rename_kw(src, call, k, "compile_config")


def op_gnb_decomp_list(src):
    for a, call in src.sites("get_npu_backend", r"^torchair\."):
        k = keyword(call, "custom_decompositions")
        if k is not None:
            yield edit(src, call, k.value, '["aten.add"]')
        else:
            yield add_arg(src, call, 'custom_decompositions=["aten.add"]')


def op_cfg_ctor_arg(src):
    for a, call in src.sites("compiler_config", r"^torchair\."):
        if not call.args and not call.keywords:
            yield add_arg(src, call, 'mode="reduce-overhead"')


def op_cfg_field_typo(src):
    for field, node in config_sites(src):
        t = node.targets[0]
        end = src.off(t.end_lineno, t.end_col_offset)
        new = t.attr[:-1] if len(t.attr) > 3 else t.attr + "s"
        yield Mutant(src, [(end - len(t.attr), end, new)], set(range(node.lineno, node.end_lineno + 1)))


def op_cfg_mode_bad(src):
    for field, node in config_sites(src):
        if field == "mode" and is_str(node.value):
            v = node.value.value
            yield cfg_mutant(src, node, repr(v.replace("-", "_") if "-" in v else v.replace("_", "")))


def op_cfg_bool_str(src):
    for field, node in config_sites(src):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, bool):
            yield cfg_mutant(src, node, '"%s"' % node.value.value)


def op_cfg_str_tuple(src):
    for field, node in config_sites(src):
        if is_str(node.value):
            yield cfg_mutant(src, node, src.text(node.value) + ",")


def op_cfg_int_str(src):
    for field, node in config_sites(src):
        if field.split(".")[-1] in INT_RANGE_FIELDS and isinstance(node.value, ast.Constant) \
                and type(node.value.value) is int:
            yield cfg_mutant(src, node, '"%d"' % node.value.value)


def op_cfg_dump_type_bad(src):
    for field, node in config_sites(src):
        if field.endswith("graph_dump.type") and is_str(node.value):
            yield cfg_mutant(src, node, '"json"')


def op_cfg_policy_bad(src):
    for field, node in config_sites(src):
        if field.endswith("dynamic_gears_merge_policy") and is_str(node.value):
            yield cfg_mutant(src, node, '"zipped"')


def op_cfg_mode_ro(src):
    for field, node in config_sites(src):
        if field == "mode" and is_str(node.value) and node.value.value in ("max-autotune", "npugraph_ex"):
            yield cfg_mutant(src, node, '"reduce-overhead"')


def op_cfg_int_range(src):
    for field, node in config_sites(src):
        if field.split(".")[-1] in INT_RANGE_FIELDS and isinstance(node.value, ast.Constant) \
                and type(node.value.value) is int:
            yield cfg_mutant(src, node, "-5")


def op_cfg_callable_str(src):
    for field, node in config_sites(src):
        if field.startswith("post_grad_custom_") and isinstance(node.value, ast.Name):
            yield cfg_mutant(src, node, '"%s"' % node.value.id)


def op_cfg_build_dir_dotdot(src):
    if b"cache_compile" in src.data or b'"reduce-overhead"' not in src.data:
        return
    for field, node in config_sites(src):
        if field.endswith("_aclnn_static_shape_kernel_build_dir") and is_str(node.value) \
                and ".." not in node.value.value:
            yield cfg_mutant(src, node, repr("../" + node.value.value))


def configs_in_mode(src, mode):
    """The config expressions the file sets to MODE."""
    out = set()
    for a in src.ann:
        if a["kind"] == "config_option" and a["args"].get("field") == "mode" \
                and a["args"].get("value") == mode and isinstance(a["args"].get("config"), dict):
            out.add(a["args"]["config"].get("expr"))
    return out


def op_cfg_dump_type_ro(src):
    ro = configs_in_mode(src, "reduce-overhead")
    for a in src.ann:
        if a["kind"] == "config_option" and a["args"].get("field") == "debug.graph_dump.type" \
                and a["args"].get("value") == "py" and isinstance(a["args"].get("config"), dict) \
                and a["args"]["config"].get("expr") in ro:
            node = src.assigns.get(a["line"])
            if isinstance(node, ast.Assign) and is_str(node.value):
                yield cfg_mutant(src, node, '"txt"')


def _static_compile(src, sites):
    """The one torch.compile(dynamic=True) of src made dynamic=False, the
    finding expected at it or at any of sites (calls that need it dynamic)."""
    compiles = [call for a, call in src.sites("torch_compile")
                if keyword(call, "dynamic") is not None
                and isinstance(keyword(call, "dynamic").value, ast.Constant)
                and keyword(call, "dynamic").value.value is True]
    if not sites or len(compiles) != 1:
        return
    call = compiles[0]
    m = edit(src, call, keyword(call, "dynamic").value, "False")
    for a, site in sites:
        m.lines |= call_lines(site)
    yield m


def op_gear_static_compile(src):
    yield from _static_compile(src, src.sites("set_dim_gears", r"^torchair\."))


def op_mark_static_static_compile(src):
    yield from _static_compile(src, src.sites("mark_static"))


def op_gear_mark_static(src):
    if b"import torch" not in src.data:
        return
    for call, d in gear_sites(src):
        t = arg_of(call, 0, "t")
        if t is None or "\n" in src.text(t):
            continue
        m = insert_after_stmt(src, call, "torch._dynamo.mark_static(%s)" % src.text(t))
        if m:
            # every set_dim_gears on that tensor now conflicts
            for other, od in gear_sites(src):
                ot = arg_of(other, 0, "t")
                if ot is not None and src.text(ot) == src.text(t):
                    m.lines |= {n + (1 if n > m.inserted_after else 0) for n in call_lines(other)}
            yield m


def op_pool_function(src):
    for a in src.ann:
        if a["kind"] == "config_option" and a["resolved"] and \
                a["args"].get("field") == "aclgraph_config.use_custom_pool":
            node = src.assigns.get(a["line"])
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                    and not node.value.args and not node.value.keywords:
                yield cfg_mutant(src, node, src.text(node.value.func))


def op_cfg_field_typo_ex(src):
    for field, node in config_sites(src, npugraph_ex=True):
        t = node.targets[0]
        end = src.off(t.end_lineno, t.end_col_offset)
        new = t.attr[:-1] if len(t.attr) > 3 else t.attr + "s"
        yield Mutant(src, [(end - len(t.attr), end, new)], set(range(node.lineno, node.end_lineno + 1)))


def op_cfg_bool_str_ex(src):
    for field, node in config_sites(src, npugraph_ex=True):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, bool):
            yield cfg_mutant(src, node, '"%s"' % node.value.value)


def op_opts_unknown_key(src):
    for call in compile_sites(src, "torchair"):
        m = add_option(src, call, '"frozen_parametr": True')
        if m:
            yield m


def op_opts_bad_value(src):
    for call in compile_sites(src, "torchair"):
        m = add_option(src, call, '"frozen_parameter": "yes"')
        if m:
            yield m


def op_compile_mode_kw(src):
    for call in compile_sites(src, "torchair"):
        if keyword(call, "mode") is None and keyword(call, "options") is None:
            yield add_arg(src, call, 'mode="reduce-overhead"')


def op_opts_unknown_key_ex(src):
    for call in compile_sites(src, "npugraph_ex"):
        m = add_option(src, call, '"frozen_parametr": True')
        if m:
            yield m


def op_opts_bad_value_ex(src):
    for call in compile_sites(src, "npugraph_ex"):
        m = add_option(src, call, '"frozen_parameter": "yes"')
        if m:
            yield m


TA_SCOPE = r"^torchair\.scope\."


def op_stream_tag_int(src):
    for a, call in src.sites("npu_stream_switch", TA_SCOPE):
        tag = arg_of(call, 0, "stream_tag")
        if tag is not None and is_str(tag):
            yield edit(src, call, tag, "1")


def op_stream_kw_typo(src):
    for a, call in src.sites("npu_stream_switch", TA_SCOPE):
        k = keyword(call, "stream_priority")
        yield rename_kw(src, call, k, "priority") if k is not None else add_arg(src, call, "priority=0")


def op_stream_inner_int(src):
    for a, call in src.sites("npu_stream_switch", TA_SCOPE):
        v = arg_of(call, 2, "enable_inner_parallel")
        yield edit(src, call, v, "1") if v is not None else add_arg(src, call, "enable_inner_parallel=1")


def sk_sites(src, baseline):
    """super_kernel calls whose scope is not cleared and not ignored (TNG115)."""
    for a, call in src.sites("super_kernel", TA_SCOPE):
        scope = arg_of(call, 0, "scope")
        if scope is None or (isinstance(scope, ast.Constant) and scope.value in (None, "")):
            continue
        if any(f[0] == call.lineno and f[1] == "TNG115" for f in baseline):
            continue
        yield call


def sk_options(src, call, text):
    opts = arg_of(call, 1, "options")
    if opts is not None:
        return edit(src, call, opts, text)
    return add_arg(src, call, ("options=" if call.keywords else "") + text)


def op_sk_scope_int(src, baseline):
    for call in sk_sites(src, baseline):
        scope = arg_of(call, 0, "scope")
        if is_str(scope):
            yield edit(src, call, scope, "1")


def op_sk_kw_typo(src, baseline):
    for call in sk_sites(src, baseline):
        k = keyword(call, "options")
        yield rename_kw(src, call, k, "option") if k is not None else add_arg(src, call, 'option=""')


def op_sk_options_int(src, baseline):
    for call in sk_sites(src, baseline):
        yield sk_options(src, call, "1")


def op_sk_options_malformed(src, baseline):
    for call in sk_sites(src, baseline):
        yield sk_options(src, call, '"stream-fusion=1:stream-fusion=0"')


def op_sk_options_key(src, baseline):
    for call in sk_sites(src, baseline):
        yield sk_options(src, call, '"stream_fusion=1"')


def op_sk_options_value(src, baseline):
    for call in sk_sites(src, baseline):
        yield sk_options(src, call, '"stream-fusion=2"')


def op_sk_options_ratio(src, baseline):
    for call in sk_sites(src, baseline):
        yield sk_options(src, call, '"debug-aic-num=2:debug-aiv-num=3"')


def op_lcn_one_arg(src):
    for a, call in src.sites("limit_core_num", TA_SCOPE):
        if len(call.args) == 2 and not call.keywords:
            yield drop_arg(src, call, 1)


def op_lcn_float(src):
    for a, call in src.sites("limit_core_num", TA_SCOPE):
        v = arg_of(call, 0, "op_aicore_num")
        if v is not None:
            yield edit(src, call, v, "1.5")


def op_lcn_one_arg_ex(src):
    for a, call in src.sites("limit_core_num", r"npugraph_ex\.scope\."):
        if len(call.args) == 2 and not call.keywords:
            yield drop_arg(src, call, 1)


def op_ont_int(src):
    for a, call in src.sites("op_never_timeout", TA_SCOPE):
        v = arg_of(call, 0, "enable")
        yield edit(src, call, v, "1") if v is not None else add_arg(src, call, "1")


def op_wait_list_dep(src):
    for a, call in src.sites("npu_wait_tensor", TA_SCOPE):
        if len(call.args) == 2 and not call.keywords:
            yield edit(src, call, call.args[1], "[%s]" % src.text(call.args[1]))


def op_wait_one_arg(src):
    for a, call in src.sites("npu_wait_tensor", TA_SCOPE):
        if len(call.args) == 2 and not call.keywords:
            yield drop_arg(src, call, 1)


def op_ops_stream_api(src):
    for kind in ("npu_stream_switch", "npu_wait_tensor"):
        for a, call in src.sites(kind, TA_SCOPE):
            f = call.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute) and f.value.attr == "scope":
                end = src.off(f.value.end_lineno, f.value.end_col_offset)
                yield Mutant(src, [(end - len("scope"), end, "ops")], call_lines(call))


def op_ex_stream_api(src):
    for a, call in src.sites("npu_stream_switch", TA_SCOPE):
        f = call.func
        if src.text(f) == "torchair.scope.npu_stream_switch":
            yield edit(src, call, f, "torch.npu.npugraph_ex.scope.npu_stream_switch")


def gear_sites(src):
    for a, call in src.sites("set_dim_gears", r"^torchair\."):
        d = arg_of(call, 1, "dim_gears")
        if not isinstance(d, ast.Dict) or not d.keys:
            continue
        if not all(isinstance(k, ast.Constant) and type(k.value) is int for k in d.keys):
            continue
        if not all(isinstance(v, (ast.List, ast.Tuple)) and v.elts and
                   all(isinstance(e, ast.Constant) and type(e.value) is int for e in v.elts)
                   for v in d.values):
            continue
        yield call, d


def op_gear_redefined(src):
    for call, d in gear_sites(src):
        v = d.values[0]
        a, b = src.span(call)
        va, vb = src.span(v)
        bigger = max(e.value for e in v.elts) + 1
        new_list = "[%s]" % ", ".join([str(e.value) for e in v.elts] + [str(bigger)])
        text = (src.data[a:va] + new_list.encode() + src.data[vb:b]).decode("utf-8")
        if "\n" in text:
            continue
        m = insert_after_stmt(src, call, text)
        if m:
            yield m


def op_gear_dim_str(src):
    for call, d in gear_sites(src):
        yield edit(src, call, d.keys[0], '"%d"' % d.keys[0].value)


def op_gear_dim_negative(src):
    for call, d in gear_sites(src):
        yield edit(src, call, d.keys[0], "-1")


def op_gear_values_int(src):
    for call, d in gear_sites(src):
        yield edit(src, call, d.values[0], src.text(d.values[0].elts[0]))


def op_gear_value_float(src):
    for call, d in gear_sites(src):
        yield edit(src, call, d.values[0].elts[0], "2.5")


def op_gear_value_zero(src):
    for call, d in gear_sites(src):
        yield edit(src, call, d.values[0].elts[0], "0")


def op_gear_one_value(src):
    for call, d in gear_sites(src):
        yield edit(src, call, d.values[0], "[%s]" % src.text(d.values[0].elts[0]))


def op_gear_zip_unequal(src):
    if b'"product"' in src.data or b"'product'" in src.data:
        return
    for call, d in gear_sites(src):
        if len(d.keys) >= 2:
            v = d.values[0]
            yield edit(src, call, v, "[%s]" % ", ".join(
                [str(e.value) for e in v.elts] + [str(max(e.value for e in v.elts) + 1)]))


def cache_sites(src):
    return src.sites("cache_compile", r"^torchair\.")


def op_cache_module(src):
    for a, call in cache_sites(src):
        f = arg_of(call, 0, "func")
        if isinstance(f, ast.Attribute):
            yield edit(src, call, f, src.text(f.value))


def op_cache_module_ex(src):
    for a, call in src.sites("cache_compile", r"npugraph_ex\.inference\."):
        f = arg_of(call, 0, "func")
        if isinstance(f, ast.Attribute):
            yield edit(src, call, f, src.text(f.value))


def op_cache_config_positional_ex(src):
    for a, call in src.sites("cache_compile", r"npugraph_ex\.inference\."):
        k = keyword(call, "config")
        if k is not None and len(call.args) == 1 and call.keywords[0] is k:
            yield edit(src, call, k, src.text(k.value))


def op_cache_config_positional(src):
    for a, call in cache_sites(src):
        k = keyword(call, "config")
        if k is not None and len(call.args) == 1 and call.keywords[0] is k:
            yield edit(src, call, k, src.text(k.value))


def op_cache_compiler_config_kw(src):
    for a, call in cache_sites(src):
        k = keyword(call, "config")
        if k is not None:
            yield rename_kw(src, call, k, "compiler_config")


def op_cache_backend_str(src):
    for a, call in cache_sites(src):
        if keyword(call, "backend") is None:
            yield add_arg(src, call, 'backend="npu"')


SCHEMA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      "data", "torchair", "config-schema-fced8842.tsv")


def schema_defaults():
    """CompilerConfig's option paths and their defaults (data/torchair/)."""
    out = {}
    with open(SCHEMA, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 3 and "section" not in cols[1] and cols[1] != "property":
                try:
                    out[cols[0]] = ast.literal_eval(cols[2]) if cols[2] else None
                except (ValueError, SyntaxError):
                    pass
    return out


def set_apart(src, name, function, line, defaults):
    """True when the config NAME of FUNCTION has, before LINE, a field set to a
    literal other than its default: a fresh CompilerConfig() differs from it."""
    for a in src.ann:
        if a["kind"] != "config_option" or a.get("function") != function or a["line"] >= line:
            continue
        cfg, field, value = a["args"].get("config"), a["args"].get("field", ""), a["args"].get("value")
        if not isinstance(cfg, dict) or cfg.get("expr") != name or isinstance(value, (dict, list)):
            continue
        field = field[:-6] if field.endswith(".value") else field
        if field in defaults and value != defaults[field]:
            return True
    return False


def torchair_prefix(src, call):
    """The text before `inference.cache_compile` in the call's callee
    ("torchair."), or None."""
    text = src.text(call.func)
    return text[:-len("inference.cache_compile")] if text.endswith(".inference.cache_compile") else None


def op_cache_backend_default(src):
    defaults = schema_defaults()
    for a, call in cache_sites(src):
        k, prefix = keyword(call, "config"), torchair_prefix(src, call)
        if k is None or prefix is None or keyword(call, "backend") is not None or not isinstance(k.value, ast.Name):
            continue
        if set_apart(src, k.value.id, a.get("function"), a["line"], defaults):
            yield add_arg(src, call, "backend=%sget_npu_backend()" % prefix)


def _called_names(body_owner):
    return {n.func.id for n in ast.walk(body_owner) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def op_ge_options_conflict(src):
    """Two torch.compile statements of one def through TorchAir backends (a
    name get_npu_backend(compiler_config=NAME) binds, its config's mode and
    oo_level never set), both results called: the later one given a backend
    of a new config whose ge_config.oo_level is "O1", made on a line
    inserted after the earlier compile."""
    made, twice = {}, set()
    for a, call in src.sites("get_npu_backend", r"^torchair\."):
        parent = src.parents.get(call)
        c = keyword(call, "compiler_config")
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name) \
                and c is not None and isinstance(c.value, ast.Name):
            name = (a.get("function"), parent.targets[0].id)
            if name in made:
                twice.add(name)
            made[name] = (c.value.id, src.text(call.func)[:-len("get_npu_backend")])
    kept = {x["args"].get("config", {}).get("expr") for x in src.ann if x["kind"] == "config_option"
            and isinstance(x["args"].get("config"), dict) and x["args"].get("field") in ("mode", "mode.value",
                                                                                         "ge_config.oo_level")}
    by_owner = {}
    for a, call in src.sites("torch_compile"):
        be, stmt = keyword(call, "backend"), src.parents.get(call)
        if be is None or not isinstance(be.value, ast.Name):
            continue
        key = (a.get("function"), be.value.id)
        key = key if key in made else ("<module>", be.value.id)
        if key not in made or key in twice:
            continue
        cfg, prefix = made[key]
        if cfg in kept or not prefix.endswith("."):
            continue
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            continue
        owner = src.parents.get(stmt)
        if isinstance(owner, (ast.FunctionDef, ast.Module)):
            by_owner.setdefault(id(owner), []).append((call, stmt, be, prefix, owner))
    for compiles in by_owner.values():
        for (first, fstmt, _, _, owner), (second, _, be, prefix, _) in zip(compiles, compiles[1:]):
            if not {fstmt.targets[0].id, src.parents[second].targets[0].id} <= _called_names(owner):
                continue
            m = insert_after_stmt(src, first, '_ge_cfg = %sCompilerConfig(); _ge_cfg.ge_config.oo_level = "O1"' % prefix)
            if m is None:
                continue
            a, b = src.span(be.value)
            m.edits.append((a, b, "%sget_npu_backend(compiler_config=_ge_cfg)" % prefix))
            m.lines |= {n + (1 if n > m.inserted_after else 0) for n in call_lines(first) | call_lines(second)}
            yield m
            break


def ops_calls(src, name):
    """Calls X.ops.NAME(...) in a file that imports torchair."""
    if b"torchair" not in src.data:
        return
    for call in sorted(src.calls.values(), key=lambda c: (c.lineno, c.col_offset)):
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr == name and isinstance(f.value, (ast.Attribute, ast.Name)) \
                and (getattr(f.value, "attr", None) == "ops" or getattr(f.value, "id", None) == "ops"):
            yield call


def print_kw(src, call, name, value):
    k = keyword(call, name)
    return edit(src, call, k.value, value) if k is not None else add_arg(src, call, "%s=%s" % (name, value))


def op_print_size_str(src):
    for call in ops_calls(src, "npu_print"):
        yield print_kw(src, call, "summarize_size", '"3"')


def op_print_size_zero(src):
    for call in ops_calls(src, "npu_print"):
        yield print_kw(src, call, "summarize_size", "0")


def op_print_detail_int(src):
    for call in ops_calls(src, "npu_print"):
        yield print_kw(src, call, "tensor_detail", "1")


def op_print_list_arg(src):
    for call in ops_calls(src, "npu_print"):
        if call.args and not isinstance(call.args[0], ast.Starred):
            a = src.off(call.args[0].lineno, call.args[0].col_offset)
            yield Mutant(src, [(a, a, "[0], ")], call_lines(call))


def op_ops_wait_nontensor(src):
    for call in ops_calls(src, "wait"):
        if len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.List) \
                and call.args[0].elts:
            last = call.args[0].elts[-1]
            b = src.off(last.end_lineno, last.end_col_offset)
            yield Mutant(src, [(b, b, ", 1")], call_lines(call))


def op_ops_wait_empty(src):
    for call in ops_calls(src, "wait"):
        if len(call.args) == 1 and not call.keywords:
            yield edit(src, call, call.args[0], "[]")


def op_tagged_dup(src):
    for call in ops_calls(src, "npu_create_tagged_event"):
        if call.lineno == call.end_lineno:
            m = insert_after_stmt(src, call, src.text(call))
            if m:
                yield m


NEEDS_BASELINE = {"sk_scope_int", "sk_kw_typo", "sk_options_int", "sk_options_malformed",
                  "sk_options_key", "sk_options_value", "sk_options_ratio"}


def operators():
    return {name[3:]: fn for name, fn in globals().items() if name.startswith("op_")}


# ---- running lint ----------------------------------------------------------

def lint(tngc, tree, rel):
    p = subprocess.run([tngc, "lint", "--format", "json", rel], cwd=tree,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in (0, 1):
        return None, p
    return [(d["line"], d["rule"], d["severity"]) for d in json.loads(p.stdout or b"[]")], p


def scan(tngc, tree, rel):
    p = subprocess.run([tngc, "scan", "--format", "json", rel], cwd=tree,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if p.returncode not in (0, 1):
        return []
    files = json.loads(p.stdout).get("files", [])
    return files[0]["annotations"] if files else []


def judge(row, mutant, base, found):
    """'caught', 'missed' or 'noisy' (the right finding, and others elsewhere)."""
    shifted = Counter()
    for (line, rule, sev), n in Counter(base).items():
        if mutant.inserted_after is not None and line > mutant.inserted_after:
            line += 1
        shifted[(line, rule, sev)] += n
    new = Counter(found) - shifted
    rules = coverage_check.rule_list(row)
    hit = any(line in mutant.lines and sev == row["severity"] and (not rules or rule in rules)
              for (line, rule, sev) in new)
    elsewhere = [f for f in new if f[0] not in mutant.lines]
    if hit and not elsewhere:
        return "caught", new
    return ("noisy" if hit else "missed"), new


def self_test():
    """judge() on made-up findings: a finding already there never counts."""
    row = {"lint": "TNG164", "severity": "error"}
    planned = {"lint": "planned", "severity": "warning"}
    m = Mutant(None, [], {10})
    ins = Mutant(None, [], {11}, inserted_after=10)
    base = [(10, "TNG164", "error"), (20, "TNG160", "warning")]
    cases = [
        ("the same finding as before", row, m, base, "missed"),
        ("a second finding of the rule on the line", row, m, base + [(10, "TNG164", "error")], "caught"),
        ("the rule at another severity", row, m, base + [(10, "TNG164", "warning")], "missed"),
        ("another rule on a rule-backed row", row, m, base + [(10, "TNG166", "error")], "missed"),
        ("any rule on a planned row", planned, m, base + [(10, "TNG999", "warning")], "caught"),
        ("a new finding elsewhere too", row, m, base + [(10, "TNG164", "error"), (30, "TNG1", "note")], "noisy"),
        ("the lines after an inserted line shifted", row, ins,
         [(10, "TNG164", "error"), (21, "TNG160", "warning"), (11, "TNG164", "error")], "caught"),
        ("a finding moved by the insertion is not new", row, ins,
         [(10, "TNG164", "error"), (21, "TNG160", "warning")], "missed"),
    ]
    bad = 0
    for what, r, mutant, found, want in cases:
        got, _ = judge(r, mutant, base, found)
        if got != want:
            print(f"recall: self-test: {what}: {got}, want {want}")
            bad += 1
    print(f"recall: self-test: {len(cases) - bad} of {len(cases)} cases right")
    return 1 if bad else 0


def main(argv):
    args = argv[1:]
    if args == ["--self-test"]:
        return self_test()
    cap, verbose = 2, False
    if "--verbose" in args:
        args.remove("--verbose")
        verbose = True
    if "--cap" in args:
        i = args.index("--cap")
        cap = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 3:
        print("usage: mutate.py TNGC TREE FILES [--cap N] [--verbose]")
        return 2
    tngc, tree, files_list = os.path.abspath(args[0]), args[1], args[2]
    rows, problems = coverage_check.read_table()
    if problems:
        print("\n".join("recall: " + p for p in problems))
        return 1
    ops = operators()
    by_op = {r["operator"]: r for r in rows if r["operator"] != "-"}
    for name in by_op:
        if name not in ops:
            print(f"recall: rules-coverage.tsv names operator {name}, which mutate.py lacks")
            return 1
    stats = {name: Counter() for name in by_op}
    by_rule = {name: Counter() for name in by_op}
    failures = 0
    with open(files_list, encoding="utf-8") as f:
        files = [x.strip() for x in f if x.strip()]
    for rel in files:
        path = os.path.join(tree, rel)
        with open(path, "rb") as f:
            data = f.read()
        try:
            src = Source(data, scan(tngc, tree, rel))
        except (SyntaxError, ValueError):
            continue
        todo = []
        for name, row in by_op.items():
            if name not in NEEDS_BASELINE:
                todo.append((name, row, list(itertools.islice(ops[name](src), cap))))
        needs_sk = any(a["kind"] == "super_kernel" for a in src.ann)
        if not any(m for _, _, m in todo) and not needs_sk:
            continue
        base, p = lint(tngc, tree, rel)
        if base is None:
            print(f"recall: tngc lint failed on {rel} (status {p.returncode})")
            failures += 1
            continue
        for name, row in by_op.items():
            if name in NEEDS_BASELINE:
                todo.append((name, row, list(itertools.islice(ops[name](src, base), cap))))
        for name, row, mutants in todo:
            for mutant in mutants:
                try:
                    ast.parse(mutant.apply())
                except (SyntaxError, ValueError):
                    print(f"recall: {name} made a mutant of {rel}:{min(mutant.lines)} that is not Python")
                    failures += 1
                    continue
                try:
                    with open(path, "wb") as f:
                        f.write(mutant.apply())
                    found, p = lint(tngc, tree, rel)
                finally:
                    with open(path, "wb") as f:
                        f.write(data)
                if found is None:
                    print(f"recall: tngc lint failed on a {name} mutant of {rel}:{min(mutant.lines)} "
                          f"(status {p.returncode})")
                    failures += 1
                    continue
                verdict, new = judge(row, mutant, base, found)
                stats[name][verdict] += 1
                if verdict == "caught":
                    by_rule[name].update({rule for (line, rule, sev) in new if line in mutant.lines})
                if verbose and verdict != "caught":
                    print(f"recall: {verdict}: {name} ({row['id']}) {rel}:{min(mutant.lines)} "
                          f"new: {sorted(new) or 'none'}")
    total = Counter()
    print(f"recall: {'operator':<26} {'row':<6} {'lint':<8} {'mutants':>7} {'caught':>6} {'noisy':>5}")
    for name, row in by_op.items():
        s = stats[name]
        n = s["caught"] + s["missed"] + s["noisy"]
        total.update(s)
        total["ops_with_sites"] += 1 if n else 0
        rules = " ".join(f"{r}:{k}" for r, k in sorted(by_rule[name].items())) if verbose else ""
        print(f"recall: {name:<26} {row['id']:<6} {row['lint'][:8]:<8} {n:>7} {s['caught']:>6} {s['noisy']:>5}"
              + (f"  {rules}" if rules else ""))
    n = total["caught"] + total["missed"] + total["noisy"]
    if n == 0:
        print("recall: no mutant was made (is tngc scan's JSON what mutate.py reads?)")
        failures += 1
    pct = f"{100.0 * total['caught'] / n:.1f}%" if n else "n/a"
    print(f"recall: {n} mutants from {total['ops_with_sites']} of {len(by_op)} operators "
          f"(at most {cap} per operator per file): {total['caught']} caught, "
          f"{total['missed']} missed, {total['noisy']} with new findings elsewhere; recall {pct}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
