/*
 * test_sig.c - unit tests of the signatures of library calls
 * (frontend/lower/sig.c): every row of the torch library parses, the
 * parser refuses malformed signatures, and the binder binds positional
 * and keyword arguments, defaults and varargs, and refuses what Python
 * refuses (too many positionals, a keyword-only parameter passed
 * positionally, an unknown keyword, a parameter given twice, a missing
 * one) with a message naming the function and the parameter.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../frontend/lower/sig.h"
#include "../../frontend/lower/torchlib.h"

/* A bare interpreter: enough to make objects. */
static Interp *sig_interp(void)
{
    Interp *I = calloc(1, sizeof *I);
    assert_non_null(I);
    I->max_bytes = (size_t)1 << 30;
    return I;
}

static void sig_interp_free(Interp *I)
{
    arena_free(&I->arena);
    free(I);
}

typedef struct Parsed {
    Sig s[SIG_MAXOV];
    SigParam pool[256];
    size_t used;
    int n;
} Parsed;

/* The message of the last parse or bind that failed. */
static StrBuf last;

static int parse(Parsed *p, const char *text)
{
    memset(p, 0, sizeof *p);
    last.len = 0;
    p->n = sig_parse(text, p->s, SIG_MAXOV, p->pool, 256, &p->used, &last);
    return p->n;
}

/* Binds positional args pos[0..npos) and keywords names[i] = kw[i] to s. */
static int bind(Interp *I, const Sig *s, Obj **pos, size_t npos, const char **names, Obj **kw, size_t nkw,
                Obj **out)
{
    CallArgs a;
    memset(&a, 0, sizeof a);
    a.pos = pos;
    a.npos = npos;
    a.kwnames = names;
    a.kw = kw;
    a.nkw = nkw;
    last.len = 0;
    return sig_bind(I, s, &a, 0, "torch.f", out, &last);
}

static void test_every_row_parses(void **state)
{
    (void)state;
    StrBuf why = {0};
    size_t n = torchlib_check_signatures(&why);
    if (!n)
        fail_msg("%s", why.s);
    sb_free(&why);
    assert_true(n > 200);
}

static void test_parse(void **state)
{
    (void)state;
    Parsed p;
    assert_int_equal(parse(&p, "add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None) -> Tensor"), 1);
    assert_int_equal(p.s[0].np, 4);
    assert_int_equal(sig_index(&p.s[0], "alpha"), 2);
    assert_int_equal(sig_index(&p.s[0], "alfa"), -1);
    assert_true(p.s[0].p[2].kwonly && !p.s[0].p[1].kwonly);
    assert_true(p.s[0].p[3].optional);
    assert_int_equal(parse(&p, "view(Tensor self, ScalarType dtype) -> Tensor | view(Tensor self, int... size) "
                               "-> Tensor"), 2);
    assert_true(p.s[1].p[1].vararg);
    assert_int_equal(parse(&p, "f(Tensor x, int[2] k=[1, 2], str m='a b', float e=-1e-05, **) -> (Tensor, "
                               "Tensor)"), 1);
    assert_true(p.s[0].kwextra);

    static const char *const bad[] = {
        "f(Tensor x) Tensor",               /* no result */
        "f(Tensor x) ->",                   /* an empty result */
        "f(Tensr x) -> Tensor",             /* an unknown type */
        "f(Tensor x, Tensor x) -> Tensor",  /* a name twice */
        "f(int a=1, int b) -> Tensor",      /* required after a default */
        "f(Tensor x, *) -> Tensor",         /* '*' with nothing after it */
        "f(Tensor x,) -> Tensor",           /* a trailing comma */
        "f(Tensor x, int k=one) -> Tensor", /* a default of no kind */
        "f(Tensor x, str m='a) -> Tensor",  /* an unterminated string */
        "f(Tensor x, **, int k) -> Tensor", /* '**' not last */
        "f(int... a=1) -> Tensor",          /* varargs with a default */
        "f Tensor x) -> Tensor",            /* no '(' */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (parse(&p, bad[i]))
            fail_msg("parsed: %s", bad[i]);
        assert_non_null(strstr(last.s, "malformed signature"));
    }
}

