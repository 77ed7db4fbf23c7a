// tests/cuda_parity.h — helpers of the CUDA programs that are not per-op parity (the op parity
// table is tests/test_parity.c): the GPU-or-SKIP gate, device copies, a bitwise comparison of two
// device arrays. Without a usable GPU (or without the CUDA backend) a test program prints one
// SKIP line saying why, never a PASS.
#pragma once
#include <stddef.h>

// 1 when the CUDA backend is built and a GPU can run it; otherwise prints
// "SKIP <program>: <why>" and returns 0.
int parity_gpu_or_skip(const char *program);
// Device copies of host arrays (free with cuda_free).
float *parity_upload(const float *host, size_t n);
// PASS/FAIL `name`: bit-for-bit equality of two device arrays (determinism checks).
int parity_check_identical(const char *name, const float *a_dev, const float *b_dev, size_t n);
