/*
 * tngrt_launch.h - what the launchers of both targets (templates/launcher.c,
 * templates/launcher_acl.c) do alike around a bundle's runs: the inputs
 * read from .npy files, the gear chosen from the descriptor (with --pad:
 * the inputs zero-padded up to the smallest gear that holds them), the
 * check of the weights file's unused tensors, and the results (outputs
 * cropped back, inputs updated in place, the trace) written under
 * temporary names and renamed into place all at once.
 *
 * A TngrtLaunch holds one launcher's inputs, the tensors its runs get and
 * fill, and the files it writes. Nothing here prints or exits: a call that
 * fails returns TNGRT_BAD_INPUT (-2: the inputs, the files or the command
 * line are at fault; a launcher exits with status 2) or TNGRT_FAILED (-1:
 * out of memory, a malformed tensor from the bundle; status 1), and leaves
 * a one-line message in tngrt_launch_last_error. The launcher prints it.
 */
#ifndef TNGRT_LAUNCH_H
#define TNGRT_LAUNCH_H

#include "tngrt_bundle.h"

#include <stdio.h>

/* Room for a message of a launch, the NUL included. */
#define TNGRT_LAUNCH_MSG 2048

/* The unused tensors of a weights file a message names (then "and N more"). */
#define TNGRT_LAUNCH_UNUSED_SHOWN 3

typedef struct TngrtLaunch TngrtLaunch;

/* Creates the launch of desc (which must outlive it; checked with
 * tngrt_desc_check) in *out: no input read yet, no file written. Returns
 * 0, or -1 with a message in err. */
int tngrt_launch_new(TngrtLaunch **out, const TngrtBundleDesc *desc, TngrtError *err);

/* Removes every temporary file not renamed into place and frees self
 * (NULL is accepted). */
void tngrt_launch_delete(TngrtLaunch *self);

/* For a run that failed: removes every temporary file, and --out-dir when
 * tngrt_launch_make_out_dir created it (empty by then). */
void tngrt_launch_abandon(TngrtLaunch *self);

/* The message of the last failure ("" when none). */
const char *tngrt_launch_last_error(const TngrtLaunch *self);

/* ---- inputs ---- */

/* The signature input of desc called name[0..len) (a prefix of a
 * "NAME=FILE" argument), or -1. */
int tngrt_launch_input_index(const TngrtBundleDesc *desc, const char *name, size_t len);

/* Reads signature input i from the .npy file at path (tngrt_npy_read_as:
 * a bf16 input from a '<f4' .npy rounded to bfloat16 or a '<u2' .npy of
 * its bit patterns, an f16 input from a '<f2' or a rounded '<f4' .npy)
 * and binds it to the runs. Returns 0, or TNGRT_BAD_INPUT with the
 * reader's message (the file, the dtypes accepted). */
int tngrt_launch_read_input(TngrtLaunch *self, int i, const char *path);

/* Input i as read (NULL before tngrt_launch_read_input). */
const TngrtTensor *tngrt_launch_input(const TngrtLaunch *self, int i);

/* What each run gets, ninputs tensors in signature order: views of the
 * inputs as read or, after --pad, of their padded copies. */
const TngrtTensor *tngrt_launch_run_inputs(const TngrtLaunch *self);

/* Room for noutputs tensors, filled by a run (a bundle's views). */
TngrtTensor *tngrt_launch_outputs(TngrtLaunch *self);

/* ---- the gear ---- */

/* Chooses the gear for inputs[0..ninputs) of desc. When their shapes
 * match a gear (tngrt_desc_select), returns it and leaves *padded 0. With
 * pad set, when they match none, returns the smallest gear (least sum of
 * symbol values, then gear order) whose every symbol is at least the
 * inputs' size and that pads only symbols with pad_ok, and sets *padded
 * to 1; real[0..nsyms) then holds each symbol's size in the inputs.
 * Otherwise returns TNGRT_BAD_INPUT with the message in msg[0..len)
 * (TNGRT_LAUNCH_MSG bytes hold every one): the input at fault, the shapes
 * and the gears (and, without pad, " (--pad pads up to a larger gear)"
 * when some symbol may be padded), input dims of one symbol that
 * disagree, no gear large enough, the symbol that would be padded without
 * pad_ok, or an output dim computed from symbols (its valid rows unknown).
 * TNGRT_FAILED: a wrong count of inputs. */
int tngrt_launch_choose_gear(const TngrtBundleDesc *desc, const TngrtTensor *inputs, int ninputs,
                             int pad, int64_t *real, int *padded, char *msg, size_t len);

/* Checks the inputs read and selects the gear (tngrt_launch_choose_gear);
 * with pad, pads the inputs the gear needs larger with zeros. Returns the
 * gear, or TNGRT_BAD_INPUT or TNGRT_FAILED (out of memory padding). */
int tngrt_launch_select(TngrtLaunch *self, int pad);

/* "gear <i>: s0=4" for the selected gear, with " (bound: s1=5)" for the
 * symbols it leaves unbound, into buf (NUL-terminated, cut to len). */
void tngrt_launch_gear_line(const TngrtLaunch *self, char *buf, size_t len);

