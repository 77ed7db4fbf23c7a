// core/common.h — error handling, checked allocation and timing shared by every layer.
// Exit codes are a user contract: 0 ok, 1 a run failed, 2 bad input.
#pragma once
#include <stddef.h>
#include <stdint.h>

enum { EXIT_RUN_FAILED = 1, EXIT_BAD_INPUT = 2 };

// Every message below is one line: its text is escaped by core/visible_text.h's rule, so a
// newline, an ESC sequence or invalid UTF-8 in a file name, key or value quoted in it comes out
// as visible \xNN and cannot add a line or drive the terminal.
// Prints "posbench: error: <message>" to stderr and exits with EXIT_BAD_INPUT.
void die_input(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
// Prints "posbench: error: <message>" to stderr and exits with EXIT_RUN_FAILED.
void die_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
// The same with the exit code given: EXIT_BAD_INPUT or EXIT_RUN_FAILED (e.g. core/safe_file.h's
// result codes, which are these exit codes).
void die_code(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

// Print "posbench: error: <message>" / "posbench: warning: <message>" to stderr and return
// (for a caller that ends with its own exit code, or goes on).
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// Text from outside (a path, run id, key, value, a library's or loader's message) made safe for
// any other message: `printf("wrote %s\n", vis(path))`. The result is valid until 8 more vis()
// calls of the same thread (a ring of 8 strings, so one message may quote up to 8).
const char *vis(const char *text);
// visible_text (core/visible_text.h) into a new string (malloc'd; dies when out of memory).
char *visible_dup(const char *in, const char *also);

// Called by die_input / die_fail with the exit code after the message, before exit (NULL: none):
// the communicator (core/comm.h) aborts the whole job there so no other rank waits forever.
void set_die_hook(void (*hook)(int code));

// Allocation that never returns NULL: on failure it names `what` and the size, exit 1.
void *xmalloc(size_t bytes, const char *what);
void *xcalloc(size_t count, size_t size, const char *what);
void *xrealloc(void *p, size_t bytes, const char *what);
// 64-byte aligned, zeroed allocation for arenas (free with free()).
void *xmalloc_aligned(size_t bytes, const char *what);
// Zeroed host memory of whole pages of its own (page-aligned, rounded up to pages), for a buffer
// registered with ops->pin_host: its page-locking never meets another pinned range. free() it
// after ops->unpin_host.
void *xmalloc_pages(size_t bytes, const char *what);
char *xstrdup(const char *s, const char *what);

double now_seconds(void);       // monotonic clock, seconds
// This program's absolute path (/proc/self/exe) into out (len bytes); 0, or -1 with errno set
// when the link cannot be read or does not fit.
int self_exe_path(char *out, size_t len);
double median_double(double *v, long n); // sorts v (n >= 1) in place; the median
long peak_rss_bytes(void);      // this process's peak resident memory (VmHWM), -1 if unknown
// Creates dir and its missing parents (mkdir -p); a failure is bad input (exit 2) naming it.
void make_dirs(const char *dir);
// A command-line integer: the whole text in [min, max] (checked in 64 bits: no wrap-around),
// else bad input (exit 2) naming the flag, the range and the text.
long parse_int_flag(const char *flag, const char *value, long min, long max);
enum { POSBENCH_MAX_THREADS = 1024 };
int posbench_threads(void);     // threads the CPU backend uses (OpenMP)
void posbench_set_threads(int n); // sets OpenMP and OpenBLAS thread counts
