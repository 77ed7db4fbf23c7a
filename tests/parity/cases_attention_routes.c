// tests/parity/cases_attention_routes.c — parity cases of the CUDA backend's training attention
// routes (attention_desc.keep_probs = 0; the route is the case's POSBENCH_ATTENTION switch,
// core/attention_route.c): the fused fp32 kernels (core/cuda/attention_fused_cuda.cu), the
// materialised bf16 route "route A" (attention_gemm_cuda.cu), cuDNN's flash attention
// (attention_cudnn.cpp) with its fallback, and attention on bf16 storage on the materialised and
// cuDNN routes (attention_bf16_cuda.cu). Against the CPU op from the same inputs: out, dq, dk, dv
// (prefilled: gradients accumulate) and dbias within each route's tolerance; run to run bit for
// bit, the saved state included (repeat = 1). The route-specific facts (pr_require, on cuda):
//  - the route taken is the case's (cuda_attention_route_of), and the size rule picks it: auto
//    under bf16 with T, M <= 1024 is materialised, past it fused unless forced; fp32 is fused;
//  - the saved state has the route's size and nothing past it is written (a sentinel): the row
//    log-sum-exp (B, H, T) for fused and cuDNN, P16 in bf16 with rows padded to 8 keys,
//    ⌈B·H·T·ld / 2⌉ floats, for the materialised route; the fused route's masked rows hold +inf;
//  - the fused route within the forward / gradient tolerance of the probability-keeping kernels;
//  - cuDNN: with libcudnn hidden (POSBENCH_CUDNN_LIB naming a missing file; this case comes first
//    in the process, before the library is loaded) the route says why it is not available and its
//    bits are the materialised route's (twin); a call it cannot express (a key subset) likewise;
//    the row log-sum-exp against the CPU's, formed in double; the cuDNN cases SKIP when the route
//    is not available on the GPU at hand;
//  - bf16 storage under materialised-inplace (qkv16, dout16 read and out16, dqkv16 written in
//    their rows: attention_gemm_cuda.cu's in-place operands): the forward and backward counted as
//    in place (cuda_attention_inplace_calls), T in {1, 7, 65, 197}, hs 32 and 64, 1, 2, 3 and 12
//    heads, with and without GVP's group mask (LT); the exact rule against the fp32 twins (which
//    pack) becomes a tolerance there (cuBLAS sums the strided operands in its own order), and hs
//    12 (heads not 16-byte aligned) is counted as packed and keeps the exact rule.
// On every backend: masked rows (queries that see no key) give zero out and unchanged dq, nothing
// is NaN, and dbias computed alone (dqkv NULL) is dbias's bits. The bf16-storage cases also state
// the exact rule "bf16 op = bf16(fp32 op under bf16)" bit for bit (tests/attention_bf16_cases.c).
// The cuDNN cases run the CPU in fp32 (cpu_fp32: flash attention rounds P where the CPU's bf16
// emulation does not); the materialised ones against the CPU's emulation of their bf16 rounding.
#include "parity.h"
#include "../attention_bf16_cases.h"
#include "../attention_cases.h"
#include "../../core/attention_route.h"
#include "../../core/ops_cuda.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SENTINEL 12345.0f
#define HIDDEN_CUDNN "/nonexistent/posbench-hidden/libcudnn.so.9"

typedef struct {
    parity_tol out, grad;
} route_tols;

// The fused kernels round differently (online softmax, normalisation after P·V) but stay within
// float rounding of the CPU: as tests/parity/cases_attention.c.
static const route_tols FUSED_TOLS = {{1e-6, 1e-5, PARITY_MARK_SAME_ROUTES}, {1e-5, 1e-4, PARITY_MARK_SAME_ROUTES}};
// Route A against the CPU's emulation: the products are of the same bf16 values, so the sums
// differ by fp32 order only, except where a probability or a score gradient sits at a bf16
// rounding tie-break and rounds the other way: one bf16 step of that element (2^-8 relative; an
// output moves by up to 2^-8·|v| = 6e-3 at |v| = 1.5).
static const route_tols GEMM_TOLS = {{8e-3, 1e-2, PARITY_MARK_SAME_ROUTES}, {1e-2, 2e-2, PARITY_MARK_SAME_ROUTES}};
// cuDNN against the CPU in fp32: q, k, v, O, dO and dq, dk, dv rounded to bf16 (2^-8 relative
// each) and P inside the flash kernel; inputs in ±1 keep scores small (the plan's bf16
// tolerances, twice for the gradients, which pass through three more roundings).
static const route_tols CUDNN_TOLS = {{1e-2, 1e-2, PARITY_MARK_SAME_ROUTES}, {2e-2, 2e-2, PARITY_MARK_SAME_ROUTES}};
static const parity_tol LSE_TOL = {2e-2, 1e-2, 0};

