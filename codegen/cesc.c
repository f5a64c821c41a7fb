/*
 * cesc.c - escaping of untrusted strings into generated C (cesc.h): a
 * string literal, the text of a block comment, an identifier.
 *
 * What C does to source text before it sees tokens decides what must be
 * escaped: trigraphs are replaced first (??/ is a backslash), then a
 * backslash before a newline joins two lines, then comments end at the
 * first star-slash. So a literal or a comment is inert only if no trigraph
 * can form in it, no backslash in it can meet a newline, and (comments) no
 * star-slash or slash-star appears. Both escapers write only printable
 * ASCII and newline-free text; a byte they escape is written so that the
 * text can still be read back (octal, three digits).
 */
#include "cesc.h"

/* Backslash and three octal digits: byte ch. */
static void cesc__octal(StrBuf *o, unsigned char ch)
{
    sb_putc(o, '\\');
    sb_putc(o, (char)('0' + (ch >> 6)));
    sb_putc(o, (char)('0' + ((ch >> 3) & 7)));
    sb_putc(o, (char)('0' + (ch & 7)));
}

/* \n \t \r for those bytes, else 0. */
static char cesc__letter(unsigned char ch)
{
    return ch == '\n' ? 'n' : ch == '\t' ? 't' : ch == '\r' ? 'r' : 0;
}

static int cesc__printable(unsigned char ch)
{
    return ch >= 0x20 && ch < 0x7f;
}

void cesc_string(StrBuf *o, const char *s)
{
    sb_putc(o, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char ch = *p;
        char letter = cesc__letter(ch);
        if (ch == '"' || ch == '\\' || ch == '?') {
            sb_putc(o, '\\');
            sb_putc(o, (char)ch);
        } else if (letter) {
            sb_putc(o, '\\');
            sb_putc(o, letter);
        } else if (cesc__printable(ch)) {
            sb_putc(o, (char)ch);
        } else {
            cesc__octal(o, ch);
        }
    }
    sb_putc(o, '"');
}

void cesc_comment(StrBuf *o, const char *s)
{
    char prev = 0;   /* the last character written */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char ch = *p;
        char letter = cesc__letter(ch);
        int unsafe = ch == '\\' || (ch == '/' && prev == '*') || (ch == '*' && (prev == '/' || !p[1])) ||
                     (ch == '?' && prev == '?');
        if (letter && ch != '\r') {
            sb_putc(o, '\\');
            sb_putc(o, letter);
            prev = letter;
        } else if (unsafe || !cesc__printable(ch)) {
            cesc__octal(o, ch);
            prev = (char)('0' + (ch & 7));
        } else {
            sb_putc(o, (char)ch);
            prev = (char)ch;
        }
    }
}

void cesc_ident(StrBuf *o, const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        sb_putc(o, '_');
    for (; *s; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        sb_putc(o, ok ? c : '_');
    }
}
