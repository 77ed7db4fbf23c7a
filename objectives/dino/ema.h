// objectives/dino/ema.h — the teacher's exponential moving average of the student, on the
// backend (so it runs where the parameters live, CPU or CUDA).
#pragma once
#include "../../core/ops.h"
#include <stddef.h>

// teacher (n) ← m·teacher + (1 - m)·student in float, as main_dino.py's
// param_k.data.mul_(m).add_((1 - m) * param_q.detach().data): scaled (n, backend scratch) =
// (1 - m)·student, teacher = m·teacher, teacher += scaled; m and 1 - m rounded to float.
void dino_ema(const ops_backend *ops, float *teacher, const float *student, float *scaled, size_t n, double m);
