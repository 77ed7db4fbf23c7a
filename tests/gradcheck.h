// tests/gradcheck.h — central finite differences against analytic gradients.
// The loss is L = Σ out ⊙ w for a fixed random w, evaluated by `loss(ctx)` in double; the
// analytic gradient of every input is what the op's backward gives with dout = w.
// For an input x and analytic gradient g (same length n), gradcheck perturbs up to
// `max_checks` entries (spread evenly over x) by ±eps and requires
//     |numeric - analytic| <= atol + rtol * max(|numeric|, |analytic|)
// for each. It prints one PASS/FAIL line named `name` with the worst error.
#pragma once
#include <stddef.h>

typedef double (*gradcheck_loss_fn)(void *ctx);

typedef struct {
    double eps, atol, rtol;
    size_t max_checks;
} gradcheck_tol;

// Tolerances for fp32 ops with O(1) inputs: eps 1e-2 (central), atol 2e-3, rtol 2e-2.
#define GRADCHECK_DEFAULT ((gradcheck_tol){1e-2, 2e-3, 2e-2, 64})

int gradcheck(const char *name, void *ctx, gradcheck_loss_fn loss, float *x, const float *grad,
              size_t n, gradcheck_tol tol);

// Σ out[i] * w[i] in double — the usual projection loss.
double gradcheck_dot(const float *out, const float *w, size_t n);
