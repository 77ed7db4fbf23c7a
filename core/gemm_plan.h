// core/gemm_plan.h — the host-side bookkeeping of the CUDA backend's cuBLASLt linear path
// (core/cuda/linear_lt_cuda.cu): the key a matrix product's algorithm is chosen and cached by
// (shape, transposes, leading dimensions, epilogue, precision, output type, the operands' alignments), the
// alignment class of a device address, the split-K reduction schemes allowed, and the cache
// itself (an open-addressing table that grows; the CUDA file hangs its descriptors and chosen
// algorithm on each entry's payload). Plain C so tests/test_gemm_plan.c checks it on the CPU.
#pragma once
#include <stddef.h>
#include <stdint.h>

enum { GEMM_EPILOGUE_NONE = 0, GEMM_EPILOGUE_BIAS = 1 };

// The workspace cuBLASLt may use (allocated once through the backend allocator, so the memory
// meter counts it); algorithms that need more are not chosen.
#define GEMM_LT_WORKSPACE_BYTES ((size_t)32 << 20)

// A column-major product D (m, n) = alpha·op(A)·op(B) + beta·C [+ bias (m) per column].
typedef struct {
    int m, n, k;
    int trans_a, trans_b; // 0 = N, 1 = T
    int lda, ldb, ldc;
    int epilogue;  // GEMM_EPILOGUE_*
    int precision; // MATMUL_BF16 (core/ops.h): bf16 A and B, fp32 bias
    int out_bf16;  // 1: C and D bf16 (D rounded once from the fp32 result), 0: fp32
    int align_a, align_b, align_c, align_bias; // bytes: gemm_alignment of each pointer (bias 0 if none)
} gemm_key;

// The largest power of two <= 256 that divides addr (256 for 0): cuBLASLt's heuristic is told
// this as the minimum alignment, so an algorithm cached for one pointer serves any other of
// the same class.
static inline int gemm_alignment(uintptr_t addr) {
    int a = 1;
    while (a < 256 && addr % (uintptr_t)(2 * a) == 0) a *= 2;
    return a;
}

// The CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK bits (cublasLtReductionScheme_t: INPLACE 1,
// COMPUTE_TYPE 2, OUTPUT_TYPE 4) allowed: the out-of-place split-K reductions (partial products
// in the workspace, summed by a separate pass in a fixed order). INPLACE, which adds the parts
// into D in an order kept by counters, is excluded: D's bits must not depend on it.
#define GEMM_REDUCTION_SCHEMES 0x6u

int gemm_key_equal(const gemm_key *a, const gemm_key *b);
uint64_t gemm_key_hash(const gemm_key *k);

typedef struct {
    gemm_key key;
    int used;
    void *payload; // owned by the caller (the CUDA file's descriptors and algorithm)
} gemm_plan_entry;

typedef struct {
    gemm_plan_entry *slots;
    size_t capacity, count;
} gemm_plan_cache; // zero-initialised = empty

// The entry of key, or NULL.
gemm_plan_entry *gemm_plan_find(gemm_plan_cache *c, const gemm_key *key);
// A new entry for key (absent before; payload NULL); the table doubles when half full. Dies
// (exit 1) when memory runs out. Pointers from earlier calls are invalid after an insert.
gemm_plan_entry *gemm_plan_insert(gemm_plan_cache *c, const gemm_key *key);
// Frees the table (not the payloads: the caller walks slots first).
void gemm_plan_free(gemm_plan_cache *c);
