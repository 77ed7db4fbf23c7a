// objectives/record.h — where objectives record what they measure, without knowing the file
// format: the trainer hands them a sink that writes HDF5 (bench/results); tests can hand them
// one that keeps values in memory. Paths are HDF5-style ("/position/top1"); a group's
// attributes are named (group "/final", name "pos_top1").
#pragma once
#include <stdint.h>

typedef struct record_sink {
    void *ctx;
    void (*attr_double)(void *ctx, const char *group, const char *name, double value);
    void (*attr_int)(void *ctx, const char *group, const char *name, int64_t value);
    // A float dataset of ndim dimensions dims[0..ndim), row-major.
    void (*dataset_f32)(void *ctx, const char *path, int ndim, const int *dims, const float *data);
} record_sink;

static inline void record_double(const record_sink *s, const char *group, const char *name, double v) {
    s->attr_double(s->ctx, group, name, v);
}
static inline void record_int(const record_sink *s, const char *group, const char *name, int64_t v) {
    s->attr_int(s->ctx, group, name, v);
}
static inline void record_f32(const record_sink *s, const char *path, int ndim, const int *dims, const float *data) {
    s->dataset_f32(s->ctx, path, ndim, dims, data);
}
