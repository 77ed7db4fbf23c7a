// datasets/file_read.h — internal helpers shared by the dataset loaders (idx.c, cifar.c):
// one-line error messages and chunked reads through zlib (gzopen reads plain files as is).
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

// printf into err (nothing when err is NULL or errlen 0).
void dataset_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// Reads up to `want` bytes into dst, at most 1 MiB per gzread. Returns the count read (short
// only at end of data), -2 when the gzip data is corrupt (a CRC or stream error, wherever zlib
// finds it: a small file is checked whole at its first read), or -1 on another zlib/IO error;
// *why says which. A gzip stream cut short sets *cut = 1.
long long dataset_gz_read(gzFile f, uint8_t *dst, size_t want, const char **why, int *cut);
