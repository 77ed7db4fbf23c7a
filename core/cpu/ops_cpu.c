// core/cpu/ops_cpu.c — the CPU backend's op table: `ops_cpu` gathers cpu_<name> for every
// entry of core/ops_list.h (core/cpu/*_cpu.c, declared in ops_cpu_internal.h) behind
// core/ops.h's interface. Its twin is core/cuda/ops_cuda.cu; the op families are mirrored file
// for file (dense, tokens, attention, posenc, mixing, resize, losses, reduce, optim, memory).
#include "ops_cpu_internal.h"

const ops_backend ops_cpu = {
    .name = "cpu",
#define OP(ret, op, params, args) .op = cpu_##op,
#include "../ops_list.h"
};
