// core/cpu/ops_cpu_internal.h — the CPU backend's op functions (C + OpenBLAS + OpenMP):
// cpu_<name> for each entry of core/ops_list.h (declared here from that list), gathered into
// the `ops_cpu` table by ops_cpu.c. Signatures and contracts are the list's. Private to
// core/cpu/: code outside it reaches these through `ops_cpu`. Twin of
// core/cuda/ops_cuda_internal.cuh; the files mirror core/cuda/ one to one (dense, tokens,
// attention, posenc, mixing, resize, losses, reduce, optim, memory, timing: ops_list.h's sections name
// the file of each op), plus vecmath.h (vectorising exp/erf shared by the CPU kernels).
#pragma once
#include "../ops.h"

#define OP(ret, op, params, args) ret cpu_##op params;
#include "../ops_list.h"

// dense_cpu.c: the precision set_matmul_precision last set (MATMUL_FP32 or MATMUL_BF16);
// attention_cpu.c rounds at the bf16 points under MATMUL_BF16.
int cpu_matmul_precision(void);

// dense_cpu.c's linear layer in parts, shared with the bf16-input twins (linear_bf16_cpu.c) so
// that both compute the same bits. Host scratch slots 0 .. CPU_MATMUL_SCRATCH_SLOTS-1 that grow to
// the largest request and are reused (linear_forward/backward use slots 0 and 1);
// cpu_bf16_operand fills `slot` with bf16_round of x (n) and returns it. The products on operands
// as given: out = in·weightᵀ + bias (bias NULL: none); din += dout·weight; dweight += doutᵀ·in;
// dst (C) += Σ_n src (N, C) in row order.
#define CPU_MATMUL_SCRATCH_SLOTS 4
float *cpu_matmul_scratch(int slot, size_t n);
const float *cpu_bf16_operand(int slot, const float *x, size_t n);
void cpu_linear_product(float *out, const float *in, const float *weight, const float *bias, int N, int IC, int OC);
void cpu_linear_input_grad(float *din, const float *dout, const float *weight, int N, int IC, int OC);
void cpu_linear_weight_grad(float *dweight, const float *dout, const float *in, int N, int IC, int OC);
void cpu_column_sums_add(float *dst, const float *src, int N, int C);

// dense_cpu.c's row and range kernels, shared with the bf16 twins (dense_bf16_cpu.c) so that both
// compute the same bits: one LayerNorm row (y, *mean, *rstd of x (C)); GELU forward (out = ...)
// and backward (din += ...) over n elements.
// timing_cpu.c: counts one host read (host_reads: download, synchronize, sum, sum_squares).
void cpu_host_read_add(void);
// reduce_cpu.c, optim_cpu.c: the fixed-order sums behind sum and sum_squares, without the count.
double cpu_sum_in_order(const float *x, size_t n);
double cpu_sum_squares_in_order(const float *x, size_t n);
void cpu_layernorm_row(float *y, float *mean, float *rstd, const float *x, const float *weight, const float *bias, int C);
void cpu_gelu_forward_range(float *restrict out, const float *restrict in, size_t n);
void cpu_gelu_backward_range(float *restrict din, const float *restrict dout, const float *restrict in, size_t n);
#define ELEMENTWISE_CHUNK 8192 // elements per parallel task of the elementwise ops
