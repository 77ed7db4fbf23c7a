// core/device.h — `--device` names and the op backend each one runs on: cpu (ops_cpu),
// cpu-guarded (ops_cpu_guarded: the CPU ops with backend memory fenced off, for tests), cuda
// (ops_cuda, when built and a GPU can run it) and auto (cuda when usable, else cpu). The device
// is not part of a run's identity: one run has one id and one checkpoint format everywhere.
#pragma once
#include "ops.h"
#include <stddef.h>

#define DEVICE_CHOICES "auto, cpu, cpu-guarded, cuda"

// 1 when `name` is one of DEVICE_CHOICES.
int device_name_valid(const char *name);
// The backend for `name` (NULL: auto), or NULL with the reason in why (unknown name, or cuda
// asked for where it cannot run). An op the backend lacks dies naming itself when called
// (core/ops_support.h: ops_complete).
const ops_backend *device_backend(const char *name, char *why, size_t len);
// The CUDA backend's switches from the environment (POSBENCH_LINEAR, POSBENCH_KERNELS,
// POSBENCH_STREAM, POSBENCH_ATTENTION; a bad value exits 2): device_backend reads them; the CUDA
// test programs call it themselves (tests/cuda_parity.c, tests/test_parity.c and the parity
// cases' own switches), so they run on the routes and stream the caller set.
void device_cuda_switches_from_env(void);
// POSBENCH_ATTENTION as a CUDA_ATTN_* setting (core/ops_cuda.h), -1 when unset or empty; a value
// other than auto, materialised, fused, cudnn, materialised-inplace exits 2 naming the variable. A run's route is its
// key train.attention: the trainer refuses a variable that disagrees with it (bench/train/train.c);
// `posbench bench --attention` defaults to it.
int device_attention_from_env(void);
