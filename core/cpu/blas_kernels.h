// core/cpu/blas_kernels.h — choosing OpenBLAS's kernels where its own CPU detection falls back to
// pre-AVX2 ones on a CPU with AVX2 (a CPU model newer than the OpenBLAS release). Results stay
// deterministic for a given machine and thread count; they are not bitwise those of the slower
// kernels (another summation order inside sgemm).
#pragma once

// The OpenBLAS core name (OPENBLAS_CORETYPE value) this CPU should use instead of `current`
// (openblas_get_corename()), or NULL when `current` is already right: "SkylakeX" on CPUs with
// AVX-512 F/CD/BW/DQ/VL, "Haswell" on CPUs with AVX2 and FMA, when OpenBLAS chose a pre-AVX2 set.
const char *blas_better_core(const char *current);

// Called first in main(): when OPENBLAS_CORETYPE is unset and blas_better_core says so, sets it
// and re-executes this program with the same arguments (OpenBLAS reads it only when it loads).
// Returns (doing nothing) when the variable is set, the kernels are right, or execv fails (with
// a note on stderr).
void blas_pick_kernels(char **argv);