// fp32 training shapes, the fused route (qkv in ±1.5, key subsets drawn at 93)
static const attention_case FUSED[] = {
    // label                                  B   T    C    H   M    kv           bias mode            tag
    {"T=1, M=1, hs=8",                         2, 1,   16,  2,  1,   KV_ALL,      1, ATTN_MASK_NONE, 300},
    {"T=17, hs=8",                             2, 17,  32,  4,  17,  KV_ALL,      0, ATTN_MASK_NONE, 310},
    {"T=33, hs=24",                            3, 33,  72,  3,  33,  KV_ALL,      0, ATTN_MASK_NONE, 320},
    {"T=65, hs=40",                            2, 65,  80,  2,  65,  KV_ALL,      0, ATTN_MASK_NONE, 330},
    {"T=197, hs=64 (ViT-B/16)",                2, 197, 384, 6,  197, KV_ALL,      0, ATTN_MASK_NONE, 340},
    {"T=33, hs=128",                           2, 33,  256, 2,  33,  KV_ALL,      0, ATTN_MASK_NONE, 350},
    {"bias, T=401, hs=128",                    1, 401, 256, 2,  401, KV_ALL,      1, ATTN_MASK_NONE, 360},
    {"bias, T=50, hs=32",                      3, 50,  64,  2,  50,  KV_ALL,      1, ATTN_MASK_NONE, 370},
    {"kv M=1 no cls, T=9",                     2, 9,   32,  2,  1,   KV_NO_CLS,   0, ATTN_MASK_NONE, 380},
    {"kv M=20 no cls, T=50",                   2, 50,  64,  4,  20,  KV_NO_CLS,   0, ATTN_MASK_NONE, 390},
    {"kv M=33 with cls, T=65, hs=64",          3, 65,  128, 2,  33,  KV_WITH_CLS, 0, ATTN_MASK_NONE, 400},
    {"kv M=59 with cls, T=197, hs=64 (MP3)",   2, 197, 768, 12, 59,  KV_WITH_CLS, 0, ATTN_MASK_NONE, 410},
    {"kv + bias, M=40, T=65",                  2, 65,  64,  2,  40,  KV_WITH_CLS, 1, ATTN_MASK_NONE, 420},
    {"group LT, T=33",                         2, 33,  64,  4,  33,  KV_ALL,      0, ATTN_MASK_LT,   430},
    {"group LE, kv M=16, T=33",                2, 33,  64,  4,  16,  KV_NO_CLS,   0, ATTN_MASK_LE,   440},
    {"group LT + bias, T=70, hs=128",          1, 70,  128, 1,  70,  KV_ALL,      1, ATTN_MASK_LT,   450},
    {"kv + bias + group LE, T=37, hs=24",      2, 37,  72,  3,  24,  KV_NO_CLS,   1, ATTN_MASK_LE,   460},
    {"kv + bias + group LT, T=197, hs=64",     2, 197, 384, 6,  49,  KV_WITH_CLS, 1, ATTN_MASK_LT,   470},
    {"kv + bias + group LT, T=70, hs=128",     1, 70,  128, 1,  45,  KV_WITH_CLS, 1, ATTN_MASK_LT,   480},
};

