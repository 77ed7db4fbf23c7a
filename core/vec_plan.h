// core/vec_plan.h — how a vectorised elementwise GPU kernel splits its n elements into a scalar
// prefix, a body of 16-byte vectors and a scalar tail, from the addresses of the arrays it
// touches. Plain C (static inline, no CUDA types), so core/cuda/*.cu compute the split on the
// host before a launch and tests/test_vec_plan.c checks it on the CPU. Arena tensors are 64-byte
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

// float -> bf16 conversion of n elements from `in` (floats) to `out` (2-byte bf16), 8 elements
// per thread: out is written in 16-byte stores (8 bf16), so the body starts where out reaches a
// 16-byte boundary (prefix bf16 elements before it); in is read as two float4 per group when
// in + prefix is 16-byte aligned too (in_vectors = 1), else as 8 scalar loads. groups = 0 and
// prefix = n when out is not 2-byte aligned or in not 4-byte aligned.
typedef struct {
    size_t prefix, groups, tail;
    int in_vectors;
} bf16_plan;

static inline bf16_plan bf16_plan_convert(uintptr_t in, uintptr_t out, size_t n) {
    bf16_plan p = {n, 0, n, 0};
    if (out % 2 != 0 || in % 4 != 0) return p;
    uintptr_t mis = out % 16;
    size_t prefix = mis ? (16 - mis) / 2 : 0; // bf16 elements until out's 16-byte boundary
    if (prefix >= n) return p;
    p.prefix = prefix;
    p.groups = (n - prefix) / 8;
    p.tail = prefix + 8 * p.groups;
    p.in_vectors = (in + 4 * prefix) % 16 == 0;
    return p;
}
