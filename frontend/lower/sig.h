/*
 * sig.h - signatures of library calls as data (sig.c): a PyTorch-style
 * signature string, as native_functions.yaml writes them, parsed into
 * parameters, and the one binder of a call's arguments to them.
 *
 *   "add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None) -> Tensor"
 *
 * The language: NAME(PARAM, ...) -> RESULT, several overloads separated
 * by '|' and tried in order. A PARAM is TYPE NAME or TYPE NAME=DEFAULT,
 * or '*' (the parameters after it are keyword-only). TYPE is a word
 * (Tensor, Scalar, int, float, bool, str, ScalarType, Device, Layout,
 * MemoryFormat, Generator, Any), '[]' or '[N]' after it for a list, '?'
 * for one that may be None, and '...' for varargs: the rest of the
 * positional arguments (one argument is itself, several make a tuple; the
 * parameters after it are keyword-only; required unless '?', as in
 * `Any?... args`). '**' last: other keywords are accepted too, and left
 * to the lowering (which reads them from the call's arguments). A DEFAULT
 * is None, True, False, a number, a 'string' or a list of ints [1, 2].
 * The result is not read.
 */
#ifndef TNGC_LOWER_SIG_H
#define TNGC_LOWER_SIG_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"

/* The most parameters one overload has, and overloads one string has. */
#define SIG_MAXP 40
#define SIG_MAXOV 4

typedef struct SigParam {
    const char *name, *type, *def;   /* into the signature text; def NULL: required */
    uint8_t nlen, tlen, dlen;
    uint8_t kwonly;                  /* keyword-only (after '*' or varargs) */
    uint8_t vararg;                  /* TYPE... */
    uint8_t optional;                /* TYPE? */
} SigParam;

typedef struct Sig {
    const char *name;                /* the function's name, nlen bytes */
    uint8_t nlen;
    uint8_t np;
    uint8_t kwextra;                 /* '**': other keywords accepted */
    const SigParam *p;
} Sig;

/*
 * Parses text into at most nsig overloads, their parameters appended to
 * pool[*used..cap). Returns the number of overloads, or 0 with a message
 * appended to why when text is malformed (or does not fit).
 */
int sig_parse(const char *text, Sig *sig, int nsig, SigParam *pool, size_t cap, size_t *used, StrBuf *why);

/* The index of parameter name in s, or -1. */
int sig_index(const Sig *s, const char *name);

/*
 * Binds a call's arguments (a method's self already at position 0) to
 * s: out[i] is the argument of s->p[i], NULL where none was given.
 * check_types: arguments of a plain type must fit it (a tensor for Tensor,
 * no tensor for int, bool, float, str and ScalarType): what chooses among
 * overloads. Returns 1, or 0 with Python's TypeError message appended to why
 * (`what` names the function in it).
 */
int sig_bind(Interp *I, const Sig *s, const CallArgs *a, int check_types, const char *what, Obj **out,
             StrBuf *why);

/* The default of s->p[i] as an object; NULL for None and for a required
 * parameter. */
Obj *sig_default(Interp *I, const Sig *s, int i);

#endif
