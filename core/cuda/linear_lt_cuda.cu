// core/cuda/linear_lt_cuda.cu — the cuBLASLt path of the linear layers under train.precision=bf16
// (core/ops_cuda.h CUDA_LINEAR_LT; dense_cuda.cu's linear_gemm and linear_bf16_cuda.cu call it):
// cublasLtMatmul with bf16 A and B, fp32 accumulation (CUBLAS_COMPUTE_32F), C and D fp32 or bf16
// (linear_forward_bf16's bf16 output: the epilogue rounds the fp32 result once as it stores D, no
// separate pass), and the fp32 bias added by the epilogue before that rounding
// (CUBLASLT_EPILOGUE_BIAS, bias type CUDA_R_32F; Lt's GELU epilogues are the tanh approximation
// and are never used). The algorithm is chosen once per gemm_key (core/gemm_plan.h: shape,
// transposes, leading dimensions, epilogue, precision, output type, pointer alignments) by
// cublasLtMatmulAlgoGetHeuristic with the in-place split-K reduction excluded and at most
// GEMM_LT_WORKSPACE_BYTES of workspace, which is allocated once through cuda_alloc (the memory
// meter counts it); the descriptors live with the cached algorithm. A key the heuristic has no
// algorithm for (none found, or CUBLAS_STATUS_NOT_SUPPORTED for the combination) is cached as
// such, and its products go to cublasGemmEx (dense_cuda.cu) or, for a bf16 output with a bias,
// to linear_bf16_cuda.cu's fp32 result rounded by a pass.
// It also keeps bf16 copies of weights (cuda_bf16_weight): only inside ranges that AdamW has
// updated (the trained parameters), each written once and reused until something writes over
// it — AdamW, upload, copy, zero, scale (cuda_weights_written) — or frees the block holding it
// (cuda_weights_released). So a weight is converted once per optimizer step instead of on every forward and
// backward call, and a checkpoint load, an early-stopping restore or an EMA teacher (never
// updated by AdamW, never cached) reads fresh values.
#include "ops_cuda_internal.cuh"
#include <cublasLt.h>
#include <cuda_bf16.h>
extern "C" {
#include "../gemm_plan.h"
}
#include <stdlib.h>

static int linear_route = CUDA_LINEAR_GEMMEX;

extern "C" void cuda_set_linear_route(int route) {
    if (route != CUDA_LINEAR_GEMMEX && route != CUDA_LINEAR_LT)
        die_fail("cuda_set_linear_route: %d is not CUDA_LINEAR_GEMMEX or CUDA_LINEAR_LT", route);
    linear_route = route;
}

extern "C" int cuda_linear_route(void) { return linear_route; }

// ---------------------------------------------------------------- matmul
typedef struct {
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulAlgo_t algo;
    int usable; // 0: the heuristic offered no algorithm (the caller falls back to cublasGemmEx)
} lt_plan;

static cublasLtHandle_t lt_handle;
static void *lt_workspace;
static gemm_plan_cache lt_plans;

// The descriptors and algorithm of key k; bias is this call's bias pointer (the heuristic reads
// its alignment from the descriptor, so it is set before asking).
static lt_plan *lt_plan_create(const gemm_key *k, const float *bias) {
    lt_plan *p = (lt_plan *)calloc(1, sizeof *p);
    if (!p) die_fail("out of memory for a cuBLASLt plan");
    cublasOperation_t ta = k->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = k->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    cublasLtEpilogue_t epi = k->epilogue == GEMM_EPILOGUE_BIAS ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    if (k->epilogue == GEMM_EPILOGUE_BIAS) {
        cudaDataType_t bias_type = CUDA_R_32F;
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    }
    // Stored shapes (column-major): op(A) is m x k, op(B) k x n, C and D m x n.
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->a, CUDA_R_16BF, k->trans_a ? k->k : k->m, k->trans_a ? k->m : k->k, k->lda));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->b, CUDA_R_16BF, k->trans_b ? k->n : k->k, k->trans_b ? k->k : k->n, k->ldb));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->c, k->out_bf16 ? CUDA_R_16BF : CUDA_R_32F, k->m, k->n, k->ldc));

    cublasLtMatmulPreference_t pref;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    size_t ws = GEMM_LT_WORKSPACE_BYTES;
    uint32_t schemes = GEMM_REDUCTION_SCHEMES, al_a = (uint32_t)k->align_a, al_b = (uint32_t)k->align_b,
             al_c = (uint32_t)k->align_c;
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes, sizeof schemes));
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al_a, sizeof al_a));
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al_b, sizeof al_b));
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al_c, sizeof al_c));
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al_c, sizeof al_c));
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt_handle, p->desc, p->a, p->b, p->c, p->c, pref, 1, &result, &found);
    if (st == CUBLAS_STATUS_NOT_SUPPORTED) found = 0; // this combination has no algorithm: the fallback serves it
    else CUBLAS_CHECK(st);
    CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
    p->usable = found >= 1 && result.workspaceSize <= GEMM_LT_WORKSPACE_BYTES;
    if (p->usable) p->algo = result.algo;
    return p;
}

