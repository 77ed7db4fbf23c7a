// tests/test_host_reads.c — the training step without host reads (bench/train/step_device.h,
// train.graph=on) on the CPU and guarded backends, against the step that reads its loss and
// norm at once (train_forward, backward, optim_step): a small supervised ViT, a small MP3 ViT
// (eta 0.5, its contexts staged before each step by objective_kind.train_stage), a small MAE
// (eta 0.75, its kept patches, rows and targets staged the same way), a small two-stream GVP
// (fixed segmentation: its orders, group ids, predicted rows and targets staged) and a small
// byte-token MLM ViT (its corrupted tokens and targets staged), all with dropout and drop
// path (drawn at the clock the device step uploads: ops set_rng_clock), trained 7 steps both
// ways, with clipping that bites on some steps. Checked:
// - no host read inside a device step (ops host_reads counts 0 between its start and end: no
//   download, synchronize, sum or sum_squares) and exactly one read (one download) for the
//   values of every step since the last read, read at "logging" steps 3 and 7;
// - every step's loss and gradient norm, the learning rate, and the parameters and AdamW
//   moments after each step bitwise those of the reading step;
// - a non-finite loss (a NaN planted in a parameter) is read back as such and changes nothing:
//   parameters and moments bitwise as before the step (the step that reads at once makes no
//   update either).
// - MP3, MAE, GVP and MLM as a replay runs them: the forward's host code issued with a stale address (step
//   0's; a replay never calls it again), the step's draws staged by train_stage and the clock set
//   before it: every step's loss bitwise the reading forward's at its own step (and the steps'
//   losses differ, so a stale draw would show).
// The counter itself: each of download, synchronize, sum and sum_squares counts one read.
#include "testing.h"
#include "../bench/train/step_device.h"
#include "../core/common.h"
#include "../core/optimizer.h"
#include "../objectives/mae/mae.h"
#include "../objectives/gvp/gvp.h"
#include "../datasets/text/text.h"
#include "../core/rng.h"
#include "model_testing.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { B = 4, STEPS = 7 };

// The trained objective: supervised (pe.kind=abs), mp3 (pe.kind=none, eta 0.5: 8 of 16 patches
// in each image's context), mae (pe.kind=sin2d, eta 0.75: 4 of 16 patches kept; a decoder of 1
// block of width 8), gvp (pe.kind=sin2d, two streams, 4 groups of fixed segmentation in a random
// order: 13 of 16 patches predicted) or mlm (byte sequences of 16 tokens, pe.kind=abs: 2 positions
// of each chosen), and the gradient clip that bites on some of its 7 steps.
typedef struct {
    const char *objective, *pe_kind;
    double eta;
    float clip;
} trainee_case;

static const trainee_case cases[] = {{"supervised", "abs", 0.0, 1.5f}, {"mp3", "none", 0.5, 0.44f}, {"mae", "sin2d", 0.75, 0.28f},
                                     {"gvp", "sin2d", 0.0, 0.38f}, {"mlm", "abs", 0.0, 2.9f}};

static int token_input(const trainee_case *c) { return objective_find(c->objective)->text_input; }

static void trainee_create(trainee *t, const ops_backend *ops, const trainee_case *c) {
    int text = token_input(c);
    objective_settings s = {.name = c->objective, .pe_kind = c->pe_kind, .label_smoothing = 0.1, .patch = text ? 1 : 3,
                            .train_size = text ? 16 : 12, .cls = !text, .eta = c->eta, .heads = 2, .text_data = text,
                            .data_unlabeled = text};
    if (!strcmp(c->objective, "gvp"))
        *OBJECTIVE_OWN(&s, gvp_settings) = (gvp_settings){.groups = 4, .segmentation = "fixed", .order = "random",
                                                          .streams = 2, .probe_mask = "causal"};
    else *OBJECTIVE_OWN(&s, mae_settings) = (mae_settings){.decoder_depth = 1, .decoder_dim = 8}; // read by mae only
    const objective_kind *kind = objective_find(c->objective);
    model_config cfg = {.channels = 1, .image_size = 12, .patch = 3, .dim = 16, .depth = 2, .heads = 2, .mlp_ratio = 2,
                        .cls = 1, .pe_kind = c->pe_kind, .num_classes = 3, .dropout = 0.1f, .drop_path = 0.2f};
    if (text) cfg.image_size = 16, cfg.patch = 1, cfg.cls = 0, cfg.vocab = TEXT_VOCAB, cfg.num_classes = TEXT_BYTES;
    const char *why = objective_config_error(&s);
    if (why) die_fail("test config: %s", why);
    kind->configure_model(&s, &cfg);
    model_create(&t->m, &cfg, ops, B, 5);
    objective_create(&t->o, kind, &s, &t->m, B);
    trainee_alloc_adam(t);
}

