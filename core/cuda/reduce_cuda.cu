// core/cuda/reduce_cuda.cu — the CUDA reductions (core/ops_list.h "reductions"): the sum in double
// (loss sums, returned or kept on the device by sum_to; also the sum of squares behind
// optim_cuda.cu's gradient norm), the rank of the
// true class (top-k accuracy) and the row argmax (MP3's predicted position). The CPU twin is
// core/cpu/reduce_cpu.c.
// Determinism: no atomics. The sum is two passes of fixed shape (the grid depends on n only):
// each of at most SUM_MAX_BLOCKS blocks sums its grid-stride elements per thread in double,
// then a fixed tree over the block; one block then sums the partials by a fixed tree. Every
// float converts to double exactly (and so does its square), so the result is a fixed-order
// double sum, bitwise reproducible run to run; it differs from the CPU's sequential sum only
// by double rounding (relative ~1e-16 per term). class_rank and argmax_rows give one row to one
// thread, which walks k = 0..K-1 with the CPU's comparisons: the same integers as the CPU.
#include "ops_cuda_internal.cuh"

#define SUM_THREADS 256
#define SUM_MAX_BLOCKS 1024 // partial sums of the first pass (the second pass is one block)
#define ROW_THREADS 128     // threads per block of the per-row kernels

// Sum over a block whose size is a power of two, fixed tree in shared memory s (blockDim.x).
// The result is valid in thread 0.
static __device__ double block_sum_double(double v, double *s) {
    s[threadIdx.x] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    return s[0];
}

// x (n) -> partial (gridDim.x): each thread sums x (or x², exact in double: 24-bit x 24-bit
// mantissas fit) in double over a grid stride, then a fixed tree per block.
template <bool SQUARES>
static __global__ void sum_partial_kernel(double *partial, const float *x, size_t n) {
    __shared__ double s[SUM_THREADS];
    double acc = 0.0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        double v = x[i];
        acc += SQUARES ? v * v : v;
    }
    double total = block_sum_double(acc, s);
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

// partial (blocks) -> *total: one block of SUM_MAX_BLOCKS threads, fixed tree.
static __global__ void sum_partials_kernel(double *total, const double *partial, int blocks) {
    __shared__ double s[SUM_MAX_BLOCKS];
    double v = threadIdx.x < (unsigned)blocks ? partial[threadIdx.x] : 0.0;
    double sum = block_sum_double(v, s);
    if (threadIdx.x == 0) *total = sum;
}

// The fixed-shape two-pass sum of x (or x²) into a device double that lives for the process
// (valid until the next call); NULL when n is 0 (the sum is 0).
const double *cuda_reduce_on_device(const float *x, size_t n, int squares) {
    if (n == 0) return NULL;
    static double *scratch = NULL; // SUM_MAX_BLOCKS partial sums, then the total; lives forever
    if (!scratch) CUDA_CHECK(cudaMalloc(&scratch, (SUM_MAX_BLOCKS + 1) * sizeof(double)));
    unsigned blocks = cuda_blocks(n, SUM_THREADS);
    if (blocks > SUM_MAX_BLOCKS) blocks = SUM_MAX_BLOCKS; // the shape depends on n only
    if (squares)
        sum_partial_kernel<true><<<blocks, SUM_THREADS, 0, cuda_stream()>>>(scratch, x, n);
    else
        sum_partial_kernel<false><<<blocks, SUM_THREADS, 0, cuda_stream()>>>(scratch, x, n);
    CUDA_LAUNCH_CHECK();
    sum_partials_kernel<<<1, SUM_MAX_BLOCKS, 0, cuda_stream()>>>(scratch + SUM_MAX_BLOCKS, scratch, (int)blocks);
    CUDA_LAUNCH_CHECK();
    return scratch + SUM_MAX_BLOCKS;
}

double cuda_reduce_sum_double(const float *x, size_t n, int squares) {
    const double *sum = cuda_reduce_on_device(x, n, squares);
    double total = 0.0;
    if (sum) cuda_to_host(&total, sum, sizeof(double)); // waits for both kernels (a host read)
    return total;
}

// *dst = (total ? *total : 0) / divisor, one thread: the host's division, on the device.
static __global__ void sum_to_kernel(double *dst, const double *total, double divisor) {
    *dst = (total ? *total : 0.0) / divisor;
}

void cuda_sum_to(double *dst, const float *x, size_t n, double divisor) {
    sum_to_kernel<<<1, 1, 0, cuda_stream()>>>(dst, cuda_reduce_on_device(x, n, 0), divisor);
    CUDA_LAUNCH_CHECK();
}

double cuda_sum(const float *x, size_t n) { return cuda_reduce_sum_double(x, n, 0); }

// rank (N): row n of logits (N, K) -> the number of classes ahead of target[n] (larger logit,
// or equal with a lower index); K when the row holds a NaN or an infinity. One thread per row.
static __global__ void class_rank_kernel(int *rank, const float *logits, const int *target, int N,
                                         int K) {
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= N) return;
    const float *z = logits + (size_t)n * K;
    int y = target[n], ahead = 0, finite = 1;
    float zy = z[y];
    for (int k = 0; k < K; k++) {
        float v = z[k];
        if (!isfinite(v)) finite = 0;
        if (v > zy || (v == zy && k < y)) ahead++;
    }
    rank[n] = finite ? ahead : K;
}

// index (N): argmax over k of x (N, K) row n, the first (lowest) k on ties; -1 when the row holds
// a NaN or an infinity. One thread per row.
static __global__ void argmax_rows_kernel(int *index, const float *x, int N, int K) {
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= N) return;
    const float *z = x + (size_t)n * K;
    int best = 0, finite = isfinite(z[0]);
    float zbest = z[0];
    for (int k = 1; k < K; k++) {
        if (!isfinite(z[k])) finite = 0;
        if (z[k] > zbest) {
            best = k;
            zbest = z[k];
        }
    }
    index[n] = finite ? best : -1; // a row with NaN or ±Inf predicts nothing (the CPU's rule)
}

void cuda_class_rank(int *rank, const float *logits, const int *target, int N, int K) {
    if (N <= 0) return;
    if (K <= 0) die_fail("internal: class_rank needs K >= 1, got %d", K);
    class_rank_kernel<<<cuda_blocks((size_t)N, ROW_THREADS), ROW_THREADS, 0, cuda_stream()>>>(rank, logits, target,
                                                                           N, K);
    CUDA_LAUNCH_CHECK();
}

void cuda_argmax_rows(int *index, const float *x, int N, int K) {
    if (N <= 0) return;
    if (K <= 0) die_fail("internal: argmax_rows needs K >= 1, got %d", K);
    argmax_rows_kernel<<<cuda_blocks((size_t)N, ROW_THREADS), ROW_THREADS, 0, cuda_stream()>>>(index, x, N, K);
    CUDA_LAUNCH_CHECK();
}
