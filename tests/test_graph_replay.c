// tests/test_graph_replay.c — which configurations a captured CUDA graph replays
// (bench/train/graph_replay.h), checked on the CPU with a table: the plain supervised step
// replays (dropout and drop path are no input: they draw at the uploaded clock, ops
// set_rng_clock, and replay); each host-side per-step decision (own views, a loss read on the host, ranks,
// micro-batches, counted loss terms, per-step sizes, reference tokens, CAPE draws) refuses it
// with a reason naming its setting; the device-resident step (no host reads)
// is refused only for the first four. Then the inputs the trainer and bench derive from an
// objective and its model (graph_replay_inputs_of): supervised, MP3 at a fixed eta (its contexts
// staged before each step: train_stage) and MAE at a fixed eta (its kept patches and targets
// staged the same way) replay; MP3 with reference tokens and supervised with CAPE run without host
// reads but do not replay; GVP with fixed segmentation (its orders, group ids, predicted rows and
// targets staged) and MLM (its masked tokens and targets staged) replay; GVP with random or mixed
// segmentation (its predicted patches drawn per step) runs without host reads but does not
// replay; SimCLR (its views staged before each step: train_stage_views) replays; DINO replays with
// its 2 global views only and with local crops (2, and an odd 3: every view staged before the step,
// the local size's grid tables restored by a backend copy, each group's drop path in its own epoch
// slot that the RNG clock keeps); DINO with CAPE runs without host reads but does not replay.
// Also: the CPU backends refuse graph_begin with a reason.
#include "testing.h"
#include "../bench/train/graph_replay.h"
#include "../core/ops.h"
#include "../objectives/dino/dino.h"
#include "../objectives/gvp/gvp.h"
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *label;
    graph_replay_inputs in;
    const char *replay_word;  // NULL: replays; else a word of the refusal
    const char *device_word;  // NULL: runs without host reads; else a word of that refusal
} replay_case;


static const replay_case cases[] = {
    {"plain supervised step", {0}, NULL, NULL},
    {"one listed resolution, one rank, accumulate 1", {.resolutions = 1, .ranks = 1, .accumulate = 1}, NULL, NULL},
    {"no resolutions list", {.resolutions = 0}, NULL, NULL},
    {"own views (dino)", {.own_views = 1}, "own views", "own views"},
    {"loss read on the host (no train_forward_to)", {.host_loss = 1}, "train_forward_to", "train_forward_to"},
    {"two ranks", {.ranks = 2}, "processes", "processes"},
    {"accumulate 4", {.accumulate = 4}, "train.accumulate", "train.accumulate"},
    {"counted loss terms", {.loss_terms = 1}, "loss terms", NULL},
    {"UniViT sizes", {.resolutions = 3}, "data.resolutions", NULL},
    {"reference tokens", {.reference_tokens = 16}, "model.ref_tokens", NULL},
    {"CAPE draws", {.encoding_draws = 1}, "CAPE", NULL},
    {"reference tokens and CAPE: the first rule named", {.reference_tokens = 4, .encoding_draws = 1}, "model.ref_tokens", NULL},
    {"accumulate and CAPE: the first rule named", {.accumulate = 2, .encoding_draws = 1}, "train.accumulate", "train.accumulate"},
};

static int matches(const char *got, const char *word) {
    if (!word) return got == NULL;
    return got != NULL && strstr(got, word) != NULL;
}

typedef struct {
    const char *label, *objective, *pe_kind;
    double eta, ref_fraction;
    const char *replay_word, *device_word; // as in replay_case
    const char *gvp_segmentation;          // objective.segmentation of a gvp case (4 groups, random order)
    int dino_local_crops;                  // dino.local_crops of a dino case
} objective_case;

