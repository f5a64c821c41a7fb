/*
 * fuzz_pipeline.c - a libFuzzer target over tngc's whole compiler pipeline,
 * in memory: parse -> scan -> lint -> interpret -> lower -> plan -> emit
 * (both targets), with every output format each command prints. It calls
 * the layer functions tngc.c's commands call, in the same order and under
 * the same conditions (plan only when lint found no error, emit only when
 * every plan was built), but writes no file and runs no compiler.
 *
 * Oracles besides the sanitizers (ASan, UBSan, LeakSanitizer):
 * - the JSON that scan, lint and plan print parses (cJSON);
 * - parsing in several chunks (what large files get) gives the same tree as
 *   parsing in one piece, node for node;
 * - script text never becomes C code: the generated .c/.h files are lexed
 *   (trigraphs, line splices, comments, string and character literals, as
 *   a C11 compiler reads them) and the canary identifier FUZZ_CANARY must
 *   not be a token of code, unless the script itself has it as a whole
 *   name (an identifier, or a string that is exactly it), which the C
 *   identifier escaping rightly keeps; python.dict has it inside comment
 *   and string breakouts;
 * - TNGC_BUG aborts, which libFuzzer reports as a crash.
 *
 * Inputs longer than FUZZ_MAX_LEN bytes are ignored, so that the
 * interpreter's own limits keep each run short. A few options that are
 * command-line flags in tngc (lint's --soc, gen's --user-kernel) are picked
 * from a hash of the input, so every corpus entry replays the same way.
 *
 * Build and run: `make fuzz` (tests/fuzz/README.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "../../frontend/diag/diag.h"
#include "../../frontend/lint/scan.h"
#include "../../frontend/lower/interp.h"
#include "../../frontend/lint/lint.h"
#include "../../planner/plan.h"
#include "../../codegen/codegen.h"

#include <cjson/cJSON.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_LEN 65536
#define FUZZ_PATH "fuzz/model.py"
#define FUZZ_CANARY "tngc_fuzz_pwned"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static _Noreturn void fuzz__fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_pipeline: %s\n", what);
    if (detail)
        fprintf(stderr, "%.2000s\n", detail);
    abort();
}

/* Fails unless text[0..len) is one JSON document. */
static void fuzz__check_json(const char *what, const StrBuf *text)
{
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text->s ? text->s : "", text->len, &end, 0);
    if (!doc) {
        /* cJSON stops at 1000 nested levels: deeper output is not our bug */
        int depth = 0, max = 0, in_str = 0;
        for (size_t i = 0; i < text->len; i++) {
            char c = text->s[i];
            if (in_str)
                in_str = c == '\\' ? (i++, 1) : c != '"';
            else if (c == '"')
                in_str = 1;
            else if (c == '[' || c == '{')
                max = ++depth > max ? depth : max;
            else if (c == ']' || c == '}')
                depth--;
        }
        if (max < CJSON_NESTING_LIMIT)
            fuzz__fail(what, end ? end : text->s);
    }
    cJSON_Delete(doc);
}

/* Fails unless parsing src in k chunks gives the tree ast (one chunk). */
static void fuzz__check_chunked(const Source *src, const Ast *one, int k)
{
    Ast many;
    if (ast_parse_chunks(&many, src, k) != 0)
        fuzz__fail("the chunked parse failed where the whole one did not", NULL);
    char why[256] = "";
    if (many.n != one->n || many.has_error != one->has_error || !many.refused != !one->refused)
        snprintf(why, sizeof why, "%u nodes, has_error %d, refused %d; whole: %u, %d, %d", many.n,
                 many.has_error, !!many.refused, one->n, one->has_error, !!one->refused);
    for (uint32_t i = 0; !why[0] && i < one->n; i++) {
        const Node *a = &one->nodes[i], *b = &many.nodes[i];
        if (a->kind != b->kind || a->symbol != b->symbol || a->field != b->field || a->flags != b->flags ||
            a->start != b->start || a->end != b->end || a->line != b->line || a->parent != b->parent ||
            a->first != b->first || a->next != b->next)
            snprintf(why, sizeof why,
                     "node %u: kind %u/%u symbol %u/%u field %u/%u flags %u/%u bytes %u-%u/%u-%u line %u/%u "
                     "parent %d/%d first %d/%d next %d/%d (chunked/whole)",
                     i, b->kind, a->kind, b->symbol, a->symbol, b->field, a->field, b->flags, a->flags, b->start,
                     b->end, a->start, a->end, b->line, a->line, b->parent, a->parent, b->first, a->first, b->next,
                     a->next);
    }
    ast_free(&many);
    if (why[0])
        fuzz__fail("parsing in chunks gave another tree than parsing whole", why);
}