// bf16 training shapes, the materialised route (the same draws as FUSED where the shapes agree)
static const attention_case GEMM[] = {
    // label                                  B   T    C    H   M    kv           bias mode            tag
    {"T=1, M=1, hs=8",                         2, 1,   16,  2,  1,   KV_ALL,      1, ATTN_MASK_NONE, 300},
    {"T=17, hs=8",                             2, 17,  32,  4,  17,  KV_ALL,      0, ATTN_MASK_NONE, 310},
    {"T=33, hs=24",                            3, 33,  72,  3,  33,  KV_ALL,      0, ATTN_MASK_NONE, 320},
    {"T=65, hs=40",                            2, 65,  80,  2,  65,  KV_ALL,      0, ATTN_MASK_NONE, 330},
    {"T=197, hs=64 (ViT-B/16)",                2, 197, 384, 6,  197, KV_ALL,      0, ATTN_MASK_NONE, 340},
    {"T=65, hs=256",                           2, 65,  512, 2,  65,  KV_ALL,      0, ATTN_MASK_NONE, 350},
    {"bias, T=401, hs=128",                    1, 401, 256, 2,  401, KV_ALL,      1, ATTN_MASK_NONE, 360},
    {"bias, T=50, hs=32",                      3, 50,  64,  2,  50,  KV_ALL,      1, ATTN_MASK_NONE, 370},
    {"kv M=1 no cls, T=9",                     2, 9,   32,  2,  1,   KV_NO_CLS,   0, ATTN_MASK_NONE, 380},
    {"kv M=20 no cls, T=50",                   2, 50,  64,  4,  20,  KV_NO_CLS,   0, ATTN_MASK_NONE, 390},
    {"kv M=33 with cls, T=65, hs=64",          3, 65,  128, 2,  33,  KV_WITH_CLS, 0, ATTN_MASK_NONE, 400},
    {"kv M=59 with cls, T=197, hs=64 (MP3)",   2, 197, 768, 12, 59,  KV_WITH_CLS, 0, ATTN_MASK_NONE, 410},
    {"kv + bias, M=40, T=65",                  2, 65,  64,  2,  40,  KV_WITH_CLS, 1, ATTN_MASK_NONE, 420},
    {"group LT, T=33",                         2, 33,  64,  4,  33,  KV_ALL,      0, ATTN_MASK_LT,   430},
    {"group LE, kv M=16, T=33",                2, 33,  64,  4,  16,  KV_NO_CLS,   0, ATTN_MASK_LE,   440},
    {"group LT + bias, T=70, hs=128",          1, 70,  128, 1,  70,  KV_ALL,      1, ATTN_MASK_LT,   450},
    {"kv + bias + group LE, T=37, hs=24",      2, 37,  72,  3,  24,  KV_NO_CLS,   1, ATTN_MASK_LE,   460},
    {"kv + bias + group LT, T=197, hs=64",     2, 197, 384, 6,  49,  KV_WITH_CLS, 1, ATTN_MASK_LT,   470},
    {"T=1100 past the size rule, forced, hs=64", 1, 1100, 128, 2, 1100, KV_ALL,   0, ATTN_MASK_NONE, 490},
    // the scalar pack / unpack (hs not a multiple of 4), the memory softmax (M > 512 keys),
    // and more (image, head) pairs than the grid's y dimension holds
    {"hs=6 (scalar pack), T=29, kv M=11",      2, 29,  12,  2,  11,  KV_WITH_CLS, 1, ATTN_MASK_NONE, 500},
    {"T=600 (M > 512: softmax from memory)",   1, 600, 64,  2,  600, KV_ALL,      0, ATTN_MASK_NONE, 510},
    {"B·H = 65544 pairs past grid y, T=2",     5462, 2, 24, 12, 2,   KV_ALL,      0, ATTN_MASK_NONE, 520},
};

// bf16 shapes cuDNN expresses (qkv in ±1, draws at 97); the first two take the materialised
// route: libcudnn hidden, and a key subset cuDNN cannot express
static const attention_case CUDNN[] = {
    // label                               B    T    C    H   M    kv           bias mode            tag
    {"libcudnn hidden, T=65, hs=32",        2,   65,  64,  2,  65,  KV_ALL,      0, ATTN_MASK_NONE, 600},
    {"kv M=33 with cls, T=65, hs=64",       3,   65,  128, 2,  33,  KV_WITH_CLS, 0, ATTN_MASK_NONE, 610},
    {"T=1, hs=32",                          2,   1,   64,  2,  1,   KV_ALL,      0, ATTN_MASK_NONE, 620},
    {"T=7, hs=32",                          3,   7,   96,  3,  7,   KV_ALL,      0, ATTN_MASK_NONE, 630},
    {"T=7, hs=64",                          2,   7,   128, 2,  7,   KV_ALL,      0, ATTN_MASK_NONE, 640},
    {"T=65, hs=32",                         2,   65,  64,  2,  65,  KV_ALL,      0, ATTN_MASK_NONE, 650},
    {"T=65, hs=64",                         3,   65,  256, 4,  65,  KV_ALL,      0, ATTN_MASK_NONE, 660},
    {"T=197, hs=64 (ViT-B/16 heads)",       4,   197, 768, 12, 197, KV_ALL,      0, ATTN_MASK_NONE, 670},
    {"T=197, hs=32",                        2,   197, 128, 4,  197, KV_ALL,      0, ATTN_MASK_NONE, 680},
    {"T=257, hs=64",                        2,   257, 256, 4,  257, KV_ALL,      0, ATTN_MASK_NONE, 690},
    {"T=257, hs=32",                        2,   257, 96,  3,  257, KV_ALL,      0, ATTN_MASK_NONE, 700},
    {"B·H=1536, T=65, hs=32",               96,  65,  512, 16, 65,  KV_ALL,      0, ATTN_MASK_NONE, 710},
    {"B·H=1536, T=197, hs=64 (ViT-B/16 b128)", 128, 197, 768, 12, 197, KV_ALL,   0, ATTN_MASK_NONE, 720},
};

enum { TABLE_FUSED, TABLE_GEMM, TABLE_CUDNN };

static int on_cuda(parity_run *r) { return !strcmp(pr_ops(r)->name, "cuda"); }

