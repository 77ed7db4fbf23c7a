// core/attention_gemm_layout.h — the index arithmetic of the materialised bf16 attention
// route (attention_gemm_cuda.cu) as plain functions that compile as C (tests/
// test_attention_gemm_layout.c checks them on the host) and as CUDA device code:
// - the padded leading dimension of the (T, M) score matrices, so every row of S, P16, dP and
//   dS16 starts on a 16-byte boundary (cuBLAS's Hopper kernels need it; M = 197 did not);
// - the pack / unpack grid: a thread per VEC consecutive channels of one head row, rows and
//   channel chunks from 32-bit arithmetic within one (image, head) pair, the pair from the grid's
//   y index (no 64-bit division per element);
// - the vector width those kernels may use for given strides, offsets and pointers;
// - the register bucket of the softmax kernels (values per lane held in registers);
// - the route's workspace layout (its size is what the memory meter counts while a call runs).
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define ATTN_HD static __host__ __device__ __forceinline__
#else
#define ATTN_HD static inline
#endif

// Leading dimension of a (T, M) score row: M rounded up to a multiple of 8 elements (16 bytes
// in bf16, 32 in fp32). Columns M..ld-1 are never read: the products' inner and outer sizes stay M.
ATTN_HD int attn_score_ld(int M) { return (M + 7) / 8 * 8; }

// Floats of the saved state P16 (B, H, T, ld) in bf16: two values per float, rounded up.
ATTN_HD size_t attn_gemm_state_floats(int B, int H, int T, int M) {
    return ((size_t)B * H * T * (size_t)attn_score_ld(M) + 1) / 2;
}

// The route's workspace for one call of B images, H heads, T query rows, M key slots, width C
// (cuda_alloc_transient: counted by the memory meter while it lives): byte offsets, each part
// 256-byte aligned, the forward's parts first (fwd_total bytes), then what only the backward adds
// (total bytes). The (T, M) matrices have rows of attn_score_ld(M). Used by attention_gemm_cuda.cu
// and by `posbench bench --arena-only` (bench/perf/arena_plan.c).
typedef struct {
    size_t q16, k16, v16, mat32, o32, fwd_total, do16, mat16, dk32, dv32, total;
} attn_gemm_workspace;

ATTN_HD size_t attn_align256(size_t bytes) { return (bytes + 255) / 256 * 256; }

ATTN_HD attn_gemm_workspace attn_gemm_workspace_of(int B, int H, int T, int M, int C) {
    const size_t BH = (size_t)B * H, hs = (size_t)(C / H);
    const size_t qh = BH * T * hs, kh = BH * M * hs, tm = BH * T * (size_t)attn_score_ld(M);
    attn_gemm_workspace L;
    size_t at = 0;
    L.q16 = at;   at += attn_align256(qh * 2);
    L.k16 = at;   at += attn_align256(kh * 2);
    L.v16 = at;   at += attn_align256(kh * 2);
    L.mat32 = at; at += attn_align256(tm * 4); // S (forward) / dP (backward)
    L.o32 = at;   at += attn_align256(qh * 4); // O (forward) / dQ (backward)
    L.fwd_total = at;
    L.do16 = at;  at += attn_align256(qh * 2);
    L.mat16 = at; at += attn_align256(tm * 2); // dS16 (backward)
    L.dk32 = at;  at += attn_align256(kh * 4);
    L.dv32 = at;  at += attn_align256(kh * 4);
    L.total = at;
    return L;
}

// Vector width (4 or 1) of a pack / unpack between head-major rows of hs channels (element
// offset `head_base` of the pair's first row) and token rows of row stride `stride` at channel
// offset `off`: 4 when every 4-channel group starts on 16 bytes of the fp32 side (its pointer,
// stride, offset and hs multiples of 4 floats) and on 8 bytes of the bf16 side.
ATTN_HD int attn_pack_vec(int hs, int stride, int off, uintptr_t rows_ptr, uintptr_t heads_ptr, int heads_elem_bytes) {
    if (hs % 4 || stride % 4 || off % 4) return 1;
    if (rows_ptr % 16) return 1;
    if (heads_ptr % (uintptr_t)(4 * heads_elem_bytes)) return 1;
    return 4;
}

// Channel chunks of vec channels per head row.
ATTN_HD int attn_pack_chunks(int hs, int vec) { return hs / vec; }

// Thread e (< R · chunks) of a pair's pack / unpack: its head row r and first channel c.
ATTN_HD void attn_pack_coords(unsigned e, int chunks, int vec, int *r, int *c) {
    unsigned uc = (unsigned)chunks;
    *r = (int)(e / uc);
    *c = (int)(e - (unsigned)*r * uc) * vec;
}

// Values per lane a softmax row of M keys keeps in registers (one warp per row): the smallest of
// 1, 2, 4, 8, 16 with 32·n >= M; 0 beyond 512 keys (the kernel that re-reads memory: at 32
// values per lane the forward spills registers).
ATTN_HD int attn_softmax_bucket(int M) {
    for (int n = 1; n <= 16; n *= 2)
        if (32 * n >= M) return n;
    return 0;
}
