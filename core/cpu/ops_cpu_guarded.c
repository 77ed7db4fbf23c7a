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

static attention_desc open_desc(const attention_desc *d) {
    attention_desc o = *d;
    o.kv_index = view(d->kv_index);
    o.bias = view(d->bias);
    o.group = view(d->group);
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

// Every op and copy: the CPU backend's function on the ops' view of each pointer (args
// name them through view()).
#define GUARDED(name, params, args) \
    static void guarded_##name params { ops_cpu.name args; }
#define GUARDED_DOUBLE(name, params, args) \
    static double guarded_##name params { return ops_cpu.name args; }

GUARDED(upload, (void *dst, const void *src, size_t bytes), (view(dst), view(src), bytes))
GUARDED(download, (void *dst, const void *src, size_t bytes), (view(dst), view(src), bytes))
GUARDED(copy, (void *dst, const void *src, size_t bytes), (view(dst), view(src), bytes))
GUARDED(synchronize, (void), ())
GUARDED(zero, (float *x, size_t n), (view(x), n))
GUARDED(set_matmul_precision, (int precision), (precision))
GUARDED(linear_forward, (float *out, const float *in, const float *weight, const float *bias, int N, int IC, int OC),
        (view(out), view(in), view(weight), view(bias), N, IC, OC))
GUARDED(linear_backward, (float *din, float *dweight, float *dbias, const float *dout, const float *in,
        const float *weight, int N, int IC, int OC),
        (view(din), view(dweight), view(dbias), view(dout), view(in), view(weight), N, IC, OC))
GUARDED(layernorm_forward, (float *out, float *mean, float *rstd, const float *in, const float *weight,
        const float *bias, int N, int C),
        (view(out), view(mean), view(rstd), view(in), view(weight), view(bias), N, C))
GUARDED(layernorm_backward, (float *din, float *dweight, float *dbias, const float *dout, const float *in,
        const float *weight, const float *mean, const float *rstd, int N, int C),
        (view(din), view(dweight), view(dbias), view(dout), view(in), view(weight), view(mean), view(rstd), N, C))
GUARDED(gelu_forward, (float *out, const float *in, size_t n), (view(out), view(in), n))
GUARDED(gelu_backward, (float *din, const float *dout, const float *in, size_t n), (view(din), view(dout), view(in), n))
GUARDED(residual_forward, (float *out, const float *x, const float *branch, const float *keep_scale, int B, size_t S),
        (view(out), view(x), view(branch), view(keep_scale), B, S))
GUARDED(residual_backward, (float *dx, float *dbranch, const float *dout, const float *keep_scale, int B, size_t S),
        (view(dx), view(dbranch), view(dout), view(keep_scale), B, S))
GUARDED(drop_path_scales, (float *keep_scale, int B, float p, rng_addr addr), (view(keep_scale), B, p, addr))
GUARDED(dropout_forward, (float *out, float *mask, const float *in, size_t n, float p, rng_addr addr),
        (view(out), view(mask), view(in), n, p, addr))
GUARDED(dropout_backward, (float *din, const float *dout, const float *mask, size_t n),
        (view(din), view(dout), view(mask), n))
GUARDED(patchify, (float *patches, const float *images, int B, int Cin, int H, int W, int p),
        (view(patches), view(images), B, Cin, H, W, p))
GUARDED(embed_tokens_forward, (float *x, const float *patch, const float *cls, const float *pos, int B, int N, int C),
        (view(x), view(patch), view(cls), view(pos), B, N, C))
GUARDED(embed_tokens_backward, (float *dpatch, float *dcls, float *dpos, const float *dx, int B, int N, int C,
        int has_cls),
        (view(dpatch), view(dcls), view(dpos), view(dx), B, N, C, has_cls))
GUARDED(gather_tokens_forward, (float *out, const float *in, const int *idx, int B, int T, int M, int C),
        (view(out), view(in), view(idx), B, T, M, C))
GUARDED(gather_tokens_backward, (float *din, const float *dout, const int *idx, int B, int T, int M, int C),
        (view(din), view(dout), view(idx), B, T, M, C))
GUARDED(scatter_tokens_forward, (float *out, const float *in, const int *idx, int B, int T, int M, int C),
        (view(out), view(in), view(idx), B, T, M, C))
GUARDED(scatter_tokens_backward, (float *din, const float *dout, const int *idx, int B, int T, int M, int C),
        (view(din), view(dout), view(idx), B, T, M, C))
GUARDED(qkv_pack_forward, (float *qkv, const float *q, const float *kv, const int *idx, int B, int T, int M, int C),
        (view(qkv), view(q), view(kv), view(idx), B, T, M, C))
GUARDED(qkv_pack_backward, (float *dq, float *dkv, const float *dqkv, const int *idx, int B, int T, int M, int C),
        (view(dq), view(dkv), view(dqkv), view(idx), B, T, M, C))
GUARDED(bias_gather_forward, (float *out, const float *table, const int *index, int H, int E, int K),
        (view(out), view(table), view(index), H, E, K))
GUARDED(bias_gather_backward, (float *dtable, const float *dout, const int *index, int H, int E, int K),
        (view(dtable), view(dout), view(index), H, E, K))
GUARDED(mean_pool_forward, (float *out, const float *in, int B, int T, int C, int t0),
        (view(out), view(in), B, T, C, t0))
GUARDED(mean_pool_backward, (float *din, const float *dout, int B, int T, int C, int t0),
        (view(din), view(dout), B, T, C, t0))
GUARDED(token_mix_forward, (float *out, const float *in, const float *W, const float *bias, int B, int T, int C),
        (view(out), view(in), view(W), view(bias), B, T, C))
GUARDED(token_mix_backward, (float *din, float *dW, float *dbias, const float *dout, const float *in, const float *W, int B,
        int T, int C), (view(din), view(dW), view(dbias), view(dout), view(in), view(W), B, T, C))
GUARDED(gate_forward, (float *out, const float *a, const float *g, size_t n), (view(out), view(a), view(g), n))
GUARDED(gate_backward, (float *da, float *dg, const float *dout, const float *a, const float *g, size_t n),
        (view(da), view(dg), view(dout), view(a), view(g), n))
GUARDED(resize2d_forward, (float *out, const float *in, const float *wy, const float *wx, int P, int H, int W,
        int OH, int OW, int C),
        (view(out), view(in), view(wy), view(wx), P, H, W, OH, OW, C))
GUARDED(resize2d_backward, (float *din, const float *dout, const float *wy, const float *wx, int P, int H, int W,
        int OH, int OW, int C),
        (view(din), view(dout), view(wy), view(wx), P, H, W, OH, OW, C))
static void guarded_attention_forward(float *out, float *probs, const float *qkv, const attention_desc *d) {
    attention_desc od = open_desc(d);
    ops_cpu.attention_forward(view(out), view(probs), view(qkv), &od);
}
static size_t guarded_attention_state_floats(int B, int H, int T, int M) { // sizes only: no memory
    return ops_cpu.attention_state_floats(B, H, T, M);
}
static void guarded_attention_backward(float *dqkv, float *dbias, float *scratch, const float *dout,
                                      const float *qkv, const float *out, const float *probs, const attention_desc *d) {
    attention_desc od = open_desc(d);
    ops_cpu.attention_backward(view(dqkv), view(dbias), view(scratch), view(dout), view(qkv), view(out), view(probs), &od);
}
GUARDED(sincos2d_add, (float *x, const float *px, const float *py, int B, int T, int C, int t0),
        (view(x), view(px), view(py), B, T, C, t0))
GUARDED(sincos1d_add, (float *x, const float *pt, int B, int T, int C, int t0, float freq_scale),
        (view(x), view(pt), B, T, C, t0, freq_scale))
GUARDED(rope_forward, (float *qkv, const float *cos_table, const float *sin_table, int B, int T, int C, int H, int t0),
        (view(qkv), view(cos_table), view(sin_table), B, T, C, H, t0))
GUARDED(rope_backward, (float *dqkv, const float *cos_table, const float *sin_table, int B, int T, int C, int H,
        int t0),
        (view(dqkv), view(cos_table), view(sin_table), B, T, C, H, t0))
GUARDED(softmax_xent_forward, (float *loss, float *probs, const float *logits, const int *target, int N, int K,
        float smoothing),
        (view(loss), view(probs), view(logits), view(target), N, K, smoothing))
GUARDED(softmax_xent_backward, (float *dlogits, const float *probs, const int *target, int N, int K, float smoothing,
        float scale),
        (view(dlogits), view(probs), view(target), N, K, smoothing, scale))
GUARDED(mse_forward, (float *loss, const float *pred, const float *target, int N, int D),
        (view(loss), view(pred), view(target), N, D))
GUARDED(mse_backward, (float *dpred, const float *pred, const float *target, int N, int D, float scale),
        (view(dpred), view(pred), view(target), N, D, scale))
GUARDED_DOUBLE(sum, (const float *x, size_t n), (view(x), n))
GUARDED(class_rank, (int *rank, const float *logits, const int *target, int N, int K),
        (view(rank), view(logits), view(target), N, K))
GUARDED(argmax_rows, (int *index, const float *x, int N, int K), (view(index), view(x), N, K))
GUARDED_DOUBLE(sum_squares, (const float *x, size_t n), (view(x), n))
GUARDED(scale, (float *x, size_t n, float s), (view(x), n, s))
GUARDED(adamw_update, (float *param, const float *grad, float *m, float *v, size_t n, float lr, float beta1,
        float beta2, float eps, float weight_decay, int t),
        (view(param), view(grad), view(m), view(v), n, lr, beta1, beta2, eps, weight_decay, t))

// Every op of core/ops.h must be wrapped here: a new op changes the table's size and stops the build.
_Static_assert(sizeof(ops_backend) == sizeof(const char *) + 56 * sizeof(void (*)(void)),
               "core/ops.h gained or lost an op: wrap it in core/cpu/ops_cpu_guarded.c and update this count");

const ops_backend ops_cpu_guarded = {
    .name = "cpu-guarded",
    .alloc = guarded_alloc,
    .free = guarded_free,
    .upload = guarded_upload,
    .download = guarded_download,
    .copy = guarded_copy,
    .synchronize = guarded_synchronize,
    .memory_peak = guarded_memory_peak,
    .zero = guarded_zero,
    .set_matmul_precision = guarded_set_matmul_precision,
    .linear_forward = guarded_linear_forward,
    .linear_backward = guarded_linear_backward,
    .layernorm_forward = guarded_layernorm_forward,
    .layernorm_backward = guarded_layernorm_backward,
    .gelu_forward = guarded_gelu_forward,
    .gelu_backward = guarded_gelu_backward,
    .residual_forward = guarded_residual_forward,
    .residual_backward = guarded_residual_backward,
    .drop_path_scales = guarded_drop_path_scales,
    .dropout_forward = guarded_dropout_forward,
    .dropout_backward = guarded_dropout_backward,
    .patchify = guarded_patchify,
    .embed_tokens_forward = guarded_embed_tokens_forward,
    .embed_tokens_backward = guarded_embed_tokens_backward,
    .gather_tokens_forward = guarded_gather_tokens_forward,
    .gather_tokens_backward = guarded_gather_tokens_backward,
    .scatter_tokens_forward = guarded_scatter_tokens_forward,
    .scatter_tokens_backward = guarded_scatter_tokens_backward,
    .qkv_pack_forward = guarded_qkv_pack_forward,
    .qkv_pack_backward = guarded_qkv_pack_backward,
    .bias_gather_forward = guarded_bias_gather_forward,
    .bias_gather_backward = guarded_bias_gather_backward,
    .mean_pool_forward = guarded_mean_pool_forward,
    .mean_pool_backward = guarded_mean_pool_backward,
    .token_mix_forward = guarded_token_mix_forward,
    .token_mix_backward = guarded_token_mix_backward,
    .gate_forward = guarded_gate_forward,
    .gate_backward = guarded_gate_backward,
    .resize2d_forward = guarded_resize2d_forward,
    .resize2d_backward = guarded_resize2d_backward,
    .attention_forward = guarded_attention_forward,
    .attention_backward = guarded_attention_backward,
    .attention_state_floats = guarded_attention_state_floats,
    .sincos2d_add = guarded_sincos2d_add,
    .sincos1d_add = guarded_sincos1d_add,
    .rope_forward = guarded_rope_forward,
    .rope_backward = guarded_rope_backward,
    .softmax_xent_forward = guarded_softmax_xent_forward,
    .softmax_xent_backward = guarded_softmax_xent_backward,
    .mse_forward = guarded_mse_forward,
    .mse_backward = guarded_mse_backward,
    .sum = guarded_sum,
    .class_rank = guarded_class_rank,
    .argmax_rows = guarded_argmax_rows,
    .sum_squares = guarded_sum_squares,
    .scale = guarded_scale,
    .adamw_update = guarded_adamw_update,
};