// A fact stated with a formatted text (pr_require keeps the text of the first that fails).
static void require_f(parity_run *r, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void require_f(parity_run *r, int ok, const char *fmt, ...) {
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pr_require(r, text, ok);
}

// On cuda: the route d takes is `want` (an attention_route).
static void require_route(parity_run *r, const attention_desc *d, int want) {
    if (!on_cuda(r)) return;
    int got = cuda_attention_route_of(d);
    require_f(r, got == want, "the route taken is %s (took %s%s)", attention_route_name((attention_route)want),
              got >= 0 ? attention_route_name((attention_route)got) : "none",
              want == ATTN_ROUTE_CUDNN ? "; cuDNN's reason is on stderr" : "");
}

// On cuda with the cuDNN route wanted: a SKIP line when it is not available; 1 when skipped.
static int skip_without_cudnn(parity_run *r, int want) {
    char why[300];
    if (!on_cuda(r) || want != ATTN_ROUTE_CUDNN || cuda_attention_cudnn_available(why, sizeof why)) return 0;
    char text[340];
    snprintf(text, sizeof text, "the cuDNN route is not available: %s", why);
    pr_skip(r, text);
    return 1;
}

// Row log-sum-exp (B, H, T) of the scaled scores q·k/sqrt(hs), all keys, in double on the host.
static void host_lse(const attention_case *cf, const float *qkv, float *lse) {
    const int B = cf->B, T = cf->T, C = cf->C, H = cf->H, hs = C / H;
    const double scale = 1.0 / sqrt((double)hs);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++) {
                const float *q = qkv + ((size_t)b * T + i) * 3 * C + h * hs;
                double mx = -INFINITY, sum = 0;
                for (int pass = 0; pass < 2; pass++)
                    for (int j = 0; j < T; j++) {
                        const float *k = qkv + ((size_t)b * T + j) * 3 * C + C + h * hs;
                        double dot = 0;
                        for (int c = 0; c < hs; c++) dot += (double)q[c] * k[c];
                        if (pass == 0 && scale * dot > mx) mx = scale * dot;
                        if (pass == 1) sum += exp(scale * dot - mx);
                    }
                lse[((size_t)b * H + h) * T + i] = (float)(mx + log(sum));
            }
}

