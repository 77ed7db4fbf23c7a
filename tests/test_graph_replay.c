// tests/test_graph_replay.c — which configurations a captured CUDA graph replays
// (bench/train/graph_replay.h), checked on the CPU with a table: the plain supervised step
// replays (dropout and drop path are no input: they draw at the uploaded clock, ops
// set_rng_clock, and replay); each host-side per-step decision (own views, a loss read on the host, ranks,
// micro-batches, counted loss terms, per-step sizes, reference tokens, CAPE draws) refuses it
// with a reason naming its setting; the device-resident step (no host reads)
// is refused only for the first four. Also: the CPU backends refuse graph_begin with a reason.
#include "testing.h"
#include "../bench/train/graph_replay.h"
#include "../core/ops.h"
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
    {"loss read on the host (mp3)", {.host_loss = 1}, "train_forward_to", "train_forward_to"},
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

    const ops_backend *backends[] = {&ops_cpu, &ops_cpu_guarded};
    for (int b = 0; b < 2; b++) {
        char why[256] = "";
        int began = backends[b]->graph_begin(why, sizeof why);
        test_check("graph_begin refused on the CPU", !began && strstr(why, "CPU") != NULL, "%s: returned %d, why '%s'",
                   backends[b]->name, began, why);
    }
    return test_exit_code();
}