/* Translation phases 1 and 2 of C11 (trigraphs, then backslash-newline
 * splices) of text[0..len): a new string. */
static char *fuzz__c_phases(const char *text, size_t len, size_t *outlen)
{
    static const char tri_from[] = "=(/)'<!>-", tri_to[] = "#[\\]^{|}~";
    char *a = xmalloc(len + 1), *b = xmalloc(len + 1);
    size_t n = 0, m = 0;
    for (size_t i = 0; i < len; i++) {
        const char *t = i + 2 < len && text[i] == '?' && text[i + 1] == '?' ? strchr(tri_from, text[i + 2]) : NULL;
        if (t && *t) {
            a[n++] = tri_to[t - tri_from];
            i += 2;
        } else {
            a[n++] = text[i];
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (a[i] == '\\' && i + 1 < n && a[i + 1] == '\n')
            i++;
        else if (a[i] == '\\' && i + 2 < n && a[i + 1] == '\r' && a[i + 2] == '\n')
            i += 2;
        else
            b[m++] = a[i];
    }
    free(a);
    b[m] = 0;
    *outlen = m;
    return b;
}

/* Fails if the C text of file `name` is lexically broken (an unterminated
 * comment or literal) or has FUZZ_CANARY as a token of code. */
static void fuzz__check_c(const char *name, const StrBuf *file, int canary_allowed)
{
    size_t n;
    char *c = fuzz__c_phases(file->s ? file->s : "", file->len, &n);
    const char *bad = NULL;
    size_t at = 0;
    for (size_t i = 0; i < n && !bad; i++) {
        char ch = c[i];
        if (ch == '/' && i + 1 < n && c[i + 1] == '*') {
            /* a scan, not strstr: under ASan strstr measures the rest of
             * the file at every call (quadratic in the comments) */
            size_t e = i + 2;
            while (e + 1 < n && !(c[e] == '*' && c[e + 1] == '/'))
                e++;
            if (e + 1 >= n)
                bad = "an unterminated comment", at = i;
            else
                i = e + 1;
        } else if (ch == '/' && i + 1 < n && c[i + 1] == '/') {
            while (i + 1 < n && c[i + 1] != '\n')
                i++;
        } else if (ch == '"' || ch == '\'') {
            size_t j = i + 1;
            while (j < n && c[j] != ch && c[j] != '\n')
                j += c[j] == '\\' ? 2 : 1;
            if (j >= n || c[j] != ch)
                bad = "an unterminated string or character literal", at = i;
            i = j;
        } else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_') {
            size_t j = i;
            while (j < n && ((c[j] >= 'a' && c[j] <= 'z') || (c[j] >= 'A' && c[j] <= 'Z') ||
                             (c[j] >= '0' && c[j] <= '9') || c[j] == '_'))
                j++;
            if (!canary_allowed && j - i == strlen(FUZZ_CANARY) && !memcmp(c + i, FUZZ_CANARY, j - i))
                bad = "script text became C code (the canary is a token)", at = i;
            i = j - 1;
        } else if (ch >= '0' && ch <= '9') {
            while (i + 1 < n && ((c[i + 1] >= '0' && c[i + 1] <= '9') || (c[i + 1] >= 'a' && c[i + 1] <= 'z') ||
                                 (c[i + 1] >= 'A' && c[i + 1] <= 'Z') || c[i + 1] == '.' || c[i + 1] == '_'))
                i++;
        }
    }
    if (bad) {
        char what[200], where[400];
        snprintf(what, sizeof what, "generated %s: %s", name, bad);
        size_t from = at > 150 ? at - 150 : 0;
        snprintf(where, sizeof where, "%.*s", (int)(n - from < 300 ? n - from : 300), c + from);
        free(c);
        fuzz__fail(what, where);
    }
    free(c);
}