// p: table (TABLE_*), index, the route wanted (attention_route), 1 for the hidden-library case.
static void training_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    const attention_case *cf = p[0] == TABLE_FUSED ? &FUSED[p[1]] : p[0] == TABLE_GEMM ? &GEMM[p[1]] : &CUDNN[p[1]];
    const route_tols *tol = p[0] == TABLE_FUSED ? &FUSED_TOLS : p[0] == TABLE_GEMM ? &GEMM_TOLS : &CUDNN_TOLS;
    const int want = p[2], B = cf->B, T = cf->T, C = cf->C, H = cf->H, M = cf->M;
    if (p[3] && on_cuda(r) && cuda_attention_route() == CUDA_ATTN_CUDNN) { // the hidden library
        char why[512];
        int available = cuda_attention_cudnn_available(why, sizeof why);
        require_f(r, !available && (strstr(why, "cannot load " HIDDEN_CUDNN) || strstr(why, "not compiled in")),
                  "cuDNN hidden: not available, and says why (available %d: %.120s)", available, why);
    } else if (skip_without_cudnn(r, want)) {
        return;
    }
    attention_inputs in;
    attention_inputs_make(&in, cf, p[0] == TABLE_CUDNN ? 1.0f : 1.5f, p[0] == TABLE_CUDNN ? 97 : 93, 0);
    attention_desc d = in.desc;
    float *qkv = pr_in_host(r, in.qkv, in.n_qkv), *dout = pr_in_host(r, in.dout, in.n_out);
    float *dqkv = pr_in_host(r, in.dqkv0, in.n_qkv);
    float *dbias = cf->bias ? pr_in_host(r, in.dbias0, in.n_bias) : NULL;
    float *dbias_alone = cf->bias ? pr_in_host(r, in.dbias0, in.n_bias) : NULL;
    float *scratch = cf->bias ? pr_buf(r, in.n_probs * sizeof(float)) : NULL;
    d.kv_index = in.kv ? pr_in_ints(r, in.kv, (size_t)B * M) : NULL;
    d.group = in.group ? pr_in_ints(r, in.group, (size_t)B * T) : NULL;
    d.bias = cf->bias ? pr_in_host(r, in.bias, in.n_bias) : NULL;
    require_route(r, &d, want);

    // The saved state in a sentinel-filled buffer that any route's state fits in.
    const size_t n_lse = (size_t)B * H * T, n_p16 = ((size_t)B * H * T * (size_t)((M + 7) / 8 * 8) + 1) / 2;
    const size_t n_state = o->attention_state_floats(B, H, T, M, C, attention_desc_uses(&d));
    size_t n_alloc = in.n_probs;
    if (n_state > n_alloc) n_alloc = n_state;
    if (n_p16 > n_alloc) n_alloc = n_p16;
    float *sentinel = pr_host(r, n_alloc * sizeof(float));
    for (size_t e = 0; e < n_alloc; e++) sentinel[e] = SENTINEL;
    float *state = pr_in_host(r, sentinel, n_alloc), *out = pr_buf(r, in.n_out * sizeof(float));
    o->attention_forward(out, state, qkv, &d);
    o->attention_backward(dqkv, dbias, scratch, dout, qkv, out, state, &d);
    if (cf->bias) o->attention_backward(NULL, dbias_alone, scratch, dout, qkv, out, state, &d);

    // The outputs, against the CPU's.
    pr_out(r, "out", out, in.n_out, tol->out);
    float *g = pr_host(r, in.n_qkv * sizeof(float)), *part = pr_host(r, (size_t)B * T * C * sizeof(float));
    o->download(g, dqkv, in.n_qkv * sizeof(float));
    static const char *const PART_NAMES[3] = {"dq +=", "dk +=", "dv +="};
    for (int k = 0; k < 3; k++) {
        for (size_t t = 0; t < (size_t)B * T; t++) memcpy(part + t * C, g + t * 3 * C + (size_t)k * C, (size_t)C * sizeof(float));
        pr_out_host(r, PART_NAMES[k], part, (size_t)B * T * C, tol->grad);
    }
    if (cf->bias) {
        pr_out(r, "dbias +=", dbias, in.n_bias, tol->grad);
        pr_require_near(r, "dbias alone (dqkv NULL) is dbias's bits", dbias, dbias_alone, in.n_bias, PARITY_BITWISE);
    }
    // The saved state in the backend's own form: the CPU's probabilities, the route's state on cuda.
    const int lse_route = want == ATTN_ROUTE_FUSED || want == ATTN_ROUTE_CUDNN;
    const size_t n_route = !on_cuda(r) ? in.n_probs : lse_route ? n_lse : n_p16;
    pr_out(r, "saved state (the backend's own)", state, n_route, PARITY_SAME_ROUTES(PARITY_OWN));
    float *st = pr_host(r, n_alloc * sizeof(float));
    o->download(st, state, n_alloc * sizeof(float));
    if (p[0] == TABLE_CUDNN && want == ATTN_ROUTE_CUDNN) { // the row log-sum-exp, formed in double on the CPU
        float *lse = pr_host(r, n_lse * sizeof(float));
        if (on_cuda(r)) memcpy(lse, st, n_lse * sizeof(float));
        else host_lse(cf, in.qkv, lse);
        pr_out_host(r, "row log-sum-exp", lse, n_lse, LSE_TOL);
    }
    if (on_cuda(r)) {
        size_t touched = 0;
        for (size_t e = n_route; e < n_alloc; e++) touched += memcmp(&st[e], &sentinel[e], sizeof(float)) != 0;
        require_f(r, touched == 0, "the saved state is %s, %zu floats, nothing past it written (%zu of %zu were)",
                  lse_route ? "the row lse (B, H, T)" : "P16 with rows padded to 8, ceil(B·H·T·ld/2)", n_route, touched,
                  n_alloc - n_route);
        if (want == ATTN_ROUTE_MATERIALISED)
            require_f(r, n_state == n_p16, "attention_state_floats is P16's %zu floats (got %zu)", n_p16, n_state);
        else
            require_f(r, n_state >= n_lse, "attention_state_floats holds the lse's %zu floats (got %zu)", n_lse, n_state);
    }

    // Masked rows and NaN, on every backend; the fused route's masked rows hold lse = +inf.
    float *oh = pr_host(r, in.n_out * sizeof(float));
    o->download(oh, out, in.n_out * sizeof(float));
    size_t nan = 0, bad = 0, inf_bad = 0;
    int empty = 0;
    for (size_t e = 0; e < in.n_out; e++) nan += isnan(oh[e]) != 0;
    for (size_t e = 0; e < in.n_qkv; e++) nan += isnan(g[e]) != 0;
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++) {
            if (attention_case_visible_keys(cf, in.kv, in.group, b, i) > 0) continue;
            empty++;
            for (int c = 0; c < C; c++) {
                bad += oh[((size_t)b * T + i) * C + c] != 0.0f;
                size_t q = ((size_t)b * T + i) * 3 * C + c;
                bad += memcmp(&g[q], &in.dqkv0[q], sizeof(float)) != 0;
            }
            if (on_cuda(r) && want == ATTN_ROUTE_FUSED)
                for (int h = 0; h < H; h++) {
                    float l = st[((size_t)b * H + h) * T + i];
                    inf_bad += !(isinf(l) && l > 0);
                }
        }
    require_f(r, (cf->mode == ATTN_MASK_NONE || empty > 0) && bad == 0 && nan == 0 && inf_bad == 0,
              "masked rows: %d queries see no key%s; %zu nonzero out / changed dq, %zu lse not +inf, %zu NaN", empty,
              cf->mode != ATTN_MASK_NONE ? " (the case must hold some)" : "", bad, inf_bad, nan);

    // The fused route against the probability-keeping kernels on the same GPU.
    if (on_cuda(r) && want == ATTN_ROUTE_FUSED) {
        attention_desc dp = d;
        dp.keep_probs = 1;
        float *probs = pr_buf(r, in.n_probs * sizeof(float)), *out_p = pr_buf(r, in.n_out * sizeof(float));
        float *dqkv_p = pr_in_host(r, in.dqkv0, in.n_qkv), *dbias_p = cf->bias ? pr_in_host(r, in.dbias0, in.n_bias) : NULL;
        o->attention_forward(out_p, probs, qkv, &dp);
        o->attention_backward(dqkv_p, dbias_p, scratch, dout, qkv, out_p, probs, &dp);
        pr_require_near(r, "out within tolerance of the probability-keeping kernels", out, out_p, in.n_out, tol->out);
        pr_require_near(r, "dqkv within tolerance of the probability-keeping kernels", dqkv, dqkv_p, in.n_qkv, tol->grad);
        if (cf->bias)
            pr_require_near(r, "dbias within tolerance of the probability-keeping kernels", dbias, dbias_p, in.n_bias,
                            tol->grad);
    }
    attention_inputs_free(&in);
}

