// datasets/data_files.h — the files a run's data comes from: what may be read (regular files
// only, never a FIFO or a device; at most data.max_bytes each, checked before reading) and
// their content fingerprints, recorded in the run file and its checkpoint so that a resume or an
// "already done" run on data changed since is refused naming the file.
// A fingerprint list is text, one line per file (or per folder of WAV clips):
//   file <crc32, 8 hex> <size in bytes> <path>
//   wavs <crc32, 8 hex> <total bytes> <dir>
// crc32 is zlib's CRC-32 of the file's bytes; a `wavs` line's is the CRC-32 of the lines
// "<rel path> <size> <crc32>\n" of every .wav in the Speech Commands folder (word folders and
// _background_noise_, rel paths in byte order: speech_commands_wav_print). Lines are unique
// and kept in the order the files were first noted.
#pragma once
#include <stddef.h>
#include <stdint.h>

#define DATA_MAX_BYTES_DEFAULT 4294967296LL // data.max_bytes' default: 4 GiB

// Every function below that reads a file takes max_bytes, the cap on one data file's size
// (data.max_bytes, passed by the caller in its dataset_options; < 1: DATA_MAX_BYTES_DEFAULT).
long long data_max_bytes_or_default(long long max_bytes);

// path (links followed) must be a regular file of at most max_bytes bytes. what:
// what the file is ("the text file (data.path)"). 0 with *size; -1 with a one-line message in
// err naming the file, its type or size, and what is valid. Never opens the file.
int data_file_check(const char *path, const char *what, long long max_bytes, long long *size, char *err, size_t errlen);
// path must be a directory (links followed): 0, or -1 with err naming what it is instead.
int data_dir_check(const char *path, const char *what, char *err, size_t errlen);
// Size and CRC-32 of a regular file's bytes (opened O_NONBLOCK after data_file_check); cached
// in this process by (device, inode, size, mtime). 0, or -1 with err.
int data_file_crc(const char *path, long long max_bytes, long long *size, uint32_t *crc, char *err, size_t errlen);
// Appends the line (kind "file" or "wavs") to *list (malloc'd text; NULL is empty) unless an
// identical line is there. Exits on out of memory.
void data_prints_add(char **list, const char *kind, uint32_t crc, long long size, const char *path);
// Adds every line of `other` (a list, may be NULL) to *list as data_prints_add does.
void data_prints_merge(char **list, const char *other);
// data_file_crc(path) then data_prints_add(list, "file", ...). 0, or -1 with err.
int data_prints_note(char **list, const char *path, long long max_bytes, char *err, size_t errlen);
// Every line of `a` is in `b` and back. When they differ, 0 and *why names the first file whose
// line differs or is missing ("PATH: size 10 CRC-32 0a1b2c3d when recorded, now size 10
// CRC-32 ffeeddcc"); 1 when equal.
int data_prints_equal(const char *a, const char *b, char *why, size_t whylen);
// Recomputes one non-file line (a `wavs` line: datasets/speech/speech_commands.h's
// speech_commands_wav_print): its size and CRC-32 into *size, *crc; 0, or -1 with err.
typedef int (*data_print_fn)(const char *path, long long max_bytes, long long *size, uint32_t *crc, char *err, size_t errlen);
// Recomputes every line of a recorded list from the files as they are now (a `wavs` line
// through wavs_print, passed by the caller so this file needs no dataset). 1 when all match; 0
// with *why naming the first file that changed, vanished or cannot be read; a malformed line is
// also 0 (*why says so).
int data_prints_verify(const char *recorded, data_print_fn wavs_print, long long max_bytes, char *why, size_t whylen);
