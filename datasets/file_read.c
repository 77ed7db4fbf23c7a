// datasets/file_read.c — error messages and zlib reads shared by the dataset loaders.
#include "file_read.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define READ_CHUNK ((size_t)1 << 20)

void dataset_set_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

long long dataset_gz_read(gzFile f, uint8_t *dst, size_t want, const char **why, int *cut) {
    size_t got = 0;
    while (got < want) {
        size_t ask = want - got < READ_CHUNK ? want - got : READ_CHUNK;
        int r = gzread(f, dst + got, (unsigned)ask);
        if (r < 0) {
            int errnum = 0;
            const char *msg = gzerror(f, &errnum);
            if (errnum == Z_DATA_ERROR) {
                *why = "the gzip data is corrupt (a checksum or stream error: the file is damaged; fetch it again)";
                return -2;
            }
            *why = errnum == Z_ERRNO ? strerror(errno) : msg;
            return -1;
        }
        if (r == 0) {
            int errnum = 0;
            gzerror(f, &errnum);
            if (errnum == Z_BUF_ERROR) *cut = 1;
            break;
        }
        got += (size_t)r;
    }
    return (long long)got;
}
