// bench/results/run_read.h — reading one run file (.h5, as written by bench/results/results.h),
// for `posbench report` and `posbench plot` (whole directories: results_read.h).
// One run file: root attrs, /config attrs, /final attrs (all typed scalars kept as text and
// number), the 1-D series under /train and /eval (columns in the order of the group's
// `columns` attribute), and the dense arrays under /attention, /samples, /spatial and /views (as float).
// A /config that lacks a key of bench/config/config.c's table (a file written before the key
// existed) reads as having the key's default, typed as the trainer writes it.
// Nothing here exits: failures return -1 with a message that names the file; HDF5's own
// error printing is silenced.
#pragma once
#include <stddef.h>

enum { RR_MAX_DIMS = 8 };
// What one file may declare before it is read (a foreign or hostile file declaring a 2^31-element
// dataset or a 4 GiB string is refused naming the object, not allocated): elements of one
// dataset (the largest a run writes is well under 10^7), bytes of one string attribute.
#define RR_MAX_ELEMENTS ((size_t)1 << 26)
#define RR_MAX_STRING_BYTES ((size_t)16 << 20)
// ... and what one file may load in all: the elements of all its datasets together (a 12 KB file
// of many chunked datasets, each just under RR_MAX_ELEMENTS, would otherwise cost gigabytes),
// and its size on disk. A run file is opened only when it is a regular file (never through a
// symbolic link, never blocking on a FIFO: core/safe_file.h).
#define RR_MAX_FILE_ELEMENTS ((size_t)1 << 25)
#define RR_MAX_FILE_BYTES ((long long)16 << 30)
// What rr_read loads besides the three attribute sets.
enum { RR_ATTRS = 0, RR_SERIES = 1, RR_ARRAYS = 2 };

typedef struct {
    char *name;
    char type;   // 'i' integer, 'd' float, 's' string, '?' anything else (text says what)
    char *text;  // the string; integers as %lld; floats as the shortest %.{15,16,17}g that round-trips
    double num;  // the number (strings: strtod when the whole text parses, else NaN)
    int is_num;  // 'i', 'd', and strings whose whole text is a number
    long long nvalues; // values the attribute holds (1 for a scalar; type '?' when not 1)
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
    rr_arrays views;   // with RR_ARRAYS: /views' arrays (cls_attention, key_pca, images, ...: docs/views.md)
    rr_attrs views_attrs; // /views' attributes (images, patch, foreground_attention, the rules, absent)
} rr_run;

// Reads the file at path (what: RR_ATTRS | RR_SERIES | RR_ARRAYS). 0 ok; -1 with err set
// ("<path>: <what failed> (HDF5: <innermost message>)"), *out then holds nothing to free.
int rr_read(const char *path, int what, rr_run *out, char *err, size_t errlen);
void rr_free(rr_run *r);

const rr_attr *rr_attr_get(const rr_attrs *a, const char *name);           // NULL when absent
const char *rr_attr_text(const rr_attrs *a, const char *name, const char *fallback);
const rr_column *rr_column_get(const rr_series *s, const char *name);      // NULL when absent
const rr_array *rr_array_get(const rr_arrays *a, const char *name);        // NULL when absent

// Makes room for item n of *items (capacity *cap, doubling from 8; dies when out of memory):
// the readers' growing arrays.
void rr_grow(void **items, int n, int *cap, size_t size);

// Orders two attribute texts: both numbers -> numerically; a number before a non-number;
// otherwise strcmp.
int rr_value_cmp(const char *a, const char *b);
// Are two attribute texts the same value? Numerically when both are numbers ("0" = "0.0"; a
// boolean spelled true/false is 1/0, as the files store it), else as text.
int rr_value_equal(const char *a, const char *b);

