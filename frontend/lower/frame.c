/*
 * frame.c - the evaluator's frames (frame.h): a function's, a class
 * body's or a comprehension's scope, kept while a closure refers to it;
 * binding a call's arguments to a function's parameters; and the names
 * code host mode skips would bind. Private to the evaluator (eval.c).
 */
#include "frame.h"

#include <string.h>

/* ===================================================================== */
/* Frames                                                                */
/* ===================================================================== */

/*
 * A frame lives while its call (comprehension, class body) runs, unless a
 * function or lambda defined in it keeps it as its closure: then it lives
 * until the end of the run, with the frames around it. Memory therefore
 * follows the call depth, not the number of calls.
 */
static size_t frame_bytes(const Frame *f)
{
    return sizeof *f + (f->vars.cap + f->globals_decl.cap) * (sizeof(const char *) + sizeof(void *));
}

/* A new frame (a call, a comprehension, a class body) inside parent. */
Frame *interp_frame_in(Interp *I, Frame *parent)
{
    Frame *f = xcalloc(1, sizeof *f);
    f->parent = parent;
    interp_charge(I, frame_bytes(f));
    return f;
}

/* f (and the frames around it) outlive their calls: a closure refers to them. */
void frame_keep(Interp *I, Frame *f)
{
    for (; f && !f->kept; f = f->parent) {
        f->kept = 1;
        VEC_PUSH(I->frames, f);
    }
}

/* The end of f's call: frees it unless kept. */
void frame_release(Interp *I, Frame *f)
{
    if (f->kept)
        return;
    interp_uncharge(I, frame_bytes(f));
    strmap_free(&f->vars);
    strmap_free(&f->globals_decl);
    free(f);
}

/* Sets key in one of f's maps, charging its growth. */
void frame_put(Interp *I, Frame *f, StrMap *map, const char *key, void *val)
{
    size_t before = frame_bytes(f);
    strmap_put(map, key, val);
    size_t after = frame_bytes(f);
    if (after > before)
        interp_charge(I, after - before);
}

/* Frees the kept frames at the end of the run. */
void frames_free(Interp *I)
{
    for (size_t i = 0; i < I->frames.n; i++) {
        strmap_free(&I->frames.v[i]->vars);
        strmap_free(&I->frames.v[i]->globals_decl);
        free(I->frames.v[i]);
    }
    VEC_FREE(I->frames);
}

/* name: f's scopes outwards, then the module's (LEGB without builtins). */
Obj *frame_lookup(Interp *I, Frame *f, const char *name)
{
    for (; f; f = f->parent) {
        Obj *o = strmap_get(&f->vars, name);
        if (o)
            return o;
    }
    return strmap_get(&I->globals->vars, name);
}

/* Binds name (a string of the run: node_str, the arena) in f. */
void frame_assign(Interp *I, Frame *f, const char *name, Obj *val)
{
    if (strmap_get(&f->globals_decl, name))
        f = I->globals;
    /* a host call's own frame is not seen by a trace: no copy needed */
    frame_put(I, f, &f->vars, name, f->kept || I->tracing ? obj_stored(I, val) : val);
}

/* ===================================================================== */
/* Parameters                                                            */
/* ===================================================================== */

/* Binds a call's arguments to fn's parameters in frame fr. */
/* While tracing, arguments that no parameter takes are Python's
 * TypeError: reported rather than dropped. */
static void bind_extra_args(Interp *I, InterpFunc *fn, int32_t ps, size_t used_pos, CallArgs *a)
{
    int has_varargs = 0, has_varkw = 0;
    FOR_CHILDREN(I, ps, p) {
        int kind;
        obj_param_name(I, p, &kind);
        has_varargs |= kind == 1;
        has_varkw |= kind == 2;
    }
    if (!has_varargs && used_pos < a->npos)
        interp_diag(I, a->node, RULE_TNG205, "%s takes %zu positional arguments but this call passes %zu",
                    fn->qualname, used_pos, a->npos);
    for (size_t k = 0; !has_varkw && k < a->nkw; k++) {
        int found = 0;
        FOR_CHILDREN(I, ps, p) {
            int kind;
            const char *n = obj_param_name(I, p, &kind);
            found |= kind == 0 && n && strcmp(n, a->kwnames[k]) == 0;
        }
        if (!found)
            interp_diag(I, a->node, RULE_TNG205, "%s has no parameter '%s'", fn->qualname, a->kwnames[k]);
    }
}

/* f(args) calling def f(a, b=1, *rest, k, **kw): binds the call's
 * arguments to fn's parameters in frame fr (self_obj as the first). */
