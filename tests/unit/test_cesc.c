/*
 * test_cesc.c - unit tests of codegen/cesc.c, the escaping of script text
 * into generated C: on every byte and on many strings of the bytes that
 * matter (* / ? \ " newline, control and non-ASCII bytes), a string literal
 * decodes back to the input and can form no trigraph; a comment's text is
 * printable ASCII that cannot end, nest or splice the comment and reads
 * back to the input; an identifier is one, and stays itself.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../codegen/cesc.h"

/* ---- helpers ---- */

/* Decodes the escapes cesc_* write (\" \\ \? \n \t \r \ooo) in [s, e) into
 * out; returns its length, or -1 on an escape it does not write. */
static int decode(const char *s, const char *e, char *out)
{
    int n = 0;
    while (s < e) {
        if (*s != '\\') {
            out[n++] = *s++;
            continue;
        }
        char c = s[1];
        if (c == '"' || c == '\\' || c == '?') {
            out[n++] = c;
            s += 2;
        } else if (c == 'n' || c == 't' || c == 'r') {
            out[n++] = c == 'n' ? '\n' : c == 't' ? '\t' : '\r';
            s += 2;
        } else if (c >= '0' && c <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
            out[n++] = (char)((c - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
            s += 4;
        } else {
            return -1;
        }
    }
    out[n] = 0;
    return n;
}

static int all_printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            return 0;
    return 1;
}

/* A string of n bytes drawn from the ones that matter, from seed. */
static void hostile(unsigned *seed, char *buf, int n)
{
    static const char pick[] = "*/?\\\"\n\r\t\001\033\177\377\200\351aZ0_ #";
    for (int i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        buf[i] = pick[(*seed >> 16) % (sizeof pick - 1)];
    }
    buf[n] = 0;
}

static void check_string(const char *in)
{
    StrBuf o = {0};
    cesc_string(&o, in);
    assert_true(o.len >= 2 && o.s[0] == '"' && o.s[o.len - 1] == '"');
    assert_true(all_printable(o.s));
    assert_null(strstr(o.s, "??"));
    /* no quote inside is unescaped */
    for (size_t i = 1; i + 1 < o.len; i++)
        if (o.s[i] == '"') {
            size_t k = i;
            while (k > 1 && o.s[k - 1] == '\\')
                k--;
            assert_true((i - k) % 2 == 1);
        }
    char *back = malloc(o.len + 1);
    assert_int_equal(decode(o.s + 1, o.s + o.len - 1, back), (int)strlen(in));
    assert_string_equal(back, in);
    free(back);
    sb_free(&o);
}

static void check_comment(const char *in)
{
    StrBuf o = {0};
    sb_puts(&o, "");
    cesc_comment(&o, in);
    assert_true(all_printable(o.s));
    assert_null(strstr(o.s, "*/"));
    assert_null(strstr(o.s, "/*"));
    assert_null(strstr(o.s, "??"));
    assert_true(o.len == 0 || (o.s[o.len - 1] != '\\' && o.s[o.len - 1] != '*'));
    char *back = malloc(o.len + 1);
    assert_int_equal(decode(o.s, o.s + o.len, back), (int)strlen(in));
    assert_string_equal(back, in);
    free(back);
    sb_free(&o);
}

/* ---- tests ---- */

static void every_byte(void **state)
{
    (void)state;
    for (int b = 1; b < 256; b++) {
        char in[4] = {(char)b, 0};
        check_string(in);
        check_comment(in);
        in[1] = (char)b;   /* doubled: ??, ** , // */
        check_string(in);
        check_comment(in);
    }
}

static void hostile_strings(void **state)
{
    (void)state;
    unsigned seed = 12;
    char buf[64];
    for (int i = 0; i < 20000; i++) {
        hostile(&seed, buf, 1 + i % 63);
        check_string(buf);
        check_comment(buf);
    }
}

static void known_texts(void **state)
{
    (void)state;
    StrBuf o = {0};
    cesc_string(&o, "a\"b\\c?\?/d\n\351" "0");
    assert_string_equal(o.s, "\"a\\\"b\\\\c\\?\\?/d\\n\\3510\"");
    o.len = 0;
    cesc_comment(&o, "sp1 */ x /* ?\?/ \\\n*");
    assert_string_equal(o.s, "sp1 *\\057 x /\\052 ?\\077/ \\134\\n\\052");
    o.len = 0;
    cesc_comment(&o, "model.py");   /* plain text is unchanged */
    assert_string_equal(o.s, "model.py");
    sb_free(&o);
}

static void idents(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"model", "model"}, {"", "_"}, {"9x", "_9x"}, {"a-b.c", "a_b_c"},
        {"M\303\251.forward", "M___forward"}, {"x */ y", "x____y"}, {"_a1", "_a1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        StrBuf o = {0}, again = {0};
        cesc_ident(&o, cases[i][0]);
        assert_string_equal(o.s, cases[i][1]);
        cesc_ident(&again, o.s);   /* an identifier stays itself */
        assert_string_equal(again.s, o.s);
        sb_free(&o);
        sb_free(&again);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_byte),
        cmocka_unit_test(hostile_strings),
        cmocka_unit_test(known_texts),
        cmocka_unit_test(idents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