int cuda_lt_matmul(int trans_a, int trans_b, int m, int n, int k, const __nv_bfloat16 *A, int lda,
                    const __nv_bfloat16 *B, int ldb, float beta, void *C, int c_bf16, int ldc, const float *bias) {
    if (!lt_handle) {
        CUBLAS_CHECK(cublasLtCreate(&lt_handle));
        lt_workspace = cuda_alloc(GEMM_LT_WORKSPACE_BYTES, "the cuBLASLt workspace");
    }
    gemm_key key = {};
    key.m = m;
    key.n = n;
    key.k = k;
    key.trans_a = trans_a;
    key.trans_b = trans_b;
    key.lda = lda;
    key.ldb = ldb;
    key.ldc = ldc;
    key.epilogue = bias ? GEMM_EPILOGUE_BIAS : GEMM_EPILOGUE_NONE;
    key.precision = MATMUL_BF16;
    key.out_bf16 = c_bf16 != 0;
    key.align_a = gemm_alignment((uintptr_t)A);
    key.align_b = gemm_alignment((uintptr_t)B);
    key.align_c = gemm_alignment((uintptr_t)C);
    key.align_bias = bias ? gemm_alignment((uintptr_t)bias) : 0;
    gemm_plan_entry *e = gemm_plan_find(&lt_plans, &key);
    if (!e) {
        lt_plan *fresh = lt_plan_create(&key, bias);
        e = gemm_plan_insert(&lt_plans, &key);
        e->payload = fresh;
    }
    lt_plan *p = (lt_plan *)e->payload;
    if (!p->usable) return 0;
    if (bias) CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    float alpha = 1.0f;
    CUBLAS_CHECK(cublasLtMatmul(lt_handle, p->desc, &alpha, A, p->a, B, p->b, &beta, C, p->c, C, p->c, &p->algo,
                                lt_workspace, GEMM_LT_WORKSPACE_BYTES, cuda_stream()));
    return 1;
}

// ---------------------------------------------------------------- bf16 weight copies
typedef struct {
    const float *w;
    size_t n;
    __nv_bfloat16 *copy;
    int fresh; // copy holds bf16(w)
} weight_copy;

typedef struct {
    const char *p;
    size_t bytes;
} byte_range;

static weight_copy *copies;
static size_t ncopies, copies_cap;
static byte_range *trained; // ranges AdamW has updated
static size_t ntrained, trained_cap;

static int overlaps(const void *a, size_t abytes, const void *b, size_t bbytes) {
    const char *x = (const char *)a, *y = (const char *)b;
    return x < y + bbytes && y < x + abytes;
}

static void grow(void **items, size_t *cap, size_t need, size_t size, const char *what) {
    if (need <= *cap) return;
    size_t c = *cap ? 2 * *cap : 64;
    while (c < need) c *= 2;
    void *p = realloc(*items, c * size);
    if (!p) die_fail("out of memory for %s", what);
    *items = p;
    *cap = c;
}

// 1 when [p, p + bytes) lies inside one range AdamW has updated.
static int is_trained(const char *p, size_t bytes) {
    for (size_t i = 0; i < ntrained; i++)
        if (p >= trained[i].p && p + bytes <= trained[i].p + trained[i].bytes) return 1;
    return 0;
}

void cuda_weights_trained(const float *param, size_t n) {
    const char *p = (const char *)param;
    if (!is_trained(p, n * sizeof(float))) {
        grow((void **)&trained, &trained_cap, ntrained + 1, sizeof *trained, "the trained-parameter ranges");
        trained[ntrained].p = p;
        trained[ntrained++].bytes = n * sizeof(float);
    }
    cuda_weights_written(param, n * sizeof(float)); // AdamW is about to write them
}

void cuda_weights_written(const void *dst, size_t bytes) {
    for (size_t i = 0; i < ncopies; i++)
        if (copies[i].fresh && overlaps(copies[i].w, copies[i].n * sizeof(float), dst, bytes)) copies[i].fresh = 0;
}

void cuda_weights_replayed(void) {
    for (size_t i = 0; i < ncopies; i++) copies[i].fresh = 0;
}

void cuda_weights_released(const void *p, size_t bytes) {
    size_t keep = 0;
    for (size_t i = 0; i < ntrained; i++)
        if (!overlaps(trained[i].p, trained[i].bytes, p, bytes)) trained[keep++] = trained[i];
    ntrained = keep;
    size_t ndrop = 0;
    for (size_t i = 0; i < ncopies; i++) ndrop += overlaps(copies[i].w, copies[i].n * sizeof(float), p, bytes);
    if (!ndrop) return;
    __nv_bfloat16 **drop = (__nv_bfloat16 **)malloc(ndrop * sizeof *drop);
    if (!drop) die_fail("out of memory releasing %zu bf16 weight copies", ndrop);
    keep = ndrop = 0;
    for (size_t i = 0; i < ncopies; i++) {
        if (overlaps(copies[i].w, copies[i].n * sizeof(float), p, bytes)) drop[ndrop++] = copies[i].copy;
        else copies[keep++] = copies[i];
    }
    ncopies = keep;
    // Freed after the table is consistent: cuda_free calls back here for each copy's own block.
    for (size_t k = 0; k < ndrop; k++) cuda_free(drop[k]);
    free(drop);
}

const __nv_bfloat16 *cuda_bf16_weight(const float *w, size_t n) {
    if (!is_trained((const char *)w, n * sizeof(float))) return NULL;
    weight_copy *c = NULL;
    for (size_t i = 0; i < ncopies && !c; i++)
        if (copies[i].w == w && copies[i].n == n) c = &copies[i];
    if (!c) {
        __nv_bfloat16 *copy = (__nv_bfloat16 *)cuda_alloc(n * sizeof(__nv_bfloat16), "a bf16 weight copy");
        grow((void **)&copies, &copies_cap, ncopies + 1, sizeof *copies, "the bf16 weight copies");
        c = &copies[ncopies++];
        c->w = w;
        c->n = n;
        c->copy = copy;
        c->fresh = 0;
    }
    if (!c->fresh) {
        cuda_operand_to_bf16(c->copy, w, n);
        c->fresh = 1;
    }
    return c->copy;
}
