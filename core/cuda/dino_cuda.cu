// core/cuda/dino_cuda.cu — DINO's head normalisations, teacher probabilities, loss and centre,
// and the teacher's EMA on CUDA. Contracts in core/ops_list.h; the CPU twin (the reference, in
// index order) is core/cpu/dino_cpu.c, whose precision (double sums, exp and log in double) each
// kernel keeps. Determinism: no atomics. One warp per row; lanes stride over the row, then an
// xor-butterfly (a fixed tree) that leaves the same bits in every lane; the loss's total runs in
// one warp over the rows in the CPU's order (s, b, a), so it is the same run to run. Products the
// CPU rounds before adding use __fmul_rn / __fadd_rn.
#include "ops_cuda_internal.cuh"
#include "warp_double.cuh"
#include <math.h>

#define THREADS 256 // threads per block: 8 warps, one row each
#define WARP 32
#define ROWS_PER_BLOCK (THREADS / WARP)
#define UNIT_EPS 1e-12


// ---------------------------------------------------------------- unit rows (L2 / weight norm)
__global__ void unit_rows_forward_kernel(float *y, float *norms, const float *x, int R, int n, int clamp) {
    int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (r >= R) return; // whole warps leave together
    const float *xr = x + (size_t)r * n;
    double s = 0.0;
    for (int i = lane; i < n; i += WARP) s += (double)xr[i] * xr[i];
    double nr = sqrt(warp_sum_double(s)), d = !clamp ? nr : nr > UNIT_EPS ? nr : UNIT_EPS;
    if (lane == 0) norms[r] = (float)nr;
    for (int i = lane; i < n; i += WARP) y[(size_t)r * n + i] = (float)(xr[i] / d);
}

__global__ void unit_rows_backward_kernel(float *dx, const float *dy, const float *y, const float *norms, int R, int n) {
    int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (r >= R) return;
    const float *yr = y + (size_t)r * n, *dr = dy + (size_t)r * n;
    float *out = dx + (size_t)r * n;
    double nr = norms[r];
    if (nr <= UNIT_EPS) {
        for (int i = lane; i < n; i += WARP) out[i] = (float)(dr[i] / UNIT_EPS);
        return;
    }
    double dot = 0.0;
    for (int i = lane; i < n; i += WARP) dot += (double)yr[i] * dr[i];
    dot = warp_sum_double(dot); // every lane has read its dr, yr before the writes below (in place: dx = dy)
    for (int i = lane; i < n; i += WARP) out[i] = (float)((dr[i] - yr[i] * dot) / nr);
}

void cuda_unit_rows_forward(float *y, float *norms, const float *x, int R, int n, int clamp) {
    if (R <= 0 || n <= 0) return;
    unit_rows_forward_kernel<<<cuda_blocks((size_t)R, ROWS_PER_BLOCK), THREADS, 0, cuda_stream()>>>(y, norms, x, R, n, clamp);
    CUDA_LAUNCH_CHECK();
}

