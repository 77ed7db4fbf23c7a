// core/cuda/warp_double.cuh — double-precision reductions over the 32 lanes of a warp, for the
// kernels that sum in double to follow the CPU's double arithmetic (losses_cuda.cu, dino_cuda.cu):
// a commutative xor butterfly, so every lane ends with the same bits.
#pragma once

static __device__ __forceinline__ double warp_sum_double(double v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

// fmax: a NaN lane is skipped (the caller's later arithmetic on the NaN values propagates them).
static __device__ __forceinline__ double warp_max_double(double v) {
    for (int off = 16; off > 0; off >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}
