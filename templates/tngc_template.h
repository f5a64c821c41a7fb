/*@tngc:banner@*/
/*
 * The public API of one model bundle (template of <name>.h).
 *
 * tngc replaces every "tngc_template" in this file by the bundle's name and
 * "TNGC_TEMPLATE" by its upper-case form, and the marker line
 * "@tngc:io@" by the bundle's input and output index constants. The file
 * compiles on its own as it is.
 *
 * Use: create a bundle (the arena is allocated and the stream workers are
 * started once), load its weights from a safetensors file, then run it any
 * number of times; the gear is chosen from the inputs' shapes. Errors are
 * return codes (0 or -1; _run also -2 for bad input) with a one-line
 * message from _last_error (or in *err for _create); the bundle never
 * prints or exits.
 */
#ifndef TNGC_TEMPLATE_BUNDLE_H
#define TNGC_TEMPLATE_BUNDLE_H

#include "tngrt_bundle.h"

/* A bundle: an opaque handle. */
typedef struct TngrtBundle tngc_template_t;

/* Creates a bundle in *out; returns 0, or -1 with a message in err. On
 * success err->msg is "" or, for an ACL bundle, one warning line (a chip
 * that cannot capture runs reduce-overhead gears eagerly). */
int tngc_template_create(tngc_template_t **out, TngrtError *err);

/* Loads the weights (state_dict names) from a safetensors file; returns 0,
 * or -1 (the previous weights are kept). Tensors of the file that are no
 * weight of the model are not loaded: _unused_count and _unused_name list
 * them. */
int tngc_template_load_weights(tngc_template_t *self, const char *path);

/* The number of tensors in the file of the last successful _load_weights
 * that are no weight of the model (0 before): a checkpoint of another
 * model or a renamed layer shows here. */
int tngc_template_unused_count(const tngc_template_t *self);

/* The name of unused tensor i (file order), valid until the next
 * successful _load_weights or _destroy; NULL when i is out of range. */
const char *tngc_template_unused_name(const tngc_template_t *self, int i);

/* Runs the model on inputs[0..ninputs) (in the signature's order); fills
 * outputs[0..noutputs) with views valid until the next run. Inputs updated
 * in place by the model (e.g. KV caches) are written through. Returns 0;
 * -2 (TNGRT_BAD_INPUT) when the inputs are at fault: a wrong dtype or
 * rank, a shape in no gear, a shape that makes a tensor of the run pass
 * 2^48 bytes, values a kernel refuses (an embedding id out of range); -1
 * for any other failure (a wrong count of inputs or outputs, out of
 * memory, a kernel's or the device's error). */
int tngc_template_run(tngc_template_t *self, const TngrtTensor *inputs, int ninputs,
                      TngrtTensor *outputs, int noutputs);

/* The signature: inputs, weights, outputs, symbols, gears, streams. */
const TngrtBundleDesc *tngc_template_signature(const tngc_template_t *self);

/* The same descriptor without a bundle. */
const TngrtBundleDesc *tngc_template_desc(void);

/* The message of the last failure of self ("" when none). */
const char *tngc_template_last_error(const tngc_template_t *self);

/* Stops the stream workers and frees everything; NULL is accepted. */
void tngc_template_destroy(tngc_template_t *self);

/*@tngc:io@*/

#endif
