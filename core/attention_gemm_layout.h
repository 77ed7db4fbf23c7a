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
// - the route's workspace layout (its size is what the memory meter counts while a call runs);
// - the in-place operands of train.activations=bf16 (setting materialised-inplace): where each
//   (image, head) pair's head matrix starts inside the token rows, the alignment rule that lets
//   cuBLAS read and write them there, and that path's smaller workspace.
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

// Element offset of head row r (token row t = tok[b][r], or r), channel c of pair (image b, head
// h) in token rows (B, rows_per_image, stride) at channel offset off: the pack's and unpack's
// gather / scatter index (attn_pack_kernel, attn_unpack_kernel).
ATTN_HD size_t attn_rows_offset(int b, int h, int t, int c, int rows_per_image, int stride, int off, int hs) {
    return ((size_t)b * rows_per_image + t) * stride + off + h * hs + c;
}

// ---- in-place operands (bf16 storage, rows not chosen by kv_index)
// Pair (b, h)'s matrix inside a tensor whose image b starts image_elems elements after image 0
// and head h head_elems after head 0 (elements from the tensor's first): for token rows (B,
// rows_per_image, stride) at channel offset off (the head matrix is the rows' channels [off +
// h·hs, off + (h+1)·hs), leading dimension stride) image_elems = rows_per_image·stride, head_elems
// = hs, and off is added once (attn_view_rows); for a head-major (B, H, R, ld) matrix
// image_elems = H·R·ld, head_elems = R·ld (attn_view_heads). Row r, column c of the pair's
// matrix is then attn_pair_offset + r·ld + c: for token rows exactly attn_rows_offset(b, h, r, c)
// (tests/test_attention_gemm_layout.c checks every element).
typedef struct {
    size_t first;        // element offset of pair (0, 0)'s first row
    size_t image_elems;  // pair (b, h) starts first + b·image_elems + h·head_elems
    size_t head_elems;
    int ld;              // leading dimension (elements between consecutive rows)
} attn_view;

ATTN_HD attn_view attn_view_rows(int rows_per_image, int stride, int off, int hs) {
    attn_view v = {(size_t)off, (size_t)rows_per_image * stride, (size_t)hs, stride};
    return v;
}
ATTN_HD attn_view attn_view_heads(int H, int R, int ld) {
    attn_view v = {0, (size_t)H * R * ld, (size_t)R * ld, ld};
    return v;
}
ATTN_HD size_t attn_pair_offset(attn_view v, int b, int h) {
    return v.first + (size_t)b * v.image_elems + (size_t)h * v.head_elems;
}

// 1 when every pair's matrix of a bf16 view based at `base` (bytes) is what cuBLAS's tensor-core
// kernels want: each pair's first element on 16 bytes (base, the channel offset, hs and the image
// step all multiples of 8 elements) and each row too (ld·2 bytes a multiple of 16). cuBLAS takes a
// device array of pointers it cannot inspect when it chooses a kernel, so the route never hands it
// a misaligned one: when any view of a call fails this the call keeps the pack / unpack path (the
// head-major copies are aligned by construction), which gives the same values within bf16 rounding.
ATTN_HD int attn_view_aligned_bf16(uintptr_t base, attn_view v) {
    if (base % 16) return 0;
    if (v.first % 8 || v.image_elems % 8 || v.head_elems % 8) return 0;
    return v.ld > 0 && v.ld % 8 == 0;
}

// Where a call's q, k and v rows live (their gradients alike): the packed qkv (B, T, 3C) with k
// and v in rows tok[b][m] (attention_forward, attention_forward_bf16), or the compact layout
// (attention_kv_forward_bf16): q (B, T, C), and k|v (B, M, 2C) whose rows are the M keys.
typedef struct {
    int q_stride, kv_rows, kv_stride, k_off, v_off; // q rows: T per image; kv rows: kv_rows per image
    const int *tok;                                 // key slot -> row of the k|v rows (NULL: slot m is row m)
} attn_qkv_layout;

