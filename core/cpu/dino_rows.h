// core/cpu/dino_rows.h — the row softmax of DINO's CPU kernels (dino_cpu.c), shared with the
// host-side collapse diagnostics of an evaluation (objectives/dino/dino_math.c), so both read
// the same arithmetic.
#pragma once

// softmax((x - shift)/τ) of one row of K into p (K; NULL: not written), in double then rounded
// (shift NULL: none); returns log Σ exp((x - shift)/τ - max) + max, the row's log-sum-exp.
double cpu_dino_row_softmax(float *p, const float *x, const float *shift, int K, double tau);