static const objective_case objective_cases[] = {
    {"supervised, pe.kind=abs", "supervised", "abs", 0.0, 0.0, NULL, NULL, NULL, 0},
    {"mp3, eta 0.75 (contexts staged before each step)", "mp3", "none", 0.75, 0.0, NULL, NULL, NULL, 0},
    {"mp3, eta 0 (every patch in the context)", "mp3", "none", 0.0, 0.0, NULL, NULL, NULL, 0},
    {"mp3 with reference tokens (objective.ref_fraction 0.1)", "mp3", "sin2d", 0.0, 0.1, "model.ref_tokens", NULL, NULL, 0},
    {"supervised, pe.kind=cape", "supervised", "cape", 0.0, 0.0, "CAPE", NULL, NULL, 0},
    {"mae, eta 0.75 (kept patches, rows and targets staged before each step)", "mae", "sin2d", 0.75, 0.0, NULL, NULL, NULL, 0},
    {"gvp, fixed segmentation (draws, rows and targets staged before each step)", "gvp", "sin2d", 0.0, 0.0, NULL, NULL, "fixed", 0},
    {"gvp, random segmentation (predicted patches drawn per step)", "gvp", "sin2d", 0.0, 0.0, "objective.segmentation=random", NULL, "random", 0},
    {"gvp, mixed segmentation (predicted patches drawn per step)", "gvp", "sin2d", 0.0, 0.0, "objective.segmentation=random or mixed", NULL, "mixed", 0},
    {"mlm (masked tokens and targets staged before each step)", "mlm", "abs", 0.0, 0.0, NULL, NULL, NULL, 0},
    {"simclr (its views staged before each step: train_stage_views)", "simclr", "abs", 0.0, 0.0, NULL, NULL, NULL, 0},
    {"dino, 2 global views only (views and per-step values staged before each step)", "dino", "abs", 0.0, 0.0, NULL, NULL, NULL, 0},
    {"dino with 2 local crops (all views staged before the step, per-size tables kept)", "dino", "abs", 0.0, 0.0, NULL,
     NULL, NULL, 2},
    {"dino with 3 local crops (an odd last group of one)", "dino", "abs", 0.0, 0.0, NULL, NULL, NULL, 3},
    {"dino with 2 local crops, pe.kind=cape (positions drawn per forward)", "dino", "cape", 0.0, 0.0, "CAPE", NULL, NULL, 2},
};

// Each objective configures a 28 px, patch 4 model (49 patches, cls) as the trainer would and
// the decision is read from graph_replay_inputs_of; one rank, train.accumulate 1, one size.
static void check_objectives(void) {
    int bad = 0, n = (int)(sizeof objective_cases / sizeof objective_cases[0]);
    for (int i = 0; i < n; i++) {
        const objective_case *c = &objective_cases[i];
        const objective_kind *k = objective_find(c->objective);
        if (!k) {
            bad++;
            test_fail("graph replay by objective", "%s: objective %s not registered", c->label, c->objective);
            continue;
        }
        objective_settings s = {.name = c->objective, .pe_kind = c->pe_kind, .eta = c->eta, .ref_fraction = c->ref_fraction};
        if (c->gvp_segmentation)
            *OBJECTIVE_OWN(&s, gvp_settings) = (gvp_settings){.groups = 4, .segmentation = c->gvp_segmentation,
                                                              .order = "random", .streams = 2, .probe_mask = "causal"};
        if (!strcmp(c->objective, "dino")) *OBJECTIVE_OWN(&s, dino_settings) = (dino_settings){.local_crops = c->dino_local_crops};
        model_config mc = {.channels = 1, .image_size = 28, .patch = 4, .dim = 16, .depth = 1, .heads = 2, .mlp_ratio = 2,
                           .cls = 1, .pe_kind = c->pe_kind, .num_classes = 10};
        k->configure_model(&s, &mc);
        graph_replay_inputs in = graph_replay_inputs_of(k, &s, &mc, 1, 1, 1);
        const char *replay = graph_replay_refusal(&in), *device = graph_device_step_refusal(&in);
        if (!matches(replay, c->replay_word) || !matches(device, c->device_word)) {
            bad++;
            test_fail("graph replay by objective", "%s: replay %s (want %s), device step %s (want %s)", c->label,
                      replay ? replay : "yes", c->replay_word ? c->replay_word : "yes", device ? device : "yes",
                      c->device_word ? c->device_word : "yes");
        }
    }
    if (!bad) test_pass("graph replay by objective", "%d objective configurations: answers and reasons as tabled", n);
}

int main(void) {
    int bad = 0, n = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < n; i++) {
        const replay_case *c = &cases[i];
        const char *replay = graph_replay_refusal(&c->in), *device = graph_device_step_refusal(&c->in);
        if (!matches(replay, c->replay_word) || !matches(device, c->device_word)) {
            bad++;
            test_fail("graph replay decision", "%s: replay %s (want %s), device step %s (want %s)", c->label,
                      replay ? replay : "yes", c->replay_word ? c->replay_word : "yes", device ? device : "yes",
                      c->device_word ? c->device_word : "yes");
        }
    }
    if (!bad) test_pass("graph replay decision", "%d configurations: replay and device-step answers and reasons as tabled", n);

    check_objectives();

    const ops_backend *backends[] = {&ops_cpu, &ops_cpu_guarded};
    for (int b = 0; b < 2; b++) {
        char why[256] = "";
        int began = backends[b]->graph_begin(why, sizeof why);
        test_check("graph_begin refused on the CPU", !began && strstr(why, "CPU") != NULL, "%s: returned %d, why '%s'",
                   backends[b]->name, began, why);
    }
    return test_exit_code();
}
