// bench/results/results_read.h — whole results directories for `posbench report` and `posbench
// plot`: every *.h5 below a directory (never *.h5.partial; each read by run_read.h), grouped into
// stages by (experiment, stage) root attrs — the parent directory's name when `stage` is absent —
// and, within a stage, into configurations: the *axes* are the /config keys whose values differ
// between the stage's files (train.seed excluded), and the stage's matrix keys its experiment's
// copy names (rr_stage_hint) that its files hold; a configuration is one assignment of them.
// Grouping is linear in the number of runs (hashes of stages and configurations: text_index.h).
#pragma once
#include "run_read.h"
#include <stddef.h>

// ---- results directories ------------------------------------------------------------
typedef struct {
    char **values; // per axis of the stage: the /config text, or "—" when the key is absent
    char *label;   // "key=value, key=value" over the axes; "all" when the stage has none
    int nruns;
    int *runs;     // indices into rr_set.runs, by seed
} rr_config;

typedef struct {
    char *experiment; // root attr `experiment`, "" when absent
    char *name;       // root attr `stage`, else the parent directory's name
    int nruns;
    int *runs;        // indices into rr_set.runs, by path
    int naxes;
    char **axes;      // dotted /config keys, sorted by name
    int nconfigs;
    rr_config *configs; // sorted by axis values (rr_value_cmp, axes in order)
    int nmissing;     // runs its experiment's copy enumerates with no run file (rr_stage_hint)
} rr_stage;

// What the experiment's copy says of a stage (bench/report/run_select.h fills these): its matrix
// keys as /config keys ("objective.eta", a parent's "pretrain.objective.eta"), which stay axes of
// the stage even when the runs left hold one value of them (half an axis missing or damaged),
// and how many of its enumerated runs have no run file.
typedef struct {
    char *experiment, *stage;
    int naxes;
    char **axes;
    int nmissing;
} rr_stage_hint;

// A run file that was read but is left out of every table, finding and figure (run_screen.h).
typedef enum {
    RR_LEFT_DAMAGED,   // a done run whose /final is not one finite number per attribute
    RR_LEFT_DUPLICATE, // a second file of a run already counted (same run id, or same config and seed)
    RR_LEFT_EARLIER,   // a run of an earlier version of its experiment (report_versions.h)
} rr_left_kind;

typedef struct {
    rr_left_kind kind;
    char *path;
    char *experiment; // its root attr `experiment`, "" when absent
    char *stage;      // its stage (root attr `stage`, else its folder's name)
    char *run_id;     // its root attr `run_id`, "" when absent
    char *why;        // what is wrong, or which file it duplicates
} rr_left;

typedef struct {
    int nruns;
    rr_run *runs;     // by path
    int nstages;
    rr_stage *stages; // by earliest root attr `started` of their runs, then experiment, name
    int nskipped;
    char **skipped;   // one message per unreadable file (these files are left out)
    int nexperiments; // distinct experiment names among the stages
    int nleft;
    rr_left *left;    // files read but left out (damaged /final, duplicates, earlier versions), by kind then path
    int nhints;
    rr_stage_hint *hints; // from the experiments' copies; applied whenever stages are grouped
} rr_set;

// The files below dir (recursively, symlinks not followed, unreadable subdirectories skipped)
// named `pattern` exactly, or ending in what follows a leading '*' ("*.h5"), whatever they are:
// a symbolic link, FIFO or device of that name is listed too, so its reader refuses it by name
// (core/safe_file.h) rather than it being skipped without a word. Sorted by path into *paths
// (malloc'd, free each and the array). 0 ok; -1 when dir cannot be read.
int rr_find_files(const char *dir, const char *pattern, char ***paths, int *n, char *err, size_t errlen);
// Reads every *.h5 below dir (recursively, symlinks not followed) and groups them into stages
// and configurations: every readable file, as it is (`export`). `report` and `plot` then call
// rr_screen (run_screen.h), which leaves out damaged /final groups and second files of a run.
// 0 ok (possibly with no runs); -1 when dir cannot be read (err says why).
int rr_scan(const char *dir, int what, rr_set *set, char *err, size_t errlen);
void rr_set_free(rr_set *set);
// Moves the runs r with why[r] != NULL from set->runs to set->left (kind, why[r] copied) and
// groups the remaining runs into stages and configurations again (axes are recomputed: a key
// that only the left-out runs made differ is no longer an axis).
void rr_set_leave_out(rr_set *set, char *const *why, rr_left_kind kind);
// Adds hints (copied) and groups the runs into stages again with them.
void rr_set_hints(rr_set *set, const rr_stage_hint *hints, int n);
// The run's stage name: root attr `stage`, else its folder's name (malloc'd).
char *rr_run_stage(const rr_run *r);
// The configuration value of run `run` for key (text), "—" when absent.
const char *rr_config_value(const rr_set *set, int run, const char *key);
// The run's seed (root attr `seed`, else /config train.seed, else 0).
long rr_run_seed(const rr_run *r);
// The run's status (root attr `status`, "unknown" when absent).
const char *rr_run_status(const rr_run *r);