static void test_bind(void **state)
{
    (void)state;
    Interp *I = sig_interp();
    Parsed p;
    Obj *out[SIG_MAXP];
    Obj *x = obj_int(I, 7), *y = obj_int(I, 8), *two = obj_int(I, 2);
    assert_int_equal(parse(&p, "add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None) -> Tensor"), 1);
    const Sig *s = &p.s[0];

    /* positional, then keyword; absent parameters stay NULL */
    Obj *pos[3] = {x, y, two};
    assert_true(bind(I, s, pos, 2, NULL, NULL, 0, out));
    assert_ptr_equal(out[0], x);
    assert_ptr_equal(out[1], y);
    assert_null(out[2]);
    const char *kn[2] = {"alpha", "other"};
    Obj *kv[2] = {two, y};
    assert_true(bind(I, s, pos, 1, kn, kv, 2, out));
    assert_ptr_equal(out[1], y);
    assert_ptr_equal(out[2], two);

    /* defaults come from the signature: alpha=1 an int, out=None NULL */
    Obj *d = sig_default(I, s, 2);
    assert_true(d && d->kind == O_INT && d->i == 1);
    assert_null(sig_default(I, s, 3));
    assert_null(sig_default(I, s, 0));

    /* a keyword-only parameter passed positionally */
    assert_false(bind(I, s, pos, 3, NULL, NULL, 0, out));
    assert_string_equal(last.s, "torch.f() takes 2 positional arguments but 3 were given ('alpha' is keyword-only)");
    /* an unknown keyword */
    const char *alfa[1] = {"alfa"};
    assert_false(bind(I, s, pos, 2, alfa, kv, 1, out));
    assert_string_equal(last.s, "torch.f() got an unexpected keyword argument 'alfa'");
    /* a parameter given twice */
    const char *other[1] = {"other"};
    assert_false(bind(I, s, pos, 2, other, kv, 1, out));
    assert_string_equal(last.s, "torch.f() got multiple values for argument 'other'");
    /* a missing one */
    assert_false(bind(I, s, pos, 1, NULL, NULL, 0, out));
    assert_string_equal(last.s, "torch.f() missing required argument 'other'");

    /* too many positionals where no parameter is keyword-only */
    assert_int_equal(parse(&p, "t(Tensor input) -> Tensor"), 1);
    assert_false(bind(I, &p.s[0], pos, 2, NULL, NULL, 0, out));
    assert_string_equal(last.s, "torch.f() takes 1 positional argument but 2 were given");
    sig_interp_free(I);
}

static void test_bind_varargs_and_defaults(void **state)
{
    (void)state;
    Interp *I = sig_interp();
    Parsed p;
    Obj *out[SIG_MAXP];
    Obj *self = obj_int(I, 0), *a = obj_int(I, 2), *b = obj_int(I, 3);
    assert_int_equal(parse(&p, "view(Tensor self, int... size, *, bool flag=True, float e=1e-05, str m='half', "
                               "int[] k=[1, -2]) -> Tensor"), 1);
    const Sig *s = &p.s[0];
    /* several positionals make a tuple, one is itself */
    Obj *pos[3] = {self, a, b};
    assert_true(bind(I, s, pos, 3, NULL, NULL, 0, out));
    assert_true(out[1]->kind == O_TUPLE && out[1]->n == 2 && out[1]->items[1] == b);
    assert_true(bind(I, s, pos, 2, NULL, NULL, 0, out));
    assert_ptr_equal(out[1], a);
    /* by keyword; varargs without a '?' are required */
    const char *kn[1] = {"size"};
    Obj *kv[1] = {b};
    assert_true(bind(I, s, pos, 1, kn, kv, 1, out));
    assert_ptr_equal(out[1], b);
    assert_false(bind(I, s, pos, 1, NULL, NULL, 0, out));
    assert_string_equal(last.s, "torch.f() missing required argument 'size'");
    /* the defaults of each kind */
    Obj *d = sig_default(I, s, 2);
    assert_true(d->kind == O_BOOL && d->i == 1);
    d = sig_default(I, s, 3);
    assert_true(d->kind == O_FLOAT && d->f == 1e-05);
    d = sig_default(I, s, 4);
    assert_true(d->kind == O_STR && strcmp(d->s, "half") == 0);
    d = sig_default(I, s, 5);
    assert_true(d->kind == O_TUPLE && d->n == 2 && d->items[1]->i == -2);

    /* '**': other keywords are the lowering's */
    assert_int_equal(parse(&p, "g(Tensor x, *, int k=1, **) -> Tensor"), 1);
    const char *other[1] = {"pse_shift"};
    assert_true(bind(I, &p.s[0], pos, 1, other, kv, 1, out));
    assert_null(out[1]);

    /* check_types: the overload whose types fit */
    assert_int_equal(parse(&p, "f(str name) -> Tensor | f(int size) -> Tensor"), 2);
    CallArgs ca;
    memset(&ca, 0, sizeof ca);
    ca.pos = &a;
    ca.npos = 1;
    last.len = 0;
    assert_false(sig_bind(I, &p.s[0], &ca, 1, "torch.f", out, &last));
    assert_string_equal(last.s, "torch.f(): argument 'name' must be str");
    assert_true(sig_bind(I, &p.s[1], &ca, 1, "torch.f", out, &last));
    sig_interp_free(I);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_parses),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_bind),
        cmocka_unit_test(test_bind_varargs_and_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
