// core/tensor.c — tensor table bookkeeping and arena allocation.
#include "tensor.h"
#include <limits.h>
#include "common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tensor_table_init(tensor_table *t) { memset(t, 0, sizeof *t); }

void tensor_table_free(tensor_table *t) {
    free(t->items);
    memset(t, 0, sizeof *t);
}

int tensor_table_add(tensor_table *t, const char *name, int decay, int ndim, const int *shape) {
    if (ndim < 1 || ndim > TENSOR_MAX_DIMS) die_fail("tensor %s: %d dims (1..%d)", name, ndim,
                                                     TENSOR_MAX_DIMS);
    if (strlen(name) >= TENSOR_NAME_MAX) die_fail("tensor name too long: %s", name);
    if (tensor_table_find(t, name) >= 0) die_fail("tensor %s declared twice", name);
    if (t->count == t->capacity) {
        int cap = t->capacity ? 2 * t->capacity : 64;
        tensor_info *items = realloc(t->items, (size_t)cap * sizeof *items);
        if (!items) die_fail("out of memory growing the tensor table");
        t->items = items;
        t->capacity = cap;
    }
    tensor_info *info = &t->items[t->count];
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", name);
    info->ndim = ndim;
    info->numel = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 1) die_fail("tensor %s: dimension %d is %d", name, i, shape[i]);
        info->shape[i] = shape[i];
        info->numel *= (size_t)shape[i];
    }
    info->decay = decay;
    info->offset = t->total;
    t->total += (info->numel + 15) / 16 * 16;
    return t->count++;
}

int tensor_table_find(const tensor_table *t, const char *name) {
    for (int i = 0; i < t->count; i++)
        if (strcmp(t->items[i].name, name) == 0) return i;
    return -1;
}

size_t tensor_table_numel(const tensor_table *t) {
    size_t n = 0;
    for (int i = 0; i < t->count; i++) n += t->items[i].numel;
    return n;
}

void tensor_shape_string(const tensor_info *info, char *buf, size_t len) {
    size_t used = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < info->ndim && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, i ? ", %d" : "%d", info->shape[i]);
    if (used < len) snprintf(buf + used, len - used, ")");
}

void arena_alloc(arena *a, const tensor_table *t, const char *what) {
    a->floats = t->total;
    a->base = xmalloc_aligned(a->floats * sizeof(float), what);
}

void arena_free(arena *a) {
    free(a->base);
    a->base = NULL;
    a->floats = 0;
}

int tensor_table_add_flat(tensor_table *t, const char *name, int decay, size_t n) {
    if (n > INT_MAX)
        die_fail("tensor %s needs %zu floats (%.1f GiB): more than one tensor holds (2^31 - 1); use a smaller batch "
                 "(train.batch, eval.batch), image size or model", name, n, (double)n * sizeof(float) / (1u << 30));
    int shape[1] = {(int)n};
    return tensor_table_add(t, name, decay, 1, shape);
}