/* 1 when the script has FUZZ_CANARY as a whole name: an identifier, or a
 * string whose content is exactly it (cesc_ident keeps such names). */
static int fuzz__canary_is_a_name(const ScanFile *sf)
{
    if (!strstr(sf->src.text, FUZZ_CANARY))
        return 0;
    for (uint32_t i = 0; i < sf->ast.n; i++) {
        NodeKind k = sf->ast.nodes[i].kind;
        if ((k == NK_identifier || k == NK_string_content || k == NK_other) &&
            ast_text_is(&sf->ast, (int32_t)i, FUZZ_CANARY))
            return 1;
    }
    return 0;
}

/* FNV-1a: picks the options tngc would take from its command line. */
/* The interpreter's budget per input: far below tngc's defaults (512 MB,
 * 10 s), since the instrumented build runs about 15x slower and libFuzzer's
 * -timeout=10 and -rss_limit_mb=2048 must never be what stops a script. */
static const InterpLimits fuzz_limits = {256, 2.0};

static uint32_t fuzz__hash(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    return h;
}

/* Prints the diagnostics of sf from *printed on, as print_diags in tngc.c
 * does (sorted, deduplicated), in the three formats of tngc lint. */
static void fuzz__diags(ScanFile *sf, size_t *printed)
{
    if (sf->diags.n == *printed)
        return;
    DiagList tail = {sf->diags.v + *printed, sf->diags.n - *printed, 0};
    diag_sort(&tail);
    diag_dedup(&tail);
    sf->diags.n = *printed + tail.n;
    StrBuf text = {0}, json = {0}, sarif = {0};
    sb_puts(&json, "[");
    diag_sarif_begin(&sarif, "fuzz");
    for (size_t d = 0; d < tail.n; d++) {
        diag_text(&sf->src, &tail.v[d], &text);
        sb_puts(&json, d ? "," : "");
        diag_json(&sf->src, &tail.v[d], &json);
        diag_sarif(&sf->src, &tail.v[d], d == 0, &sarif);
    }
    sb_puts(&json, "]");
    diag_sarif_end(&sarif);
    fuzz__check_json("diag_json printed invalid JSON", &json);
    fuzz__check_json("diag_sarif printed invalid JSON", &sarif);
    sb_free(&text);
    sb_free(&json);
    sb_free(&sarif);
    *printed = sf->diags.n;
}

static int fuzz__has_error(const ScanFile *sf)
{
    for (size_t d = 0; d < sf->diags.n; d++)
        if (sf->diags.v[d].severity == SEV_ERROR)
            return 1;
    return 0;
}

/* tngc scan's outputs. */
static void fuzz__scan_outputs(const ScanFile *sf)
{
    StrBuf text = {0}, json = {0};
    scan_text(sf, &text);
    scan_json(sf, &json);
    fuzz__check_json("scan_json printed invalid JSON", &json);
    sb_free(&text);
    sb_free(&json);
}

/* tngc plan's outputs (text, JSON, DOT) of one plan. */
static void fuzz__plan_outputs(const Plan *p)
{
    StrBuf text = {0}, json = {0}, dot = {0};
    plan_text(p, &text);
    plan_json(p, &json);
    plan_dot(p, &dot);
    fuzz__check_json("plan_json printed invalid JSON", &json);
    sb_free(&text);
    sb_free(&json);
    sb_free(&dot);
}

