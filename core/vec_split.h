// core/vec_split.h — how an elementwise kernel over n elements splits into a vectorised body
// (whole groups of `width` consecutive elements, one 16-byte access per operand and group) and a
// scalar tail: the body only when every operand's address is `align`-byte aligned (arena tensors
// are; a prefix of a smaller batch or an offset into a packed row may not be), else all scalar.
// Plain C, unit-tested on the CPU (tests/test_vec_split.c); used by core/cuda/bf16_convert_cuda.cu.
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t groups;     // vector groups: elements [0, groups·width)
    size_t tail_start; // scalar elements [tail_start, n)
} vec_split;

// width >= 1, align a power of two >= 1; a and b are the operands' addresses.
vec_split vec_split_for(size_t n, size_t width, uintptr_t a, uintptr_t b, size_t align);
