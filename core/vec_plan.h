// core/vec_plan.h — how a vectorised elementwise GPU kernel over floats splits its n elements
// into a scalar prefix, a body of float4 vectors and a scalar tail, from the addresses of the
// (up to 3) arrays it touches, a common misalignment absorbed by the prefix (vec_plan_floats); and
// the simpler split of a kernel over operands of different element sizes (vec_split_for: whole
// groups when every operand is aligned, else all scalar). Plain C (static inline, no CUDA types),
// so core/cuda/*.cu compute the split on the host before a launch and tests/test_vec_plan.c and
// tests/test_vec_split.c check it on the CPU. Arena tensors are 64-byte
// aligned, but a slice (a row offset, one sample of a batch, qkv + C) need not be: every array
// must sit at the same offset modulo 16 bytes for a shared vector body, otherwise the caller
// runs its scalar kernel.
#pragma once
#include <stddef.h>
#include <stdint.h>

// n floats at every address in addrs[0..count): elements [0, prefix) and [tail, n) are scalar,
// [prefix, tail) are `vectors` float4 (tail = prefix + 4·vectors). vectors = 0 and prefix = n
// when the arrays disagree modulo 16 bytes or one is not 4-byte aligned.
typedef struct {
    size_t prefix, vectors, tail;
} vec_plan;

static inline vec_plan vec_plan_floats(const uintptr_t *addrs, int count, size_t n) {
    vec_plan p = {n, 0, n};
    if (count <= 0) return p;
    uintptr_t mis = addrs[0] % 16;
    for (int i = 0; i < count; i++)
        if (addrs[i] % 4 != 0 || addrs[i] % 16 != mis) return p;
    size_t prefix = mis ? (16 - mis) / 4 : 0; // floats until the first 16-byte boundary
    if (prefix >= n) return p;
    p.prefix = prefix;
    p.vectors = (n - prefix) / 4;
    p.tail = prefix + 4 * p.vectors;
    return p;
}

// n elements in groups of `width` (one 16-byte access per operand and group, e.g. 8 floats read
// and 8 bf16 written): elements [0, groups·width) vectorised and [tail_start, n) scalar, or all
// scalar unless both operand addresses a and b are `align`-byte aligned (align a power of two).
typedef struct {
    size_t groups;     // vector groups: elements [0, groups·width)
    size_t tail_start; // scalar elements [tail_start, n)
} vec_split;

static inline vec_split vec_split_for(size_t n, size_t width, uintptr_t a, uintptr_t b, size_t align) {
    vec_split s = {0, 0};
    if (width == 0 || align == 0 || (a | b) & (align - 1)) return s; // misaligned: all scalar
    s.groups = n / width;
    s.tail_start = s.groups * width;
    return s;
}