/* The user-kernel op (gen --user-kernel) this input asks for, or NULL. */
static const char *fuzz__user_op(uint32_t h)
{
    if (!(h & 0x100))
        return NULL;
    int op = (int)((h >> 9) % OP__count);
    if (op_info[op].flags & (OPF_SOURCE | OPF_ALIAS))
        return NULL;
    return op_info[op].name;
}

/* tngc gen's emission of every plan for one target (nothing is written). */
static void fuzz__emit(ScanFile *sf, size_t *printed, Plan *plans, size_t n, const Target *t, const char *user_op,
                       int line_directives)
{
    const char *user_ops[2] = {t->user_kernels ? user_op : NULL, NULL};
    GenFiles files = {0};
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "model_%zu", i);
        GenOptions go = {.name = name, .script = FUZZ_PATH, .version = "fuzz",
                         .line_directives = line_directives, .user_ops = user_ops};
        size_t first = files.n;
        int rc = t->emit(&plans[i], &go, &files, &sf->diags);
        fuzz__diags(sf, printed);
        if (rc != 0)
            break;
        for (size_t f = first; f < files.n; f++) {
            size_t len = strlen(files.v[f].name);
            if (len > 2 && files.v[f].name[len - 2] == '.' && strchr("ch", files.v[f].name[len - 1]))
                fuzz__check_c(files.v[f].name, &files.v[f].text, fuzz__canary_is_a_name(sf));
        }
        NameList ops = {0};
        emit_user_ops(&plans[i], &go, &ops);
        VEC_FREE(ops);
    }
    genfiles_free(&files);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const socs[] = {NULL, "Ascend910_9391", "Ascend910B1", "Ascend310P3"};
    if (size > FUZZ_MAX_LEN)
        return -1;   /* not added to the corpus */
    uint32_t h = fuzz__hash(data, size);
    ScanFile sf;
    Sink err;   /* a file the parser gives up on: one error, dropped */
    sink_init(&err, NULL);
    /* the parser's memory bound, as tngc plan sets it from --max-memory */
    ast_set_memory_limit(fuzz_limits.max_mb << 20, "--max-memory");
    int loaded = scanfile_load_text(&sf, FUZZ_PATH, (const char *)data, size, &err);
    sink_free(&err);
    if (loaded != 0)
        return 0;
    size_t printed = 0;
    fuzz__check_chunked(&sf.src, &sf.ast, 2 + (int)(h % 3));
    fuzz__scan_outputs(&sf);

    /* lint (and the rules plan runs first) */
    LintOptions lopt = {socs[(h >> 2) % 4]};
    lint_file(&sf, &lopt);
    fuzz__diags(&sf, &printed);

    /* plan: interpret, lower, plan each entry */
    InterpResult ir = {0};
    VEC(Plan) plans = {0};
    int errors = fuzz__has_error(&sf);
    if (!errors && interp_run_limited(&sf, NULL, &fuzz_limits, &ir) != 0)
        errors = 1;
    for (size_t i = 0; !errors && i < ir.nentries; i++) {
        Plan p;
        if (plan_build_with(&p, ir.entries[i], &(PlanOptions){codegen_op_type, codegen_dtype_name, 0}, &sf.diags) != 0)
            errors = 1;
        VEC_PUSH(plans, p);
    }
    fuzz__diags(&sf, &printed);
    if (!errors) {
        for (size_t i = 0; i < plans.n; i++)
            fuzz__plan_outputs(&plans.v[i]);
        /* gen: both targets */
        fuzz__emit(&sf, &printed, plans.v, plans.n, target_find("cpu"), fuzz__user_op(h), (h >> 4) & 1);
        fuzz__emit(&sf, &printed, plans.v, plans.n, target_find("acl"), NULL, (h >> 5) & 1);
    }

    for (size_t i = 0; i < plans.n; i++)
        plan_free(&plans.v[i]);
    VEC_FREE(plans);
    interp_result_free(&ir);
    scanfile_free(&sf);
    return 0;
}