// The batch of step s (the same in both trainees): images uniform, or bytes of a counter RNG
// stream (a token model); labels by step.
static void fill_batch(trainee *t, int32_t *labels, int s) {
    if (t->m.cfg.vocab > 0) {
        int32_t *tokens = (int32_t *)model_images(&t->m); // (B, 16)
        rng_stream r = rng_stream_make(20u + (unsigned)s, RNG_TEST, 0, 0, 0);
        for (int i = 0; i < B * 16; i++) tokens[i] = (int32_t)rng_below(&r, 8); // byte 0 in every batch: the NaN check plants in its embedding row
    } else {
        test_fill_uniform(model_images(&t->m), (size_t)B * 144, -1.0f, 1.0f, 20u + (unsigned)s);
    }
    for (int b = 0; b < B; b++) labels[b] = (b + s) % 3;
}

static void check_backend(const ops_backend *ops, const trainee_case *c) {
    char name[128];
    trainee ref, dev;
    trainee_create(&ref, ops, c);
    trainee_create(&dev, ops, c);
    optim_config oc = {.lr = 3e-3f, .min_lr = 1e-4f, .weight_decay = 0.05f, .beta1 = 0.9f, .beta2 = 0.999f,
                       .eps = 1e-8f, .clip = c->clip, .warmup_steps = 2, .total_steps = STEPS};
    step_device sd;
    step_device_create(&sd, ops, 0, "test: eager");
    step_target target = {.obj = &dev.o, .m = &dev.m, .adam_m = dev.adam_m, .adam_v = dev.adam_v, .oc = &oc, .B = B};
    int32_t labels[B];
    double ref_loss[STEPS], ref_norm[STEPS], got_loss[STEP_DEVICE_CAP], got_norm[STEP_DEVICE_CAP];
    float ref_lr[STEPS], got_lr[STEPS];
    int first = 0, inside_reads = 0, bad_reads = 0, reads_done = 0, clipped = 0, state_bad = 0, value_bad = 0;
    for (int s = 0; s < STEPS; s++) {
        rng_addr rng = {.seed = 1, .epoch = 0, .step = (uint32_t)s};
        ops->set_rng_clock(NULL); // the reading step draws at the address passed (the clock is process-wide)
        fill_batch(&ref, labels, s);
        ref_loss[s] = ref.o.kind->train_forward(&ref.o, B, labels, rng);
        ops->zero(ref.m.grad, ref.m.params.total);
        model_zero_act_grads_batch(&ref.m, B);
        ref.o.kind->train_backward(&ref.o, B);
        ref_norm[s] = optim_step(ops, &ref.m.params, ref.m.param, ref.m.grad, ref.adam_m, ref.adam_v, &oc, s, &ref_lr[s]);
        clipped += ref_norm[s] > oc.clip;

        ops->set_rng_clock(sd.clock);
        fill_batch(&dev, labels, s);
        ops->host_reads(1);
        got_lr[s] = step_device_run(&sd, &target, labels, rng, s, NULL);
        size_t reads = ops->host_reads(1);
        if (reads) inside_reads++;
        if (s == 2 || s == STEPS - 1) { // the logging steps: one download for every step since the last
            int n = step_device_read(&sd, got_loss, got_norm);
            size_t r = ops->host_reads(1);
            if (r != 1 || n != s + 1 - first) bad_reads++;
            for (int i = 0; i < n; i++)
                if (memcmp(&got_loss[i], &ref_loss[first + i], sizeof(double)) ||
                    memcmp(&got_norm[i], &ref_norm[first + i], sizeof(double)) ||
                    memcmp(&got_lr[first + i], &ref_lr[first + i], sizeof(float)))
                    value_bad++;
            reads_done++;
            first = s + 1;
        }
        ops->host_reads(1);
        if (!trainee_same_state(&ref, &dev)) state_bad++;
    }
    snprintf(name, sizeof name, "host reads: %s %s: none inside a step", c->objective, ops->name);
    test_check(name, inside_reads == 0 && bad_reads == 0 && reads_done == 2, "%d of %d steps read mid-step; %d of %d reads were not one download of the pending steps",
               inside_reads, STEPS, bad_reads, reads_done);
    snprintf(name, sizeof name, "host reads: %s %s: values and state bitwise", c->objective, ops->name);
    test_check(name, value_bad == 0 && state_bad == 0 && clipped > 0 && clipped < STEPS,
               "%d steps with a loss, norm or rate unlike the reading step's, %d with other parameters or moments; "
               "%d of %d steps clipped (norm > %g)", value_bad, state_bad, clipped, STEPS, oc.clip);

    // A NaN in a parameter: the loss is not finite, read back as such; nothing changes.
    float nan = NAN;
    ops->upload(ref.m.param + 1, &nan, sizeof nan);
    ops->upload(dev.m.param + 1, &nan, sizeof nan);
    rng_addr rng = {.seed = 1, .epoch = 1, .step = 0};
    ops->set_rng_clock(NULL);
    fill_batch(&ref, labels, STEPS);
    double bad_ref = ref.o.kind->train_forward(&ref.o, B, labels, rng); // the reading step stops here: no update
    ops->set_rng_clock(sd.clock);
    fill_batch(&dev, labels, STEPS);
    step_device_run(&sd, &target, labels, rng, STEPS, NULL);
    int n = step_device_read(&sd, got_loss, got_norm);
    snprintf(name, sizeof name, "host reads: %s %s: a non-finite loss changes nothing", c->objective, ops->name);
    test_check(name, !isfinite(bad_ref) && n == 1 && !isfinite(got_loss[0]) && trainee_same_state(&ref, &dev),
               "reading step's loss %g; device step read %d value(s), loss %g; state %s", bad_ref, n, got_loss[0],
               trainee_same_state(&ref, &dev) ? "unchanged" : "changed");

    step_device_free(&sd);
    trainee_free(&ref);
    trainee_free(&dev);
}

