// core/tensor.h — the tensor table and the arenas it lays out.
// A model declares each tensor once (name, shape, weight-decay flag, initialisation). That one table
// decides the arena layout (parameters, gradients and both AdamW moments share it),
// the checkpoint sections, the gradient-check loop and the HDF5 dataset names.
#pragma once
#include <stddef.h>

#define TENSOR_MAX_DIMS 4
#define TENSOR_NAME_MAX 64

typedef struct {
    char name[TENSOR_NAME_MAX];
    int ndim;
    int shape[TENSOR_MAX_DIMS];
    size_t numel;
    size_t offset;   // in floats from the arena base, a multiple of 16 (64 bytes)
    int decay;       // 1: AdamW applies weight decay; 0: biases, norms, cls, position tables
    int init;        // parameters: how the model starts it (models/model.h param_init); 0 otherwise
    float init_bound; // parameters with init INIT_UNIFORM: values ~ U(-init_bound, init_bound)
    int batch_major; // activation gradients: > 0 when the buffer is (batch_major, ...) images first,
                     // so a batch of B uses only its first B/batch_major part; 0 otherwise
    int written;     // activation gradients: 1 when every backward writes (or clears) it before anything
                     // adds to it, so the step's clearing skips it (models/model.h model_grad_written)
} tensor_info;

typedef struct {
    tensor_info *items;
    int count, capacity;
    size_t total;    // floats the arena needs, padding included
} tensor_table;

void tensor_table_init(tensor_table *t);
void tensor_table_free(tensor_table *t);
// Appends a tensor; returns its index. Dies on a duplicate name or a bad shape.
int tensor_table_add(tensor_table *t, const char *name, int decay, int ndim, const int *shape);
// A 1-D tensor of n floats, n checked before it becomes an int shape: more than INT_MAX
// elements ends the process (exit 1) saying how much it needs, never a wrapped size.
int tensor_table_add_flat(tensor_table *t, const char *name, int decay, size_t n);
int tensor_table_find(const tensor_table *t, const char *name); // -1 when absent
size_t tensor_table_numel(const tensor_table *t);               // useful floats, no padding
// Writes "(a, b, c)" into buf.
void tensor_shape_string(const tensor_info *info, char *buf, size_t len);

// An arena is one allocation holding every tensor of a table.
typedef struct {
    float *base;
    size_t floats;
} arena;

void arena_alloc(arena *a, const tensor_table *t, const char *what); // zeroed
void arena_free(arena *a);
static inline float *arena_tensor(const arena *a, const tensor_table *t, int index) {
    return a->base + t->items[index].offset;
}
