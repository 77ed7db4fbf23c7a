// objectives/dino/dino.h — DINO self-distillation (Caron et al. 2021; docs/dino.md, METHODS.md
// "Self-distillation: DINO"): its settings, its schedules and the host-side math of its head
// and loss (dino_math.c), which the oracle test (tests/test_dino.c) checks against PyTorch.
// Conventions: rows are images, K = dino.out_dim prototypes; every sum runs in index order in
// double (deterministic, independent of threads).
#pragma once
#include <stddef.h>

// DINO's own settings (objective_settings.own; keys dino.*: objectives/dino/objective.c).
typedef struct {
    int hidden_dim, bottleneck_dim, out_dim;   // the head: d -> hidden -> hidden -> bottleneck -> K
    int local_crops, local_size;               // multi-crop: local views per image and their side (px)
    int freeze_last_layer;                     // epochs the prototypes' weights stay frozen
    int teacher_temp_warmup;                   // epochs of the teacher temperature's linear warmup
    float momentum;                            // teacher EMA momentum at step 0 (cosine to 1)
    float student_temp, teacher_temp, warmup_teacher_temp;
    float center_momentum;
    float weight_decay, weight_decay_end;      // AdamW weight decay, cosine from the first to the second
} dino_settings;

// ---- schedules (main_dino.py's cosine_scheduler without warmup, and its teacher temperature) ----
// final + (base - final)·(1 + cos(π·step/total))/2 for 0-based step of `total` (the EMA momentum
// from dino.momentum to 1, the weight decay from dino.weight_decay to dino.weight_decay_end).
double dino_cosine(double base, double final, long step, long total);
// τ_t at 0-based `epoch`: numpy linspace(warmup, temp, W)[epoch] for epoch < W, else temp.
double dino_teacher_temp(double warmup, double temp, int W, int epoch);

// ---- the loss (main_dino.py DINOLoss) ----
// Teacher probabilities q (R, K) = softmax((g_t - c)/τ_t) per row (centring, sharpening).
void dino_teacher_probs(float *q, const float *teacher, const float *center, int R, int K, double tau_t);
// One group of student views against the teacher's views: student (S·B, K) holds views
// first_view .. first_view + S - 1 (B rows each, view v of image b at row (v - first_view)·B + b),
// q (T·B, K) the teacher's views 0 .. T - 1. Returns Σ over pairs (teacher view a, student view
// v ≠ a) of the mean over b of H(q_a[b], softmax(s_v[b]/τ_s)); dstudent (S·B, K) (may be NULL)
// receives that sum's gradient times `scale` (scale = 1/pairs for the mean over pairs):
// Σ_a (softmax(s_v/τ_s) - q_a)/(τ_s·B).
double dino_loss_group(const float *q, int T, const float *student, int first_view, int S, int B, int K,
                       double tau_s, double scale, float *dstudent);
// Pairs (a, v ≠ a) of T teacher views and V student views (the first T of them the same views).
int dino_pairs(int T, int V);
// c ← m·c + (1 - m)·mean over the R rows of teacher (R, K) (after the loss, as DINOLoss.update_center).
void dino_center_update(float *center, const float *teacher, int R, int K, double m);
// Collapse diagnostics over R rows: mean entropy of q and mean KL(q ‖ softmax(s/τ_s)) (nats).
void dino_diagnostics(const float *q, const float *student, int R, int K, double tau_s, double *entropy, double *kl);

// ---- the head's normalisations (main_dino.py DINOHead) ----
// y = x / max(‖x‖, 1e-12) per row of n (R, n) (F.normalize); norms (R) keeps ‖x‖.
void dino_l2_forward(float *y, float *norms, const float *x, int R, int n);
// dx (R, n) = (dy - y·(y·dy)) / ‖x‖ per row (overwritten; 0 where ‖x‖ <= 1e-12 is not reached:
// below it F.normalize divides by the constant 1e-12 and dx = dy/1e-12).
void dino_l2_backward(float *dx, const float *dy, const float *y, const float *norms, int R, int n);
// Weight norm with its gain fixed at 1 (weight_norm(Linear(n, K, bias=False)), weight_g = 1,
// frozen): W[k] = v[k]/‖v[k]‖ per prototype row k of v (K, n); norms (K).
void dino_weightnorm_forward(float *W, float *norms, const float *v, int K, int n);
// dv (K, n) = (dW - W·(W·dW)) / ‖v‖ per row (overwritten).
void dino_weightnorm_backward(float *dv, const float *dW, const float *W, const float *norms, int K, int n);

// Collapse verdict from the last diagnostics (DINO §5.3): 1 "one dimension dominates" when the
// entropy is below 5% of log K; 2 "uniform" when it is above 95% of log K and KL(P_t ‖ P_s) is
// below 1% of log K; 0 otherwise.
int dino_collapse_kind(double entropy, double kl, int K);
