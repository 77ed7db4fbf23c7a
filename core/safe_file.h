// core/safe_file.h — the one rule for every file posbench writes or reads by path.
//
// Writing: a file we write is a regular file in a directory that exists. It is created or
// replaced atomically (a temporary name of its own in the same directory — unique per process
// and per call, so two writers never share one — written, fsync'd, then renamed over the name),
// and never through a symbolic link, a FIFO, a device, a socket or a directory found at its
// name: those are refused naming the path and what it is, and nothing is written (not even as
// root, where a rename over /dev/null would replace the device node). Files kept open and
// updated in place (a run's lock, metrics log, log, partial results) are opened without
// following a link and without blocking, and checked to be regular before the first byte.
//
// Reading: a file we read is opened without blocking (a FIFO never hangs a reader), checked to
// be a regular file (fstat on the open descriptor), and read only when its size is within a cap
// the caller states (a 1 GB file where a few KB are expected is refused, not loaded). Lines are
// read within a cap of their own (safe_read_line).
//
// Every function returns a result code that is also the exit code it calls for: SAFE_OK (0),
// SAFE_IO (1: an I/O failure, e.g. a full disk) or SAFE_REFUSED (2: the path is not a file we
// may write or read), with a one-line message in err naming the path and the reason.
#pragma once
#include <stddef.h>
#include <stdio.h>

enum { SAFE_OK = 0, SAFE_IO = 1, SAFE_REFUSED = 2 };

// Caps on what a reader loads from one file (stated here so every reader uses the same ones).
#define SAFE_TEXT_CAP ((long long)64 << 20) // a text file read whole: experiment YAML, tables, SVG
#define SAFE_LINE_CAP ((size_t)1 << 20)     // one line of a line-oriented file (metrics.jsonl, TSV)

// "a symbolic link", "a FIFO (named pipe)", "a character device", "a directory", ... for a mode.
const char *safe_file_kind(unsigned mode);

// ---------------------------------------------------------------- writing
// May path be written? Its directory exists and is a directory, and path is absent or a
// regular file (a link at path is refused, never followed). SAFE_OK, SAFE_REFUSED or SAFE_IO.
int safe_out_check(const char *path, char *err, size_t errlen);

// One file being written atomically: begin, write to f, commit (or abort).
typedef struct {
    char path[4200]; // the final name
    char tmp[4300];  // "<dir>/.<name>.<pid>.XXXXXX": this writer's own temporary name
    FILE *f;
} safe_out;
// Checks path (safe_out_check) and creates the temporary file (mode 0666 less the umask).
int safe_out_begin(safe_out *o, const char *path, char *err, size_t errlen);
// Flushes, fsyncs and closes f, checks path again and renames the temporary file over it; on
// any failure the temporary file is removed and path is untouched.
int safe_out_commit(safe_out *o, char *err, size_t errlen);
// Closes and removes the temporary file (after a failed write); path is untouched.
void safe_out_abort(safe_out *o);
// begin + write n bytes + commit.
int safe_write_file(const char *path, const void *data, size_t n, char *err, size_t errlen);
// Renames an already complete file tmp (written by another program, e.g. gnuplot) over path
// after checking path as safe_out_check does, and fsyncs it first. On failure tmp is kept (the
// caller removes it, or keeps it when it holds results: a run's .h5.partial).
int safe_rename_over(const char *tmp, const char *path, char *err, size_t errlen);

// Opens path for updating in place (flags: O_WRONLY/O_RDWR, O_CREAT, O_APPEND, O_TRUNC, ...),
// never following a link at path and never blocking; refused unless it is (or is created as) a
// regular file. SAFE_OK with the descriptor (blocking, close-on-exec) in *fd.
int safe_open_update(const char *path, int flags, int *fd, char *err, size_t errlen);
// The same as a stdio stream opened with mode ("a", "r+", "w" — "w" truncates in place).
int safe_fopen_update(const char *path, const char *mode, FILE **f, char *err, size_t errlen);

// Removes a directory tree posbench made for itself (a temporary folder) without following a
// symbolic link inside it (the link is removed, never what it points to) and without starting
// a program. SAFE_OK, or SAFE_IO naming the first entry that could not be removed (the rest is
// still removed).
int safe_remove_tree(const char *dir, char *err, size_t errlen);

// ---------------------------------------------------------------- reading
enum { SAFE_FOLLOW = 0, SAFE_NOFOLLOW = 1 }; // NOFOLLOW: a link at path is refused (files found in a results folder)

// Opens path for reading without blocking; refused unless a regular file of at most cap bytes
// (cap < 0: no cap). SAFE_OK with a blocking descriptor in *fd and the size in *size (may be NULL).
// A missing file is SAFE_IO with errno ENOENT kept in *missing (may be NULL) set to 1.
int safe_open_read(const char *path, long long cap, int follow, int *fd, long long *size, int *missing, char *err,
                   size_t errlen);
// The same as a stdio stream.
int safe_fopen_read(const char *path, long long cap, int follow, FILE **f, int *missing, char *err, size_t errlen);
// Reads the whole file (at most cap bytes) into a new NUL-terminated buffer *text of *n bytes.
int safe_read_file(const char *path, long long cap, int follow, char **text, size_t *n, int *missing, char *err,
                   size_t errlen);
// Checks path is a regular file (a link followed unless NOFOLLOW) of at most cap bytes, by
// opening it as safe_open_read does and closing it: for readers that open the file by name
// through a library (HDF5, libsndfile) after this check.
int safe_check_read(const char *path, long long cap, int follow, int *missing, char *err, size_t errlen);

// One line of f into *line (grown as needed, *cap its size), without the newline: 1 when a line
// was read, 0 at the end of the file, -1 when the line is longer than max bytes (the rest of
// that line is skipped, so the next call reads the line after it).
int safe_read_line(FILE *f, char **line, size_t *cap, size_t max);