// The size rule alone: which route and state size attention_state_floats answers (no call made).
// p: B, H, T, M, the route wanted.
static void rule_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    const int B = p[0], H = p[1], T = p[2], M = p[3], want = p[4];
    attention_desc d = {.B = B, .T = T, .C = 64 * H, .H = H, .M = M, .mask_mode = ATTN_MASK_NONE};
    size_t n = o->attention_state_floats(B, H, T, M, d.C, 0), lse = (size_t)B * H * T;
    size_t p16 = ((size_t)B * H * T * (size_t)((M + 7) / 8 * 8) + 1) / 2;
    if (!on_cuda(r)) {
        require_f(r, n == (size_t)B * H * T * M, "the CPU keeps the probabilities, B·H·T·M floats (got %zu)", n);
        return;
    }
    require_route(r, &d, want);
    size_t expect = want == ATTN_ROUTE_MATERIALISED ? p16 : lse;
    require_f(r, n == expect, "attention_state_floats is %s's %zu floats (got %zu)",
              attention_route_name((attention_route)want), expect, n);
}

// Attention on bf16 storage on one route. p: T, hs, the route wanted, the inputs' draw, the mask
// mode, the in-place calls of the bf16 forward and backward on cuda (-1: the setting has none),
// the heads.
static void bf16_storage_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    const int T = p[0], hs = p[1], want = p[2], mask = p[4], inplace = p[5], H = p[6];
    if (skip_without_cudnn(r, want)) return;
    attention_bf16_case c = {.B = 2, .T = T, .H = H, .hs = hs, .mask_mode = mask, .tag = (unsigned)p[3]};
    attention_desc d = {.B = 2, .T = T, .C = H * hs, .H = H, .M = T, .mask_mode = mask};
    require_route(r, &d, want); // under the case's bf16, before the runs set fp32 back
    const long calls_before = cuda_attention_inplace_calls();
    attention_bf16_outputs ops16 = attention_bf16_run(o, &c, 0);
    const long calls = cuda_attention_inplace_calls() - calls_before;
    attention_bf16_outputs twins = attention_bf16_run(o, &c, 1);
    char why[200];
    if (on_cuda(r) && inplace >= 0)
        require_f(r, calls == inplace, "%d of the bf16 forward and backward read their operands in place (%ld did)", inplace,
                  calls);
    if (on_cuda(r) && inplace > 0) { // in place: cuBLAS's own sums over strided operands, within bf16 rounding
        size_t bad = attention_bf16_compare(&ops16, &twins, 2e-2, 2e-2, why, sizeof why);
        require_f(r, bad == 0, "in place: bf16 ops within 2e-2 + 2e-2·|twin| + one bf16 step of the packed fp32 twins: %s",
                  why);
    } else {
        size_t bad = attention_bf16_compare(&ops16, &twins, -1, 0, why, sizeof why);
        require_f(r, bad == 0, "bf16 ops = bf16(fp32 op under bf16) bit for bit, saved state too: %s", why);
    }
    parity_tol t = {2e-2, 2e-2 + 1.0 / 128, 0};
    pr_out_host_bf16(r, "out16", ops16.out16, ops16.n_out, t);
    pr_out_host_bf16(r, "dqkv16 (written)", ops16.dqkv16, ops16.n_qkv, t);
    pr_out_host(r, "saved state (the backend's own)", ops16.state, ops16.n_state, PARITY_OWN);
    attention_bf16_outputs_free(&twins);
    attention_bf16_outputs_free(&ops16);
}

