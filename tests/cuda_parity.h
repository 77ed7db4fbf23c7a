// tests/cuda_parity.h — CPU/GPU parity checks for the CUDA backend's ops. A check runs the CPU
// op on host buffers and the CUDA op on device copies of the same inputs, then compares
// element by element: |gpu - cpu| <= atol + rtol·|cpu| (the tolerance is printed with the
// worst element). Without a usable GPU (or without the CUDA backend) a test program prints one
// SKIP line saying why, never a PASS.
#pragma once
#include <stddef.h>

// 1 when the CUDA backend is built and a GPU can run it; otherwise prints
// "SKIP <program>: <why>" and returns 0.
int parity_gpu_or_skip(const char *program);
// Device copies of host arrays (free with cuda_free).
float *parity_upload(const float *host, size_t n);
int *parity_upload_int(const int *host, size_t n);
// A new host array (free with free()) holding n floats of a device array.
float *parity_download(const float *dev, size_t n);
// PASS/FAIL `name`: the device array got_dev (n) against the host reference ref (n).
// Returns 1 when it passed.
int parity_check(const char *name, const float *ref, const float *got_dev, size_t n, double atol,
                 double rtol);
// PASS/FAIL `name`: bit-for-bit equality of two device arrays (determinism checks).
int parity_check_identical(const char *name, const float *a_dev, const float *b_dev, size_t n);