/* Whether input i was padded; if so "padded: x [3,8] -> [4,8]" into buf
 * (NUL-terminated, cut to len). */
int tngrt_launch_padded_line(const TngrtLaunch *self, int i, char *buf, size_t len);

/* ---- weights ---- */

/* The n tensors of the weights file at path that the model does not use
 * (names: the first TNGRT_LAUNCH_UNUSED_SHOWN of them, or all when fewer).
 * Returns 0 when n is 0; with strict, TNGRT_BAD_INPUT and a message naming
 * them; otherwise 1 with the warning in tngrt_launch_last_error. */
int tngrt_launch_unused(TngrtLaunch *self, const char *path, int n, const char *const *names,
                        int strict);

/* Checks the weights file at path (any format tngrt_weights_open reads)
 * against desc's weights without loading them, as
 * tngrt_bundle_load_weights would: each weight missing (under its key and
 * its tied keys), of another dtype (no conversion is made) or of another
 * shape, and each tensor of the file that is no state_dict key of desc
 * (refused with strict). Puts a malloc'd report in *report, one line each
 * ("missing: NAME f32[3,8]", "dtype: ...", "shape: ...", "extra: ...") and
 * a last line with the counts and "would load" or "would not load".
 * Returns 0 when the file would load, 1 when not, TNGRT_BAD_INPUT when it
 * cannot be read (the reader's message in tngrt_launch_last_error, no
 * report), TNGRT_FAILED when memory runs out. */
int tngrt_launch_check_weights(TngrtLaunch *self, const char *path, int strict, char **report);

/* Prints t's shape as "[2,s0,?]" (a symbol by its name, an unknown size
 * as ?) on f. */
void tngrt_launch_print_shape(FILE *f, const TngrtBundleDesc *desc, const TngrtSigTensor *t);

/* --list-weights: prints on f every weight of the entry, "NAME DTYPE[SHAPE]"
 * with its tied keys and whether it is a buffer or updated by runs, then
 * the state_dict keys a weights file may hold that the entry never reads. */
void tngrt_launch_list_weights(const TngrtBundleDesc *desc, FILE *f);

/* The weights a run needs from a weights file: every weight but state that
 * starts at zeros when the file leaves it out. A launcher without
 * --weights refuses a model where this is above 0. */
int tngrt_launch_weights_required(const TngrtBundleDesc *desc);

/* ---- results ---- */

/* The name result k is written under (k < noutputs: output k; then input
 * k - noutputs when it is updated in place); NULL for an input that is
 * not written. */
const char *tngrt_launch_result_name(const TngrtBundleDesc *desc, int k);

/* Whether two results of desc would be written to the same file (names
 * equal once characters outside [A-Za-z0-9_.-] become '_'): 1, with the
 * first such pair in *a, *b (b < a, result numbers as above) and the file
 * name ("out0.npy") in file[0..len); else 0. */
int tngrt_launch_result_clash(const TngrtBundleDesc *desc, int *a, int *b, char *file, size_t len);

/* Checks --trace before any run: trace itself no directory, its directory
 * existing (NULL: no trace). Returns 0 or TNGRT_BAD_INPUT (TNGRT_FAILED:
 * out of memory). */
int tngrt_launch_check_trace(TngrtLaunch *self, const char *trace);

/* Uses dir for the results, creating it when missing (one level: its
 * parent must exist; mode 0777 & ~umask). Returns 0 or TNGRT_BAD_INPUT
 * (not a directory, cannot be created). */
int tngrt_launch_make_out_dir(TngrtLaunch *self, const char *dir);

/* Refuses, before any run, a result whose file in the results' directory
 * is a directory (tngrt_files_install checks again before renaming).
 * Returns 0 or TNGRT_BAD_INPUT (TNGRT_FAILED: out of memory). */
int tngrt_launch_check_result_paths(TngrtLaunch *self);

/* With widen set, tngrt_launch_write_results writes bf16 and f16 results
 * (outputs and inputs updated in place) as '<f4' .npy files, widened
 * exactly (tngrt_half_to_f32); unset (the default), in their own dtype
 * (bf16 as '<u2' bit patterns, f16 as '<f2'). */
void tngrt_launch_set_widen(TngrtLaunch *self, int widen);

/* Writes, each under a temporary name (tngrt_npy_write_temp), every output
 * of the last run as <dir>/<output>.npy, the dims of padded symbols cropped
 * back; every input updated in place (its valid rows when padded) as
 * <dir>/<input>.npy, characters outside [A-Za-z0-9_.-] as '_'; then trace
 * (NULL: none) to trace_path with stream_names. Returns 0, TNGRT_BAD_INPUT
 * (a file that cannot be written) or TNGRT_FAILED (out of memory, a
 * malformed output). */
int tngrt_launch_write_results(TngrtLaunch *self, const TngrtTrace *trace, const char *trace_path);

/* The files written: how many, and the final path of file k. */
int tngrt_launch_file_count(const TngrtLaunch *self);
const char *tngrt_launch_file(const TngrtLaunch *self, int k);

/* Renames every file into place, all or nothing (tngrt_files_install).
 * Returns 0 or TNGRT_BAD_INPUT. */
int tngrt_launch_install(TngrtLaunch *self);

#endif
