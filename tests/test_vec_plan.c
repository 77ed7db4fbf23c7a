// tests/test_vec_plan.c — the host-side plans of the CUDA backend's vectorised kernels and of
// its cuBLASLt linear path, checked on the CPU (no GPU needed): the scalar prefix / 16-byte
// body / scalar tail split of core/vec_plan.h (n mod 4 != 0, unaligned offsets,
// arrays that disagree modulo 16 bytes), by covering every element exactly once and checking
// each vector access is 16-byte aligned; and core/gemm_plan.h's alignment classes, keys and
// algorithm cache (find after insert, growth, distinct keys never collide).
#include "testing.h"
#include "../core/gemm_plan.h"
#include "../core/vec_plan.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Every element of [0, n) covered once by prefix + vectors + tail, each vector 16-byte aligned
// in every array; returns 0 and says why otherwise.
static int float_plan_ok(const uintptr_t *addrs, int count, size_t n, char *why, size_t len) {
    vec_plan p = vec_plan_floats(addrs, count, n);
    if (p.prefix > n || p.tail > n || p.tail != p.prefix + 4 * p.vectors) {
        snprintf(why, len, "inconsistent plan prefix %zu vectors %zu tail %zu for n %zu", p.prefix, p.vectors, p.tail, n);
        return 0;
    }
    if (p.prefix > 3 && p.vectors) {
        snprintf(why, len, "prefix %zu > 3 with a vector body", p.prefix);
        return 0;
    }
    if (n - p.tail > 3 && p.vectors) {
        snprintf(why, len, "tail of %zu > 3 elements", n - p.tail);
        return 0;
    }
    for (int a = 0; a < count; a++)
        for (size_t v = 0; v < p.vectors; v++)
            if ((addrs[a] + 4 * (p.prefix + 4 * v)) % 16) {
                snprintf(why, len, "vector %zu of array %d unaligned", v, a);
                return 0;
            }
    return 1;
}

static void test_float_plans(void) {
    int bad = 0, vectorised = 0, cases = 0;
    char why[160] = "";
    size_t sizes[] = {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 1003, 4096, 4099};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (uintptr_t off0 = 0; off0 < 64; off0 += 4)
            for (uintptr_t off1 = 0; off1 < 64; off1 += 4) {
                uintptr_t addrs[3] = {4096 + off0, 8192 + off1, 65536 + off0};
                cases++;
                if (!float_plan_ok(addrs, 3, sizes[s], why, sizeof why) && !bad++)
                    test_fail("vec_plan floats", "n %zu offsets %u/%u: %s", sizes[s], (unsigned)off0, (unsigned)off1, why);
                vec_plan p = vec_plan_floats(addrs, 3, sizes[s]);
                int same = off0 % 16 == off1 % 16;
                if (!same && p.vectors && !bad++)
                    test_fail("vec_plan floats", "arrays 16-byte-misaligned to each other got %zu vectors", p.vectors);
                if (same && sizes[s] >= 8 && !p.vectors && !bad++)
                    test_fail("vec_plan floats", "agreeing arrays (n %zu, offset %u) got no vector body", sizes[s], (unsigned)off0);
                vectorised += p.vectors > 0;
            }
    uintptr_t odd[2] = {4098, 4098}; // not 4-byte aligned: scalar throughout
    vec_plan p = vec_plan_floats(odd, 2, 100);
    if (p.vectors || p.prefix != 100) bad++, test_fail("vec_plan floats", "2-byte aligned floats got a vector body");
    if (!bad) test_pass("vec_plan floats", "%d cases (n mod 4 != 0, 16 offsets per array), %d vectorised, every element once, vectors aligned", cases, vectorised);
}

static void test_gemm_alignment(void) {
    int ok = gemm_alignment(0) == 256 && gemm_alignment(4096) == 256 && gemm_alignment(4096 + 128) == 128 &&
             gemm_alignment(4096 + 4) == 4 && gemm_alignment(4096 + 2) == 2 && gemm_alignment(4097) == 1 &&
             gemm_alignment(4096 + 48) == 16;
    test_check("gemm_alignment classes", ok, "256/128/16/4/2/1 for aligned, +128, +48, +4, +2, +1 addresses");
}

static gemm_key key_of(int i) {
    gemm_key k = {0};
    k.m = 768 + i % 7;
    k.n = 128 * 197 + i / 7;
    k.k = 768;
    k.trans_a = i % 2;
    k.trans_b = (i / 2) % 2;
    k.lda = k.ldb = k.ldc = 768;
    k.epilogue = i % 3 == 0 ? GEMM_EPILOGUE_BIAS : GEMM_EPILOGUE_NONE;
    k.precision = 1;
    k.align_a = k.align_b = k.align_c = 256;
    k.align_bias = k.epilogue ? 16 : 0;
    return k;
}

static void test_gemm_cache(void) {
    gemm_plan_cache c = {0};
    int bad = 0, n = 500;
    gemm_key probe = key_of(3);
    if (gemm_plan_find(&c, &probe)) bad++, test_fail("gemm plan cache", "empty cache found a key");
    for (int i = 0; i < n; i++) {
        gemm_key k = key_of(i);
        gemm_plan_entry *e = gemm_plan_insert(&c, &k);
        e->payload = (void *)(uintptr_t)(i + 1);
    }
    for (int i = 0; i < n; i++) {
        gemm_key k = key_of(i);
        gemm_plan_entry *e = gemm_plan_find(&c, &k);
        if ((!e || e->payload != (void *)(uintptr_t)(i + 1)) && !bad++)
            test_fail("gemm plan cache", "key %d lost or mixed up after growth (found %p)", i, e ? e->payload : NULL);
    }
    // A key differing in one field only (alignment of A, the epilogue, a transpose, ldc) is another key.
    gemm_key k = key_of(10), k2 = k;
    k2.align_a = 8;
    gemm_key k3 = k;
    k3.ldc++;
    if (gemm_plan_find(&c, &k2) || gemm_plan_find(&c, &k3) || gemm_key_equal(&k, &k2))
        bad++, test_fail("gemm plan cache", "keys differing in one field were taken as equal");
    if (c.count != (size_t)n) bad++, test_fail("gemm plan cache", "count %zu, want %d", c.count, n);
    if (!bad) test_pass("gemm plan cache", "%d keys inserted (table grew to %zu slots), each found with its payload; one-field differences are new keys", n, c.capacity);
    gemm_plan_free(&c);
}

int main(void) {
    test_float_plans();
    test_gemm_alignment();
    test_gemm_cache();
    return test_exit_code();
}
