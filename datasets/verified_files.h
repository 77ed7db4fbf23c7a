// datasets/verified_files.h — the data files whose whole gzip stream has been read and found
// intact (its CRC-32 and length checked by zlib), so that a run that uses only the first images
// of a file (data.limit, data.test_limit) may stop decompressing after them and still refuse a
// damaged file.
// Kept in the per-user cache file `verified-data` (core/user_cache.h: checksummed, written
// atomically), one line per file, the file's content fingerprint (datasets/data_files.h):
//   file <CRC-32 of the file's bytes, 8 hex> <size in bytes> <path>
// at most VERIFIED_MAX_LINES lines (the oldest dropped first). A file is taken as verified only
// when the line of its bytes as they are now is listed: changed bytes give another line and the
// file is read whole again. A damaged cache file is named in a warning and rewritten; without a
// cache directory every limited read decompresses the whole file, as an unlimited one does.
#pragma once

#define VERIFIED_MAX_LINES 64

// 1 when the file at path, with its bytes as they are now, is listed as verified; 0 otherwise
// (also when its fingerprint cannot be computed: the caller then reads it whole).
int data_file_verified(const char *path, long long max_bytes);
// Lists the file at path as verified (the caller has just read its whole stream without error).
// A failure to write the cache is a warning: the next run reads the file whole again.
void data_file_mark_verified(const char *path, long long max_bytes);
