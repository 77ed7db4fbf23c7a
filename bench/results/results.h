// bench/results/results.h — one HDF5 results file per run: typed attributes, growing 1-D series
// and dense arrays, in plain types only so h5py/pandas read it without posbench.
// Layout contract: docs/usage.md "Runs, resume and the HDF5 file". Group and dataset paths are absolute
// ("/final", "/attention/entropy"); missing parent groups are created on demand.
// Every HDF5 failure ends the process with die_fail naming the file and the object.
// HDF5 here is the serial (non-thread-safe) library: use a results file from one thread.
#pragma once
#include <stdint.h>

typedef struct results results;
typedef struct results_series results_series;
typedef struct {
    const char *name;
    char type; // 'i' = int64, 'd' = float64
} results_column;

// Called once at the start of a program, before any HDF5 call: turns HDF5's exit handler off
// (it crashed after a failed write, e.g. a full disk). Files still open at exit are closed by
// this module's own handler instead.
void results_process_init(void);
// Creates (or truncates) the file at path.
results *results_create(const char *path);

// Scalar attributes on the group at `group` ("/", "/final", "/config", ...). Writing an
// attribute that already exists replaces it (e.g. status "running" -> "done").
// Strings are variable-length UTF-8 (h5py reads them as str); value must not be NULL.
void results_attr_str(results *r, const char *group, const char *name, const char *value);
void results_attr_double(results *r, const char *group, const char *name, double value);
void results_attr_int(results *r, const char *group, const char *name, int64_t value);

// A table of 1-D columns under `group`: one dataset per column (int64 or float64), chunked
// by chunk_rows, extendible (H5S_UNLIMITED), uncompressed. The group also gets a string
// attribute "columns" listing the column names in order, comma-separated.
// The column datasets must not already exist. The series lives until results_close.
results_series *results_series_create(results *r, const char *group, int ncols,
                                      const results_column *cols, int chunk_rows);
// Buffers one row of ncols doubles; whole chunks are written as they fill. Int columns
// take the value rounded to nearest; NaN/Inf/out-of-range become INT64_MIN.
void results_series_append(results_series *s, const double *row);

// Dense arrays (row-major, dims[0] slowest). An existing dataset at path is replaced.
// ndim >= 1; a dimension may be 0 (then data may be NULL).
void results_dataset_f32(results *r, const char *path, int ndim, const int *dims, const float *data);
void results_dataset_i32(results *r, const char *path, int ndim, const int *dims, const int32_t *data);

// Writes the buffered rows of every series and flushes the file to disk (H5Fflush).
void results_flush(results *r);
// Flushes, closes every series, object and the file, frees r (and its series).
// Returns 0; failures die like every other call.
int results_close(results *r);
