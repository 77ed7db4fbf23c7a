// core/tensorfile.h — a flat file of named arrays: checkpoints, oracle dumps, test fixtures.
// Layout (little-endian):
//   "PBTF" u32 version (2; 1 is still read), u32 count, then per entry:
//   u32 name_len, name bytes (no NUL), u32 dtype (0 = f32, 1 = i32, 2 = f64, 3 = u8),
//   u32 ndim, u32 dims[ndim], then the data (product(dims) elements), then (version 2 only)
//   u32 CRC-32 (zlib) of every byte of the entry before it. tf_read verifies every checksum,
//   and refuses trailing bytes and entries larger than what is left of the file.
// NumPy reads it in a few lines (tests/tensorfile.py). Writes go to "<path>.tmp", are
// fsync'ed and renamed, so a crash never leaves a half-written file under the real name.
#pragma once
#include <stddef.h>
#include <stdint.h>

enum { TF_F32 = 0, TF_I32 = 1, TF_F64 = 2, TF_U8 = 3 };
enum { TF_VERSION = 2 }; // what tf_write writes

typedef struct {
    char *name;
    int dtype, ndim;
    int dims[8];
    size_t count;   // elements
    void *data;     // owned
} tf_entry;

typedef struct {
    tf_entry *entries;
    int count, capacity;
    int version;    // as read (1: no checksums; TF_VERSION: every entry checksummed)
} tensorfile;

void tf_init(tensorfile *tf);
void tf_free(tensorfile *tf);
// Copies data in. Dies on bad arguments.
void tf_add(tensorfile *tf, const char *name, int dtype, int ndim, const int *dims, const void *data);
void tf_add_f32(tensorfile *tf, const char *name, const float *data, size_t n);    // 1-D
void tf_add_i64_scalar(tensorfile *tf, const char *name, int64_t value);         // stored as f64
// tf_write writes atomically through core/safe_file.h (a regular file, never through a link or
// device at path): 0, or SAFE_IO (1) / SAFE_REFUSED (2, what sits at path is not a regular file)
// with a message naming the path in err. tf_read reads regular files only: 0 or -1 with err.
int tf_write(const tensorfile *tf, const char *path, char *err, size_t errlen);
int tf_read(tensorfile *tf, const char *path, char *err, size_t errlen);
const tf_entry *tf_find(const tensorfile *tf, const char *name); // NULL when absent
