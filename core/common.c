// core/common.c — error exits and messages (escaped: visible_text.h), checked allocation, the
// monotonic clock, thread count.
#include "common.h"
#include "visible_text.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void openblas_set_num_threads(int num_threads); // from OpenBLAS (cblas.h in some versions)

// "posbench: <kind>: <message>\n" with the formatted message escaped as one line; when there is
// no memory to format it, the format string itself (ours, constant) stands in.
static void vreport(const char *kind, const char *fmt, va_list ap) {
    fflush(stdout);
    char *text = NULL;
    int rc = vasprintf(&text, fmt, ap);
    fprintf(stderr, "posbench: %s: ", kind);
    visible_text(stderr, rc >= 0 ? text : fmt, NULL);
    fputc('\n', stderr);
    if (rc >= 0) free(text);
}

void error_msg(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport("error", fmt, ap);
    va_end(ap);
}

void warn_msg(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport("warning", fmt, ap);
    va_end(ap);
}

char *visible_dup(const char *in, const char *also) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) die_fail("out of memory escaping text");
    visible_text(f, in, also);
    if (fclose(f) != 0 || !text) die_fail("out of memory escaping text");
    return text;
}

const char *vis(const char *text) {
    static _Thread_local char *ring[8];
    static _Thread_local int next;
    free(ring[next]);
    ring[next] = visible_dup(text, NULL);
    const char *shown = ring[next];
    next = (next + 1) % 8;
    return shown;
}

static void (*die_hook)(int code);
void set_die_hook(void (*hook)(int code)) { die_hook = hook; }

static _Noreturn void die_exit(int code) {
    if (die_hook) die_hook(code); // e.g. MPI_Abort: the other ranks of the job go down with this one
    exit(code);
}

void die_input(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport("error", fmt, ap);
    va_end(ap);
    die_exit(EXIT_BAD_INPUT);
}

void die_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport("error", fmt, ap);
    va_end(ap);
    die_exit(EXIT_RUN_FAILED);
}

void die_code(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport("error", fmt, ap);
    va_end(ap);
    die_exit(code == EXIT_BAD_INPUT ? EXIT_BAD_INPUT : EXIT_RUN_FAILED);
}

// An allocation larger than the machine's memory is refused up front with what it is for and
// how much it needs (rather than overcommitted and killed when touched); a failing one says so
// in GiB.
static void check_fits(size_t bytes, const char *what) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double have = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
    if (have > 0 && (double)bytes > have)
        die_fail("%s needs %.1f GiB; this machine has %.1f GiB of memory (use a smaller batch, resolution or model)",
                 what, (double)bytes / (1u << 30), have / (1u << 30));
}

static void out_of_memory(size_t bytes, const char *what) {
    die_fail("out of memory: %s needs %.2f GiB (%zu bytes)", what, (double)bytes / (1u << 30), bytes);
}

void *xmalloc(size_t bytes, const char *what) {
    check_fits(bytes, what);
    void *p = malloc(bytes ? bytes : 1);
    if (!p) out_of_memory(bytes, what);
    return p;
}

void *xcalloc(size_t count, size_t size, const char *what) {
    if (size && count > SIZE_MAX / size) die_fail("%s needs %zu x %zu bytes: more than the address space", what, count, size);
    check_fits(count * size, what);
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) out_of_memory(count * size, what);
    return p;
}

void *xrealloc(void *p, size_t bytes, const char *what) {
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) die_fail("out of memory growing %s to %zu bytes", what, bytes);
    return q;
}

void *xmalloc_aligned(size_t bytes, const char *what) {
    if (bytes > SIZE_MAX - 64) die_fail("%s needs %zu bytes: more than the address space", what, bytes);
    check_fits(bytes, what);
    size_t rounded = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded ? rounded : 64);
    if (!p) out_of_memory(bytes, what);
    memset(p, 0, rounded ? rounded : 64);
    return p;
}

void *xmalloc_pages(size_t bytes, const char *what) {
    enum { PAGE = 4096 };
    if (bytes > SIZE_MAX - PAGE) die_fail("%s needs %zu bytes: more than the address space", what, bytes);
    check_fits(bytes, what);
    size_t rounded = bytes ? (bytes + PAGE - 1) / PAGE * PAGE : PAGE;
    void *p = aligned_alloc(PAGE, rounded);
    if (!p) out_of_memory(bytes, what);
    memset(p, 0, rounded);
    return p;
}

char *xstrdup(const char *s, const char *what) {
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n, what);
    memcpy(p, s, n);
    return p;
}

int self_exe_path(char *out, size_t len) {
    if (len < 2) return errno = ENAMETOOLONG, -1;
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n < 0) return -1;
    if (n == 0 || (size_t)n >= len - 1) return errno = ENAMETOOLONG, -1; // empty, or possibly cut
    out[n] = '\0';
    return 0;
}

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long peak_rss_bytes(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

void make_dirs(const char *dir) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) die_input("path too long: %.200s...", dir);
    size_t len = strlen(path);
    for (char *p = path + 1; p <= path + len; p++) {
        if (*p != '/' && *p != 0) continue;
        char saved = *p;
        *p = 0;
        if (mkdir(path, 0755) != 0 && errno != EEXIST) die_input("cannot create directory %s: %s", path, strerror(errno));
        *p = saved;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        die_input("%s is not a directory (it exists as a file; give a directory)", path);
}

static int g_threads = 0;

int posbench_threads(void) {
#ifdef _OPENMP
    return g_threads > 0 ? g_threads : omp_get_max_threads();
#else
    return 1;
#endif
}

void posbench_set_threads(int n) {
    if (n < 1) n = 1;
    g_threads = n;
#ifdef _OPENMP
    omp_set_num_threads(n);
#endif
    openblas_set_num_threads(n);
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_double(double *v, long n) {
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

long parse_int_flag(const char *flag, const char *value, long min, long max) {
    char *end;
    errno = 0;
    long long v = value && *value ? strtoll(value, &end, 10) : 0;
    if (!value || !*value || *end != 0 || errno == ERANGE || v < min || v > max)
        die_input("%s needs an integer in [%ld, %ld] (got '%s')", flag, min, max, value ? value : "");
    return (long)v;
}
