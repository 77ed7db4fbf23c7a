// objectives/dino/ema.c — the teacher's EMA update on the backend (see ema.h).
#include "ema.h"

void dino_ema(const ops_backend *ops, float *teacher, const float *student, float *scaled, size_t n, double m) {
    ops->copy(scaled, student, n * sizeof(float));
    ops->scale(scaled, n, (float)(1.0 - m));
    ops->scale(teacher, n, (float)m);
    ops->residual_forward(teacher, teacher, scaled, NULL, 1, n);
}
