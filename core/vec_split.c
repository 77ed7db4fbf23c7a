// core/vec_split.c — the vector body / scalar tail split of elementwise kernels (core/vec_split.h).
#include "vec_split.h"

vec_split vec_split_for(size_t n, size_t width, uintptr_t a, uintptr_t b, size_t align) {
    vec_split s = {0, 0};
    if (width == 0 || align == 0 || (a | b) & (align - 1)) return s; // misaligned: all scalar
    s.groups = n / width;
    s.tail_start = s.groups * width;
    return s;
}
