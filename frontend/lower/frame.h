/*
 * frame.h - the evaluator's frames (frame.c): scopes, binding a call's
 * arguments to a function's parameters, and the names code host mode
 * skips would bind. Private to the evaluator (eval.c).
 */
#ifndef TNGC_LOWER_FRAME_H
#define TNGC_LOWER_FRAME_H

#include "builtins.h"

struct Frame {
    StrMap vars;           /* name -> Obj* */
    StrMap globals_decl;   /* names declared global (value: non-NULL) */
    Frame *parent;         /* enclosing function scope, NULL for the module */
    int kept;              /* a closure refers to it: lives until the end of the run */
};

/* A new frame (a call, a comprehension, a class body) inside parent. */
Frame *interp_frame_in(Interp *I, Frame *parent);
#define interp_frame(parent) interp_frame_in(I, parent)
/* f (and the frames around it) outlive their calls: a closure refers to them. */
void frame_keep(Interp *I, Frame *f);
/* The end of f's call: frees it unless kept. */
void frame_release(Interp *I, Frame *f);
/* Sets key in one of f's maps, charging its growth. */
void frame_put(Interp *I, Frame *f, StrMap *map, const char *key, void *val);
/* Frees the kept frames at the end of the run. */
void frames_free(Interp *I);
/* name: f's scopes outwards, then the module's (LEGB without builtins). */
Obj *frame_lookup(Interp *I, Frame *f, const char *name);
/* Binds name (a string of the run: node_str, the arena) in f. */
void frame_assign(Interp *I, Frame *f, const char *name, Obj *val);
/* Binds a call's arguments to fn's parameters in frame fr (self_obj as
 * the first). */
void frame_bind_params(Interp *I, InterpFunc *fn, Frame *fr, Obj *self_obj, CallArgs *a);
/* Host code skips n (a block, or a clause of an 'if'): the names it binds
 * become unknown in f. */
void frame_skip_code(Interp *I, Frame *f, int32_t n);
/* A branch n of an undecided 'if' is skipped: as frame_skip_code, but in
 * a trace after an error on its condition (echo) the names n binds become
 * that error's echo (obj_unknown_reported), so that their later reads add
 * no diagnostics of their own. */
void frame_skip_branch(Interp *I, Frame *f, int32_t n, int echo);

#endif
