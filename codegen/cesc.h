/*
 * cesc.h - the only way a string from a script reaches generated C (cesc.c):
 * one escaping function per place in C text, used by every target.
 *
 * A script is untrusted: its scope names, stream tags, input, weight and
 * entry names, config values and its own path are written into generated
 * sources only through these functions, never with a bare "%s". Each one
 * keeps the text inert whatever bytes it holds (quotes, backslashes,
 * trigraphs, comment delimiters, newlines, control bytes, non-UTF-8), and
 * is deterministic: the same bytes give the same text.
 */
#ifndef TNGC_CESC_H
#define TNGC_CESC_H

#include "../support/support.h"

/* s as one C string literal, its quotes included (also right for the file
 * name of a #line directive): printable ASCII as is but for ", \ and ?
 * (escaped, so that no trigraph can form), \n \t \r, and every other byte
 * as a three-digit octal escape (never \x, which would swallow the hex
 * digits after it). */
void cesc_string(StrBuf *o, const char *s);

/* s as text inside a block comment: printable ASCII as is, but a byte that
 * could end, nest or splice the comment, or form a trigraph, is written as
 * a backslash and three octal digits: the / of a star-slash, the * of a
 * slash-star, a trailing *, every backslash, the second ? of ??; newlines
 * and tabs as \n and \t; other control bytes, DEL and every non-ASCII byte
 * in octal too. The caller puts a character other than * and / between
 * the comment's own delimiters and the text. */
void cesc_comment(StrBuf *o, const char *s);

/* s as a C identifier: each byte other than [A-Za-z0-9_] becomes '_', and
 * a '_' goes first when s is empty or starts with a digit. A name that is
 * already an identifier is unchanged. */
void cesc_ident(StrBuf *o, const char *s);

/* Whether the bundle name (an identifier cesc_ident made) cannot name a
 * bundle: 1 with the reason appended to why, or 0. A bundle's sources are compiled with their own
 * folder on the include path and define <name>.h, <name>_t and
 * <name>_<function>: a name is refused when <name>.h is a header of C11,
 * POSIX or the runtime's dependencies, or is found in the system's include
 * folders (it would shadow that header: declarations silently missing),
 * when <name>_t is a type those headers define, or when it is an
 * identifier C reserves (a leading underscore and a capital, or two). */
int cesc_reserved_name(const char *name, StrBuf *why);

#endif