ATTN_HD attn_qkv_layout attn_layout_packed(int T, int C, const int *kv_index) {
    attn_qkv_layout L = {3 * C, T, 3 * C, C, 2 * C, kv_index};
    return L;
}
ATTN_HD attn_qkv_layout attn_layout_compact(int M, int C) {
    attn_qkv_layout L = {C, M, 2 * C, 0, C, (const int *)0};
    return L;
}

// The views of one in-place call: the q, k, v head matrices in their token rows, and o the
// (B, T, C) rows of out (forward) or dout (backward); the gradients dq, dk, dv share q's, k's and
// v's views (same layout, their own base pointers).
typedef struct {
    attn_view q, k, v, o;
} attn_inplace_views;

ATTN_HD attn_inplace_views attn_inplace_views_of(const attn_qkv_layout *L, int T, int C, int H) {
    const int hs = C / H;
    attn_inplace_views w;
    w.q = attn_view_rows(T, L->q_stride, 0, hs);
    w.k = attn_view_rows(L->kv_rows, L->kv_stride, L->k_off, hs);
    w.v = attn_view_rows(L->kv_rows, L->kv_stride, L->v_off, hs);
    w.o = attn_view_rows(T, C, 0, hs);
    return w;
}

// 1 when a bf16 call may read and write its operands in place: its key rows are not chosen by
// an index (tok NULL: with kv_index the keys of a head are not one strided matrix), H divides C,
// and every view is aligned (attn_view_aligned_bf16) at its base: q and kv (the inputs), o (out in
// the forward, dout in the backward) and, for the backward, dq and dkv (0 for the forward's).
ATTN_HD int attn_inplace_usable(const attn_qkv_layout *L, int T, int C, int H, uintptr_t q, uintptr_t kv, uintptr_t o,
                                uintptr_t dq, uintptr_t dkv) {
    if (L->tok || H <= 0 || C % H) return 0;
    const attn_inplace_views w = attn_inplace_views_of(L, T, C, H);
    int ok = attn_view_aligned_bf16(q, w.q) && attn_view_aligned_bf16(kv, w.k) && attn_view_aligned_bf16(kv, w.v) &&
             attn_view_aligned_bf16(o, w.o);
    if (dq) ok = ok && attn_view_aligned_bf16(dq, w.q);
    if (dkv) ok = ok && attn_view_aligned_bf16(dkv, w.k) && attn_view_aligned_bf16(dkv, w.v);
    return ok;
}

// The in-place path's workspace for B images, H heads, T query rows, M key slots: the fp32 (T, M)
// score / score-gradient matrix, in the backward its bf16 copy dS16, and the device arrays of
// pair pointers cuBLAS's pointer-array batched GEMM reads (arrays of B·H pointers: the forward's
// 6 (K, Q, S; V, P, O), the backward's 10 (V, dO, dP; K, dS, dQ; Q, dK; P, dV)),
// built by one small kernel per call (the pointers are addresses of this call's buffers). Byte
// offsets, 256-byte aligned parts, as attn_gemm_workspace_of.
typedef struct {
    size_t mat32, ptrs, fwd_total, mat16, bwd_ptrs, total;
} attn_inplace_workspace;

#define ATTN_INPLACE_FWD_ARRAYS 6
#define ATTN_INPLACE_BWD_ARRAYS 10

ATTN_HD attn_inplace_workspace attn_inplace_workspace_of(int B, int H, int T, int M) {
    const size_t BH = (size_t)B * H, tm = BH * T * (size_t)attn_score_ld(M);
    attn_inplace_workspace L;
    size_t at = 0;
    L.mat32 = at; at += attn_align256(tm * 4); // S (forward) / dP (backward)
    L.ptrs = at;  at += attn_align256(BH * ATTN_INPLACE_FWD_ARRAYS * sizeof(void *));
    L.fwd_total = at;
    at = L.ptrs; // the backward's pointer arrays replace the forward's (a call is one or the other)
    L.bwd_ptrs = at; at += attn_align256(BH * ATTN_INPLACE_BWD_ARRAYS * sizeof(void *));
    L.mat16 = at; at += attn_align256(tm * 2); // dS16 (backward)
    L.total = at;
    return L;
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
