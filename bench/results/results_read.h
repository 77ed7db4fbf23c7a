// bench/results/results_read.h — reading run files (.h5, as written by bench/results/results.h) and whole
// results directories, for `posbench report` and `posbench plot`.
// One run file: root attrs, /config attrs, /final attrs (all typed scalars kept as text and
// number), the 1-D series under /train and /eval (columns in the order of the group's
// `columns` attribute), and the dense arrays under /attention, /samples and /spatial (as float).
// A directory: every *.h5 below it (never *.h5.partial), grouped into stages by
// (experiment, stage) root attrs — the parent directory's name when `stage` is absent — and,
// within a stage, into configurations: the *axes* are the /config keys whose values differ
// between the stage's files (train.seed excluded); a configuration is one assignment of them.
// A /config that lacks a key of bench/experiment/config.c's table (a file written before the key
// existed) reads as having the key's default, typed as the trainer writes it.
// Nothing here exits: failures return -1 with a message that names the file; HDF5's own
// error printing is silenced.
#pragma once
#include <stddef.h>

enum { RR_MAX_DIMS = 8 };
// What rr_read loads besides the three attribute sets.
enum { RR_ATTRS = 0, RR_SERIES = 1, RR_ARRAYS = 2 };

typedef struct {
    char *name;
    char type;   // 'i' integer, 'd' float, 's' string, '?' anything else (text says what)
    char *text;  // the string; integers as %lld; floats as the shortest %.{15,16,17}g that round-trips
    double num;  // the number (strings: strtod when the whole text parses, else NaN)
    int is_num;  // 'i', 'd', and strings whose whole text is a number
} rr_attr;

typedef struct {
    int n;
    rr_attr *items; // in name order (HDF5 name index)
} rr_attrs;

typedef struct {
    char *name;
    long n;
    double *v; // integer columns are converted; INT64_MIN (the writer's NaN) becomes NaN
} rr_column;

typedef struct {
    int ncols;
    rr_column *cols; // in `columns` order (name order when the attribute is absent)
} rr_series;

typedef struct {
    char *name; // path below the group ("relmap", "sub/x" for nested groups)
    int ndim;
    int dims[RR_MAX_DIMS];
    size_t numel;
    float *data; // row-major, converted to float from any numeric type
} rr_array;

typedef struct {
    int n;
    rr_array *items; // in name order
} rr_arrays;

typedef struct {
    char *path;
    rr_attrs root, config, final;
    rr_series train, eval;     // with RR_SERIES; empty when the group is absent
    rr_arrays attention, samples; // with RR_ARRAYS; empty when the group is absent
    rr_arrays curves;  // with RR_ARRAYS: /position, /knn and /resolution arrays, named "position/top1",
                       // "knn/top1", "resolution/top1"
    rr_arrays spatial; // with RR_ARRAYS: /spatial's arrays (gMLP/aMLP: "W", (L, T, T)); empty when absent
    rr_attrs spatial_attrs; // /spatial's attributes (rows, cols: the token grid; t0: tokens before it)
} rr_run;

// Reads the file at path (what: RR_ATTRS | RR_SERIES | RR_ARRAYS). 0 ok; -1 with err set
// ("<path>: <what failed> (HDF5: <innermost message>)"), *out then holds nothing to free.
int rr_read(const char *path, int what, rr_run *out, char *err, size_t errlen);
void rr_free(rr_run *r);

const rr_attr *rr_attr_get(const rr_attrs *a, const char *name);           // NULL when absent
const char *rr_attr_text(const rr_attrs *a, const char *name, const char *fallback);
const rr_column *rr_column_get(const rr_series *s, const char *name);      // NULL when absent
const rr_array *rr_array_get(const rr_arrays *a, const char *name);        // NULL when absent

// Orders two attribute texts: both numbers -> numerically; a number before a non-number;
// otherwise strcmp.
int rr_value_cmp(const char *a, const char *b);
// Are two attribute texts the same value? Numerically when both are numbers ("0" = "0.0"; a
// boolean spelled true/false is 1/0, as the files store it), else as text.
int rr_value_equal(const char *a, const char *b);

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
} rr_stage;

typedef struct {
    int nruns;
    rr_run *runs;     // by path
    int nstages;
    rr_stage *stages; // by earliest root attr `started` of their runs, then experiment, name
    int nskipped;
    char **skipped;   // one message per unreadable file (these files are left out)
    int nexperiments; // distinct experiment names among the stages
} rr_set;

// The regular files below dir (recursively, symlinks not followed, unreadable
// subdirectories skipped) named `pattern` exactly, or ending in what follows a leading '*'
// ("*.h5"); sorted by path into *paths (malloc'd, free each and the array). 0 ok; -1 when
// dir cannot be read.
int rr_find_files(const char *dir, const char *pattern, char ***paths, int *n, char *err, size_t errlen);
// Reads every *.h5 below dir (recursively, symlinks not followed). 0 ok (possibly with no
// runs); -1 when dir cannot be read (err says why).
int rr_scan(const char *dir, int what, rr_set *set, char *err, size_t errlen);
void rr_set_free(rr_set *set);
// The configuration value of run `run` for key (text), "—" when absent.
const char *rr_config_value(const rr_set *set, int run, const char *key);
// The run's seed (root attr `seed`, else /config train.seed, else 0).
long rr_run_seed(const rr_run *r);
// The run's status (root attr `status`, "unknown" when absent).
const char *rr_run_status(const rr_run *r);