void cuda_unit_rows_backward(float *dx, const float *dy, const float *y, const float *norms, int R, int n) {
    if (R <= 0 || n <= 0) return;
    unit_rows_backward_kernel<<<cuda_blocks((size_t)R, ROWS_PER_BLOCK), THREADS, 0, cuda_stream()>>>(dx, dy, y, norms, R, n);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- softmax rows
// The warp's log Σ exp((x - shift)/τ - max) + max of one row (every lane the same bits).
static __device__ double row_lse(const float *x, const float *shift, int K, double tau, int lane) {
    double mx = -INFINITY;
    for (int k = lane; k < K; k += WARP) mx = fmax(mx, ((double)x[k] - (shift ? (double)shift[k] : 0.0)) / tau);
    mx = warp_max_double(mx);
    double sum = 0.0;
    for (int k = lane; k < K; k += WARP) sum += exp(((double)x[k] - (shift ? (double)shift[k] : 0.0)) / tau - mx);
    return mx + log(warp_sum_double(sum));
}

__global__ void dino_teacher_probs_kernel(float *q, const float *teacher, const float *center, int R, int K,
                                          const double *tau) {
    int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (r >= R) return;
    double t = *tau;
    const float *x = teacher + (size_t)r * K;
    double lse = row_lse(x, center, K, t, lane);
    for (int k = lane; k < K; k += WARP) q[(size_t)r * K + k] = (float)exp(((double)x[k] - (double)center[k]) / t - lse);
}

void cuda_dino_teacher_probs(float *q, const float *teacher, const float *center, int R, int K, const double *tau) {
    if (R <= 0 || K <= 0) return;
    dino_teacher_probs_kernel<<<cuda_blocks((size_t)R, ROWS_PER_BLOCK), THREADS, 0, cuda_stream()>>>(q, teacher, center, R,
                                                                                                       K, tau);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- the loss of one student group
// One warp: the rows (s, b) in order, each row's terms H(q_a[b], softmax(x/τ_s))/B added in a's
// order, as the CPU; then loss[0] += total, loss[1] = loss[0]·scale.
__global__ void dino_loss_total_kernel(double *loss, const float *q, int T, const float *student, int first_view,
                                       int S, int B, int K, double tau_s, double scale) {
    int lane = threadIdx.x;
    double total = 0.0;
    for (int s = 0; s < S; s++)
        for (int b = 0; b < B; b++) {
            const float *x = student + ((size_t)s * B + b) * K;
            double lse = row_lse(x, NULL, K, tau_s, lane);
            for (int a = 0; a < T; a++) {
                if (a == first_view + s) continue;
                const float *qa = q + ((size_t)a * B + b) * K;
                double h = 0.0;
                for (int k = lane; k < K; k += WARP) h -= (double)qa[k] * ((double)x[k] / tau_s - lse);
                total += warp_sum_double(h) / B;
            }
        }
    if (lane == 0) {
        loss[0] += total;
        loss[1] = loss[0] * scale;
    }
}

// dstudent row (s, b) = scale · Σ_{a != v} (softmax(x/τ_s) - q_a)/(τ_s·B): one warp per row.
__global__ void dino_loss_grad_kernel(float *dstudent, const float *q, int T, const float *student, int first_view,
                                      int S, int B, int K, double tau_s, double scale) {
    int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (row >= S * B) return;
    int s = row / B, b = row % B, v = first_view + s;
    const float *x = student + (size_t)row * K;
    double lse = row_lse(x, NULL, K, tau_s, lane);
    for (int k = lane; k < K; k += WARP) {
        double p = exp((double)x[k] / tau_s - lse), g = 0.0;
        for (int a = 0; a < T; a++)
            if (a != v) g += p - (double)q[((size_t)a * B + b) * K + k];
        dstudent[(size_t)row * K + k] = (float)(g * scale / (tau_s * B));
    }
}

void cuda_dino_loss_group(double *loss, float *dstudent, const float *q, int T, const float *student, int first_view,
                          int S, int B, int K, double tau_s, double scale) {
    if (S <= 0 || B <= 0 || K <= 0) return;
    dino_loss_total_kernel<<<1, WARP, 0, cuda_stream()>>>(loss, q, T, student, first_view, S, B, K, tau_s, scale);
    CUDA_LAUNCH_CHECK();
    if (!dstudent) return;
    dino_loss_grad_kernel<<<cuda_blocks((size_t)S * B, ROWS_PER_BLOCK), THREADS, 0, cuda_stream()>>>(
        dstudent, q, T, student, first_view, S, B, K, tau_s, scale);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- centre and EMA
// One thread per prototype k: the sum over the rows in order (consecutive threads read
// consecutive k of a row).
__global__ void dino_center_update_kernel(float *center, const float *teacher, int R, int K, double m) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    double sum = 0.0;
    for (int r = 0; r < R; r++) sum += teacher[(size_t)r * K + k];
    center[k] = (float)(m * center[k] + (1.0 - m) * (sum / R));
}

void cuda_dino_center_update(float *center, const float *teacher, int R, int K, double m) {
    if (R <= 0 || K <= 0) return;
    dino_center_update_kernel<<<cuda_blocks((size_t)K, THREADS), THREADS, 0, cuda_stream()>>>(center, teacher, R, K, m);
    CUDA_LAUNCH_CHECK();
}

__global__ void ema_update_kernel(float *teacher, const float *student, size_t n, const float *coef, const float *skip) {
    size_t i = flat_index();
    if (i >= n || (skip && *skip != 0.0f)) return;
    teacher[i] = __fadd_rn(__fmul_rn(teacher[i], coef[0]), __fmul_rn(student[i], coef[1]));
}

void cuda_ema_update(float *teacher, const float *student, size_t n, const float *coef, const float *skip) {
    if (n == 0) return;
    ema_update_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(teacher, student, n, coef, skip);
    CUDA_LAUNCH_CHECK();
}