// A NaN query (q of token 0, head 0) makes every score of that row NaN; max scans that skip NaN
// (fmaxf, `>`) find no finite score there, the path of a fully masked row. On every backend the
// row must come out NaN (as torch's softmax), never the zeros of a masked row, and every other
// row finite. Checked per backend (NaN cannot be compared against the CPU's values).
// p: the route wanted (fused or materialised; -1: the probability-keeping kernels, keep_probs 1).
static void nan_query_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    const int B = 1, H = 2, T = 7, hs = 32, C = H * hs, want = p[0];
    attention_desc d = {.B = B, .T = T, .C = C, .H = H, .M = T, .mask_mode = ATTN_MASK_NONE, .keep_probs = want < 0};
    if (want >= 0) require_route(r, &d, want);
    const size_t n_qkv = (size_t)B * T * 3 * C, n_out = (size_t)B * T * C, n_probs = (size_t)B * H * T * T;
    size_t n_state = o->attention_state_floats(B, H, T, T, C, 0);
    if (n_state < n_probs) n_state = n_probs;
    float *host = pr_host(r, n_qkv * sizeof(float));
    for (size_t e = 0; e < n_qkv; e++) host[e] = 0.5f * sinf(0.37f * (float)e);
    host[0] = NAN;
    float *qkv = pr_in_host(r, host, n_qkv), *out = pr_buf(r, n_out * sizeof(float));
    float *state = pr_buf(r, n_state * sizeof(float));
    o->attention_forward(out, state, qkv, &d);
    float *oh = pr_host(r, n_out * sizeof(float));
    o->download(oh, out, n_out * sizeof(float));
    size_t nan_row = 0, other_bad = 0;
    for (size_t e = 0; e < n_out; e++) {
        if (e < (size_t)hs) nan_row += isnan(oh[e]) != 0;
        else other_bad += !isfinite(oh[e]);
    }
    require_f(r, nan_row == (size_t)hs && other_bad == 0,
              "a NaN query's row is NaN (%zu of %d), every other output finite (%zu are not)", nan_row, hs, other_bad);
}

