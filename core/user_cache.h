// core/user_cache.h — small text files posbench keeps between processes to skip work it has
// already done on this machine (bench/run/estimate.c's sgemm rate, datasets/idx.c's list of
// data files whose whole gzip stream was checked). A cache only ever saves time: a result never
// depends on whether it is there.
//
// Where: $POSBENCH_CACHE_DIR if set and not empty, else $XDG_CACHE_HOME/posbench, else
// $HOME/.cache/posbench (created with mode 0700 when missing). No such place: no cache.
// Clearing it (rm -r the directory) is always safe.
//
// Format: the body (text lines) followed by one last line "crc32 XXXXXXXX", zlib's CRC-32 of
// the body's bytes in 8 lower-case hex digits. A file is read through core/safe_file.h (a
// regular file, never a link, at most USER_CACHE_CAP bytes) and its CRC-32 checked before
// anything in it is used; written atomically (safe_write_file), so a reader sees the old file
// or the new one, never a mix. A file that fails the checks is "damaged": the caller names it
// in a warning, ignores it and writes it anew.
#pragma once
#include <stddef.h>

#define USER_CACHE_CAP ((long long)1 << 20) // a cache file is a few hundred bytes to a few KB

// The path of cache file `name` in out (the directory created when missing). 0, or -1 with err
// saying why there is no cache (no HOME, a directory that cannot be created, a path too long).
int user_cache_path(const char *name, char *out, size_t len, char *err, size_t errlen);
// Reads cache file `name`: 1 with the body (malloc'd, NUL-terminated, without the crc32 line)
// in *body and its path in path; 0 when it does not exist (or there is no cache directory);
// -1 when it is damaged (not a regular file, too long, no final crc32 line, CRC-32 mismatch),
// with err naming the path and what is wrong.
int user_cache_read(const char *name, char *path, size_t pathlen, char **body, char *err, size_t errlen);
// Writes body (text; a final newline is added when missing) and its crc32 line to cache file
// `name` atomically. 0, or -1 with err.
int user_cache_write(const char *name, const char *body, char *err, size_t errlen);
