// objectives/dino/dino.h — DINO self-distillation (Caron et al. 2021; docs/dino.md, METHODS.md
// "Self-distillation: DINO"): its settings, its schedules and its collapse diagnostics
// (dino_math.c); its loss and head normalisations are backend ops (core/ops_list.h), which the
// oracle test (tests/test_dino.c) checks against PyTorch.
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

// ---- the loss (main_dino.py DINOLoss): the ops dino_teacher_probs, dino_loss_group and
// dino_center_update (core/ops_list.h), the head's normalisations unit_rows_forward/backward ----
// Pairs (a, v ≠ a) of T teacher views and V student views (the first T of them the same views).
int dino_pairs(int T, int V);
// Collapse diagnostics over R rows: mean entropy of q and mean KL(q ‖ softmax(s/τ_s)) (nats).
void dino_diagnostics(const float *q, const float *student, int R, int K, double tau_s, double *entropy, double *kl);

// Collapse verdict from the last diagnostics (DINO §5.3): 1 "one dimension dominates" when the
// entropy is below 5% of log K; 2 "uniform" when it is above 95% of log K and KL(P_t ‖ P_s) is
// below 1% of log K; 0 otherwise.
int dino_collapse_kind(double entropy, double kl, int K);