// An objective's forward as a replay issues it: the host code of train_forward_to ran once, at
// step 0's address; each later step only stages its draws (train_stage) and sets the clock.
static void check_stale_forward(const ops_backend *ops, const trainee_case *c) {
    trainee ref, dev;
    trainee_create(&ref, ops, c);
    trainee_create(&dev, ops, c);
    uint32_t *clock = ops->alloc(2 * sizeof(uint32_t), "clock");
    double *loss = ops->alloc(sizeof(double), "loss");
    int32_t labels[B];
    double ref_loss[STEPS], got[STEPS];
    int bad = 0, distinct = 0;
    rng_addr stale = {.seed = 1, .epoch = 0, .step = 0};
    for (int s = 0; s < STEPS; s++) {
        rng_addr rng = {.seed = 1, .epoch = 0, .step = (uint32_t)s};
        ops->set_rng_clock(NULL);
        fill_batch(&ref, labels, s);
        ref_loss[s] = ref.o.kind->train_forward(&ref.o, B, labels, rng);
        uint32_t now[2] = {rng.epoch, rng.step};
        ops->upload(clock, now, sizeof now);
        ops->set_rng_clock(clock);
        fill_batch(&dev, labels, s);
        dev.o.kind->train_stage(&dev.o, B, rng);
        dev.o.kind->train_forward_to(&dev.o, B, labels, stale, loss);
        ops->download(&got[s], loss, sizeof(double));
        bad += memcmp(&got[s], &ref_loss[s], sizeof(double)) != 0;
        distinct += s > 0 && ref_loss[s] != ref_loss[0];
    }
    ops->set_rng_clock(NULL);
    char name[96];
    snprintf(name, sizeof name, "host reads: %s %s: staged draws, stale forward address", c->objective, ops->name);
    test_check(name, bad == 0 && distinct == STEPS - 1, "%d of %d steps' losses unlike the reading forward's at their step "
               "(step 6: %.9g vs %.9g); %d of %d later steps' losses differ from step 0's", bad, STEPS, got[STEPS - 1],
               ref_loss[STEPS - 1], distinct, STEPS - 1);
    ops->free(clock);
    ops->free(loss);
    trainee_free(&ref);
    trainee_free(&dev);
}

// Each counted call adds one read; upload, copy and the ops do not.
static void check_counter(const ops_backend *ops) {
    float *x = ops->alloc(8 * sizeof(float), "x");
    double *total = ops->alloc(sizeof(double), "total");
    float host[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double d;
    ops->host_reads(1);
    ops->upload(x, host, sizeof host);
    ops->copy(x + 4, x, 4 * sizeof(float));
    ops->sum_to(total, x, 8, 2.0);
    size_t quiet = ops->host_reads(1);
    ops->download(host, x, sizeof host);
    ops->synchronize();
    d = ops->sum(x, 8);
    d += ops->sum_squares(x, 8);
    size_t counted = ops->host_reads(1);
    char name[96];
    snprintf(name, sizeof name, "host reads: %s: the counter", ops->name);
    test_check(name, quiet == 0 && counted == 4 && d > 0, "upload, copy, sum_to: %zu reads (want 0); download, "
               "synchronize, sum, sum_squares: %zu (want 4)", quiet, counted);
    ops->free(x);
    ops->free(total);
}

int main(void) {
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
        check_backend(&ops_cpu, &cases[c]);
        check_backend(&ops_cpu_guarded, &cases[c]);
    }
    for (int c = 1; c < (int)(sizeof cases / sizeof cases[0]); c++) { // the objectives with draws
        check_stale_forward(&ops_cpu, &cases[c]);
        check_stale_forward(&ops_cpu_guarded, &cases[c]);
    }
    check_counter(&ops_cpu);
    check_counter(&ops_cpu_guarded);
    return test_exit_code();
}
