// bench/crosscheck/torch_result.h — the PyTorch side's result file of `posbench crosscheck`
// (<run-id>[.init-torch|.init-timm].torch, written by bench/crosscheck/torch_train.py) and its cache key.
//
// The file is text, one "key value..." line each, every line ending in '\n':
//   top1, top1@S, pos_top1_eta0, pos_top1_nonblank_eta0   a number in [0, 1] (or nan: not measured)
//   loss, init_max_abs_diff, seconds                      a finite number >= 0
//   content_rms, posenc_rms                               a number >= 0, or nan (not measured)
//   init ours|torch|timm    embed_init timm|xavier|normal002
//   step_losses        one number >= 0 per training step of the plan (nan/inf: the run diverged)
//   cache_script, cache_python, cache_plan   16 hex digits each: appended by posbench (never by
//                      the script) once the result validated: what produced it (below)
// Every key appears at most once; an unknown key, a value out of range or of the wrong count,
// a duplicate, a cut last line are errors naming "FILE:LINE: what" (crosscheck exits 2).
// Required: the compared metric, init, init_max_abs_diff, content_rms, posenc_rms, seconds and
// step_losses with exactly the plan's steps.
//
// The cache key (torch_cache_key): FNV-1a 64 of (1) the script's bytes followed by those of every
// other *.py file in its directory, by name (torch_init.py is imported from there), (2) the
// interpreter's resolved path and bytes, (3) the plan file's bytes (data, batch order, draws,
// initial weights, every config value the PyTorch side reads). A cached result is reused only
// when all three equal the current ones; a file without them (written before they existed) is
// trained again.
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t script, python, plan;
} torch_cache_key;

typedef struct {
    double value;        // the compared metric (NAN when its line is absent or nan)
    double *losses;      // step_losses (malloc'd; free with torch_result_free)
    int nlosses;
    char init[16], embed_init[16]; // "" when absent
    double init_diff, content_rms, posenc_rms; // NAN when absent
    int has_key;         // the three cache_* lines are present
    torch_cache_key key;
} torch_result;

// Computes the cache key for this script, interpreter and plan. 0, or -1 with why (a file
// that cannot be read).
int torch_cache_key_compute(const char *script, const char *python, const char *plan, torch_cache_key *key, char *why,
                            size_t len);
// Does the file at path carry a cache key line at all (a result of this posbench or later)?
int torch_result_has_key(const char *path);
// Reads and validates the result at path for `metric` against a plan of `steps` steps (rules
// above; need_key: the cache_* lines must be present, as in a cached file). 0, or -1 with
// "PATH:LINE: what" (or "PATH: what") in why; *out is then empty. The file must be a regular file
// (not a link, FIFO or device: core/safe_file.h) of at most TORCH_RESULT_FIXED_BYTES +
// (steps + 1) * TORCH_RESULT_LINE_BYTES bytes, checked before it is read.
#define TORCH_RESULT_FIXED_BYTES ((long long)1 << 20) // the keys and cache lines
#define TORCH_RESULT_LINE_BYTES 256LL                 // one step's loss line, far more than "loss 17 digits"
int torch_result_read(const char *path, const char *metric, long steps, int need_key, torch_result *out, char *why, size_t len);
void torch_result_free(torch_result *r);
// Appends the key's three lines to the file at path. 0, or -1 with why.
int torch_result_append_key(const char *path, const torch_cache_key *key, char *why, size_t len);
// Which part of two keys differs: "the script", "the interpreter", "the plan" (first one), or NULL.
const char *torch_cache_key_diff(const torch_cache_key *a, const torch_cache_key *b);