void frame_bind_params(Interp *I, InterpFunc *fn, Frame *fr, Obj *self_obj, CallArgs *a)
{
    int32_t ps = obj_func_params(I, fn->node);
    size_t pi = 0, ai = 0, idx = 0;
    int kwonly = 0;
    if (ps < 0)
        return;
    FOR_CHILDREN(I, ps, p) {
        int kind;
        const char *name = obj_param_name(I, p, &kind);
        Obj *val = NULL;
        if (kind == 3) {
            kwonly = 1;
        } else if (kind == 1) {
            Obj *rest = obj_seq(I, O_TUPLE);
            for (; ai < a->npos; ai++)
                obj_push(I, rest, a->pos[ai]);
            val = a->has_star ? obj_unknown(I, NULL) : rest;
            kwonly = 1;
        } else if (kind == 2) {
            Obj *d = obj_seq(I, O_DICT);
            for (size_t k = 0; k < a->nkw; k++) {
                int used = 0;
                int32_t q = ps;
                FOR_CHILDREN(I, q, p2) {
                    int k2;
                    const char *n2 = obj_param_name(I, p2, &k2);
                    if (k2 == 0 && n2 && strcmp(n2, a->kwnames[k]) == 0)
                        used = 1;
                }
                if (!used) {
                    obj_push(I, d, obj_str(I, a->kwnames[k]));
                    obj_push(I, d, a->kw[k]);
                }
            }
            val = d;
        } else if (pi == 0 && self_obj) {
            val = self_obj;
        } else {
            if (!kwonly && ai < a->npos)
                val = a->pos[ai++];
            else if (name)
                val = args_kw(a, name);
            if (!val && fn->defaults[idx])
                val = fn->defaults[idx];
            if (!val && I->tracing && !a->has_star) {
                interp_diag(I, a->node, RULE_TNG205, "missing argument '%s' in this call of %s",
                            name ? name : "?", fn->qualname);
                val = obj_unknown_reported(I);
            }
            if (!val)
                val = obj_unknown(I, "a missing argument");
        }
        if (kind != 3)
            pi++;
        if (name && val)
            frame_assign(I, fr, name, val);
        idx++;
    }
    if (I->tracing && !a->has_star)
        bind_extra_args(I, fn, ps, ai, a);
}

/* ---- code host mode does not run ----
 *
 * Host code skips what it cannot decide: the body of a 'for' over an
 * unknown, the branches of an 'if' on one, the rest of a 'while' whose
 * condition is unknown. Skipping is not doing nothing: what the code would
 * have changed is not known after it. So (1) the names it binds become
 * unknown, and (2) when it may change an object (a store into an attribute
 * or a subscript, 'del', a call of a list or dict mutator), I->skipped
 * counts it: a 'while' whose body skipped such code ends as a 'while' on
 * an unknown condition does, for its condition may read what changed
 * (tests/corpus/deepseek_moe.py's `while len(finished) < 4:` ran 2,000,000
 * statements because the loop that appends the sampled tokens was skipped).
 * Calls are not counted: print() in a skipped branch is common and harmless. */

static int skip_target(Interp *I, Frame *f, int32_t t, int reported)
{
    if (t < 0)
        return 0;
    switch ((NodeKind)N(I, t)->kind) {
    case NK_identifier:
        frame_assign(I, f, interp_node_str(I, t), reported ? obj_unknown_reported(I) : obj_unknown(I, NULL));
        return 0;
    case NK_attribute: case NK_subscript:
        return 1;
    case NK_pattern_list: case NK_tuple_pattern: case NK_list_pattern: case NK_tuple: case NK_list:
    case NK_expression_list: case NK_parenthesized_expression: case NK_list_splat_pattern: {
        int found = 0;
        FOR_CHILDREN(I, t, c) found |= skip_target(I, f, c, reported);
        return found;
    }
    default:
        return 0;
    }
}

/* Makes the names code n binds unknown (reported: the echo of a
 * diagnostic, silent where read); 1 when it may change an object. */
static int skip_scan(Interp *I, Frame *f, int32_t n, int depth, int reported)
{
    if (n < 0 || depth > INTERP_MAX_NEST)
        return 0;
    int found = 0;
    switch ((NodeKind)N(I, n)->kind) {
    case NK_function_definition: case NK_class_definition: case NK_lambda:
    case NK_list_comprehension: case NK_generator_expression: case NK_dictionary_comprehension:
    case NK_set_comprehension:
        return 0;   /* not run there, or names of their own */
    case NK_assignment: case NK_augmented_assignment: case NK_for_statement:
        found = skip_target(I, f, ast_field(I->ast, n, F_left), reported);
        break;
    case NK_named_expression:
        found = skip_target(I, f, ast_field(I->ast, n, F_name), reported);
        break;
    case NK_delete_statement:
        found = 1;
        break;
    case NK_call: {
        int32_t fn = ast_field(I->ast, n, F_function);
        int32_t attr = fn >= 0 && N(I, fn)->kind == NK_attribute ? ast_field(I->ast, fn, F_attribute) : -1;
        found = attr >= 0 && builtins_container_mutator(interp_node_str(I, attr));
        break;
    }
    default:
        break;
    }
    FOR_CHILDREN(I, n, c) found |= skip_scan(I, f, c, depth + 1, reported);
    return found;
}

/* Host code skips n (a block, or a clause of an 'if'). */
void frame_skip_code(Interp *I, Frame *f, int32_t n)
{
    if (!I->tracing && !I->aborted && skip_scan(I, f, n, 0, 0))
        I->skipped++;
}

void frame_skip_branch(Interp *I, Frame *f, int32_t n, int echo)
{
    if (I->tracing && echo && !I->aborted)
        (void)skip_scan(I, f, n, 0, 1);
    else
        frame_skip_code(I, f, n);
}
