// core/cpu/ops_cpu_guarded.c — the guarded CPU backend (`--device cpu-guarded`, for tests):
// the CPU ops, but the memory it hands out can only be reached through its ops and explicit
// copies. Each arena is one memory file mapped twice: the address the caller gets (the
// "backend" view) is PROT_NONE for its whole life, and a second, private read-write view is
// what the ops work on; every op translates its pointer arguments (and an attention_desc's)
// from the first view to the second before calling the CPU backend's function. Host code that
// reads or writes backend memory directly (what would be a bug, or a silent wrong answer, on a
// GPU) faults at the line that did it: the SIGSEGV handler names the arena and prints the
// stack, then the process dies by SIGSEGV. Results are bitwise those of ops_cpu (the same
// functions run on the same bytes), and nothing is re-protected per op, so it costs little.
#include "../ops.h"
#include "../common.h"
#include "../memory_meter.h"
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    char *fenced;        // the caller's view: PROT_NONE
    char *open;          // the ops' view: read-write, same pages
    size_t bytes;        // mapped, a multiple of the page size
    char what[64];
} guarded_region;

static guarded_region *regions;
static int region_count, region_capacity;

static const guarded_region *region_of(const void *p) {
    const char *c = p;
    for (int i = 0; i < region_count; i++)
        if (c >= regions[i].fenced && c < regions[i].fenced + regions[i].bytes) return &regions[i];
    return NULL;
}

// The ops' view of p: p itself when it is host memory (or NULL).
static void *view(const void *p) {
    const guarded_region *r = p ? region_of(p) : NULL;
    return r ? r->open + ((const char *)p - r->fenced) : (void *)p;
}

// The ops' view of an attention_desc: *o, a copy of *d whose pointers are translated.
static const attention_desc *open_desc(const attention_desc *d, attention_desc *o) {
    *o = *d;
    o->kv_index = view(d->kv_index);
    o->bias = view(d->bias);
    o->group = view(d->group);
    return o;
}

// Writes s to stderr with write(2) only (async-signal-safe).
static void say(const char *s) {
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

static void on_fault(int sig, siginfo_t *info, void *ctx) {
    (void)ctx;
    const guarded_region *r = region_of(info->si_addr);
    if (r) {
        char line[320];
        snprintf(line, sizeof line, "posbench: guarded backend: host code touched backend memory '%s' at byte %zu, outside "
                 "an op or an explicit copy (reach it with ops->upload / ops->download); stack:\n", r->what,
                 (size_t)((const char *)info->si_addr - r->fenced));
        say(line);
        void *frames[32];
        backtrace_symbols_fd(frames, backtrace(frames, 32), STDERR_FILENO);
    }
    signal(sig, SIG_DFL); // returning re-executes the access and dies by SIGSEGV
}

static void install_handler(void) {
    static int installed;
    if (installed) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0) die_fail("guarded backend: cannot install the SIGSEGV handler");
    installed = 1;
}

static memory_meter meter; // what the callers asked for (the mappings round up to pages)
static size_t guarded_memory_peak(int reset) { return memory_meter_peak(&meter, reset); }

static void *guarded_alloc(size_t bytes, const char *what) {
    install_handler();
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t mapped = (bytes + page - 1) / page * page;
    if (mapped == 0) mapped = page;
    int fd = memfd_create("posbench-guarded", MFD_CLOEXEC);
    if (fd < 0) die_fail("guarded backend: memfd_create for %s failed", what);
    if (ftruncate(fd, (off_t)mapped) != 0) die_fail("guarded backend: out of memory sizing %zu bytes for %s", bytes, what);
    void *fenced = mmap(NULL, mapped, PROT_NONE, MAP_SHARED, fd, 0);
    void *open = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (fenced == MAP_FAILED || open == MAP_FAILED) die_fail("guarded backend: cannot map %zu bytes for %s", bytes, what);
    if (region_count == region_capacity) {
        region_capacity = region_capacity ? 2 * region_capacity : 64;
        regions = xrealloc(regions, (size_t)region_capacity * sizeof *regions, "guarded regions");
    }
    guarded_region *r = &regions[region_count++];
    r->fenced = fenced;
    r->open = open;
    r->bytes = mapped;
    snprintf(r->what, sizeof r->what, "%s", what ? what : "(unnamed)");
    memory_meter_add(&meter, fenced, bytes);
    return fenced; // a fresh memory file reads as zeros, as ops->alloc promises
}

static void guarded_free(void *p) {
    if (!p) return;
    memory_meter_remove(&meter, p);
    for (int i = 0; i < region_count; i++) {
        if (regions[i].fenced != p) continue;
        if (munmap(regions[i].fenced, regions[i].bytes) != 0 || munmap(regions[i].open, regions[i].bytes) != 0)
            die_fail("guarded backend: munmap of %s failed", regions[i].what);
        regions[i] = regions[--region_count];
        return;
    }
    die_fail("guarded backend: free of a pointer it did not allocate");
}

// Every op and copy of core/ops_list.h but the allocator entries (above): the CPU backend's
// function on the ops' view of each pointer. The list marks them: MEM(x) is a pointer to
// backend memory, DESC(d) an attention_desc (its pointers translated into a copy that lives
// until the wrapper returns). GUARDED_RETURN_<type> says whether the op returns a value; a new
// return type needs its line here.
#define MEM(x) view(x)
#define DESC(d) open_desc((d), &(attention_desc){0})
#define GUARDED_RETURN_void
#define GUARDED_RETURN_double return
#define GUARDED_RETURN_int return
#define GUARDED_RETURN_size_t return
#define OP_ALLOC(ret, op, params, args)
#define OP(ret, op, params, args) \
    static ret guarded_##op params { GUARDED_RETURN_##ret ops_cpu.op args; }
#include "../ops_list.h"

const ops_backend ops_cpu_guarded = {
    .name = "cpu-guarded",
#define OP(ret, op, params, args) .op = guarded_##op,
#include "../ops_list.h"
};