#define OPS "attention_forward attention_backward attention_state_floats"
#define AUTO "POSBENCH_ATTENTION=auto"
#define ROUTE_A "POSBENCH_ATTENTION=materialised"
#define CUDNN_SET "POSBENCH_ATTENTION=cudnn"
#define FUSED_CASE(k, ...)                                                                                            \
    {OPS, "fused: " #k, training_case, {TABLE_FUSED, k, ATTN_ROUTE_FUSED}, .repeat = 1, .cuda = AUTO, __VA_ARGS__}
#define GEMM_CASE(k, route, ...)                                                                                      \
    {OPS, "materialised: " #k, training_case, {TABLE_GEMM, k, ATTN_ROUTE_MATERIALISED}, .precision = MATMUL_BF16,   \
     .repeat = 1, .cuda = route, __VA_ARGS__}
#define CUDNN_CASE(k, ...)                                                                                            \
    {OPS, "cudnn: " #k, training_case, {TABLE_CUDNN, k, ATTN_ROUTE_CUDNN}, .precision = MATMUL_BF16, .cpu_fp32 = 1,   \
     .repeat = 1, .cuda = CUDNN_SET, __VA_ARGS__}
#define RULE(B, H, T, M, want, prec, route)                                                                           \
    {"attention_state_floats", "size rule: B " #B ", H " #H ", T " #T ", M " #M ", " #prec ", " route, rule_case,     \
     {B, H, T, M, want}, .precision = prec, .cuda = route}
#define BF16_STORAGE(T, hs, want, route, tag)                                                                         \
    {"attention_forward_bf16 attention_backward_bf16", "bf16 storage on " route ": B 2, T " #T ", H 2, hs " #hs,      \
     bf16_storage_case, {T, hs, want, tag, ATTN_MASK_NONE, -1, 2}, .precision = MATMUL_BF16, .repeat = 1, .cuda = route}
#define INPLACE_SET "POSBENCH_ATTENTION=materialised-inplace"
#define BF16_INPLACE(T, hs, H, mask, calls, tag)                                                                      \
    {"attention_forward_bf16 attention_backward_bf16",                                                               \
     "bf16 storage in place (materialised-inplace): B 2, T " #T ", H " #H ", hs " #hs ", mask " #mask,                \
     bf16_storage_case, {T, hs, ATTN_ROUTE_MATERIALISED, tag, mask, calls, H}, .precision = MATMUL_BF16, .repeat = 1,  \
     .cuda = INPLACE_SET}
#define BF16_BOTH(T, hs, tag)                                                                                         \
    BF16_STORAGE(T, hs, ATTN_ROUTE_MATERIALISED, ROUTE_A, tag), BF16_STORAGE(T, hs, ATTN_ROUTE_CUDNN, CUDNN_SET, tag)
#define NAN_QUERY(label, want, prec, route)                                                                           \
    {"attention_forward", "NaN query row stays NaN: " label, nan_query_case, {want}, .precision = prec, .cuda = route}

const parity_case parity_cases_attention_routes[] = {
    // First: libcudnn hidden before anything loads it (a loaded library stays loaded).
    {OPS, "cudnn: libcudnn hidden, the materialised route's bits", training_case, {TABLE_CUDNN, 0, ATTN_ROUTE_MATERIALISED, 1},
     .precision = MATMUL_BF16, .repeat = 1, .cuda = CUDNN_SET " POSBENCH_CUDNN_LIB=" HIDDEN_CUDNN, .twin = ROUTE_A},
    {OPS, "cudnn: a key subset it cannot express, the materialised route's bits", training_case,
     {TABLE_CUDNN, 1, ATTN_ROUTE_MATERIALISED}, .precision = MATMUL_BF16, .repeat = 1, .cuda = CUDNN_SET, .twin = ROUTE_A},
    RULE(2, 3, 197, 197, ATTN_ROUTE_FUSED, MATMUL_FP32, AUTO),
    RULE(2, 3, 197, 197, ATTN_ROUTE_MATERIALISED, MATMUL_BF16, AUTO),
    RULE(1, 1, 2048, 2048, ATTN_ROUTE_FUSED, MATMUL_BF16, AUTO),
    RULE(1, 1, 2048, 2048, ATTN_ROUTE_MATERIALISED, MATMUL_BF16, ROUTE_A),
    RULE(2, 3, 197, 197, ATTN_ROUTE_FUSED, MATMUL_BF16, "POSBENCH_ATTENTION=fused"),
    // .large: the longest rows and the grid-y case run against cuda only (their CPU references are
    // the bulk of this family's time; tests/parity/cases_attention.c runs T=401 on the CPU)
    FUSED_CASE(0), FUSED_CASE(1), FUSED_CASE(2), FUSED_CASE(3), FUSED_CASE(4), FUSED_CASE(5), FUSED_CASE(6, .large = 1),
    FUSED_CASE(7), FUSED_CASE(8), FUSED_CASE(9), FUSED_CASE(10), FUSED_CASE(11), FUSED_CASE(12), FUSED_CASE(13),
    FUSED_CASE(14), FUSED_CASE(15), FUSED_CASE(16), FUSED_CASE(17), FUSED_CASE(18),
    GEMM_CASE(0, AUTO), GEMM_CASE(1, AUTO), GEMM_CASE(2, AUTO), GEMM_CASE(3, AUTO), GEMM_CASE(4, AUTO),
    GEMM_CASE(5, AUTO), GEMM_CASE(6, AUTO, .large = 1), GEMM_CASE(7, AUTO), GEMM_CASE(8, AUTO), GEMM_CASE(9, AUTO),
    GEMM_CASE(10, AUTO), GEMM_CASE(11, AUTO), GEMM_CASE(12, AUTO), GEMM_CASE(13, AUTO), GEMM_CASE(14, AUTO),
    GEMM_CASE(15, AUTO), GEMM_CASE(16, AUTO), GEMM_CASE(17, AUTO), GEMM_CASE(18, ROUTE_A, .large = 1),
    GEMM_CASE(19, AUTO), GEMM_CASE(20, AUTO), GEMM_CASE(21, AUTO, .large = 1),
    CUDNN_CASE(2), CUDNN_CASE(3), CUDNN_CASE(4), CUDNN_CASE(5), CUDNN_CASE(6), CUDNN_CASE(7, .large = 1),
    CUDNN_CASE(8), CUDNN_CASE(9, .large = 1), CUDNN_CASE(10, .large = 1), CUDNN_CASE(11, .large = 1), CUDNN_CASE(12, .large = 1),
    BF16_BOTH(1, 32, 500), BF16_BOTH(1, 64, 510), BF16_BOTH(7, 32, 520), BF16_BOTH(7, 64, 530),
    BF16_BOTH(65, 32, 540), BF16_BOTH(65, 64, 550), BF16_BOTH(197, 32, 560), BF16_BOTH(197, 64, 570),
    BF16_BOTH(257, 32, 580), BF16_BOTH(257, 64, 590),
    BF16_INPLACE(1, 32, 2, ATTN_MASK_NONE, 2, 800), BF16_INPLACE(7, 64, 3, ATTN_MASK_NONE, 2, 810),
    BF16_INPLACE(65, 32, 1, ATTN_MASK_NONE, 2, 820), BF16_INPLACE(197, 64, 12, ATTN_MASK_NONE, 2, 830),
    BF16_INPLACE(65, 64, 2, ATTN_MASK_LT, 2, 840), BF16_INPLACE(197, 32, 3, ATTN_MASK_LT, 2, 850),
    BF16_INPLACE(17, 12, 2, ATTN_MASK_NONE, 0, 860),
    NAN_QUERY("fused fp32", ATTN_ROUTE_FUSED, MATMUL_FP32, AUTO),
    NAN_QUERY("materialised bf16", ATTN_ROUTE_MATERIALISED, MATMUL_BF16, ROUTE_A),
    NAN_QUERY("probability-keeping kernels", -1, MATMUL_FP32, AUTO),
};
const int parity_cases_attention_routes_count =
    (int)(sizeof parity_cases_attention_routes / sizeof parity_cases_attention_routes[0]);
_Static_assert(sizeof FUSED / sizeof FUSED[0] == 19 && sizeof GEMM / sizeof GEMM[0] == 22 &&
                   sizeof CUDNN / sizeof CUDNN[0] == 13,
               "one table entry per route case");
