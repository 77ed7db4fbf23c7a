// tests/test_host_reads_views.c — the training step without host reads (bench/train/step_device.h,
// train.graph=on) for an objective that draws its own views: SimCLR (its 2B views staged from the
// raw images before each step by objective_kind.train_stage_views), on the CPU and guarded
// backends, against the step the trainer takes with train.graph=off (gradients zeroed,
// train_views, optim_step: bench/train/train_step.c own_views_step). A small ViT with dropout and
// drop path (drawn at the clock the device step uploads: ops set_rng_clock) on a synthetic
// 12 px dataset, trained 6 steps both ways with clipping that bites on some steps. Checked:
// - no host read inside a device step (ops host_reads counts 0 between its start and end) and one
//   download for the values of every step since the last read, read at "logging" steps 3 and 6;
// - every step's loss and gradient norm, the learning rate, and the parameters and AdamW moments
//   after each step bitwise those of the reading step;
// - the forward as a replay issues it: train_forward_to's host code run with step 0's stale
//   address, each step's views staged by train_stage_views and the clock set before it: every
//   step's loss bitwise train_views' at its own step (and the losses differ from step 0's, so a
//   stale view would show);
// - DINO with its 2 global views (dino.local_crops=0) the same way over 6 steps of 3 per epoch
//   (the teacher temperature's warmup and the prototypes' freeze change at epoch 1; its weight
//   decay schedule reaches AdamW through STEP_WD, its EMA runs after AdamW inside the step):
//   no host read inside a step, values and state bitwise the reading step's (train_views,
//   AdamW at weight_decay_at, after_step); and with local crops at 6 px (dino.local_crops=2, and
//   3: an odd last group of one view), staged before the step in backend memory, the student
//   switching to 6 px and back inside it, each group's drop path drawn in its own epoch slot
//   under the device step's clock: the same checks;
// - the grid tables of a kept size (model_keep_resolution): a switch to it restores them by a
//   backend copy even when the host staging holds another size's tables (what a replayed switch
//   reads), so the forward at that size is bitwise the one with the host's own tables;
// - the RNG clock keeps an address's epoch slot: drop path under a clock at (epoch, step) with
//   slot k << 24 draws what it draws at the address (epoch + (k << 24), step) without a clock.
#include "testing.h"
#include "model_testing.h"
#include "../bench/train/step_device.h"
#include "../core/common.h"
#include "../core/optimizer.h"
#include "../core/rng.h"
#include "../datasets/dataset.h"
#include "../objectives/simclr/simclr.h"
#include "../objectives/dino/dino.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { B = 4, STEPS = 6, IMAGES = 16, SIDE = 12, STEPS_PER_EPOCH = 3 };
#define DINO_CLIP 1000.0f // DINO's first gradient norms are large (~1e4 here, then ~30): clipping bites on some steps

// Uint8 pixels uniform, 1 channel of SIDE px, labels by index (unused by SimCLR).
static dataset synthetic(void) {
    dataset ds;
    memset(&ds, 0, sizeof ds);
    snprintf(ds.name, sizeof ds.name, "synthetic");
    ds.n = IMAGES, ds.channels = 1, ds.height = SIDE, ds.width = SIDE, ds.num_classes = 10;
    size_t row = (size_t)SIDE * SIDE;
    ds.pixels = xmalloc((size_t)IMAGES * row, "test pixels");
    ds.labels = xmalloc((size_t)IMAGES * sizeof *ds.labels, "test labels");
    rng_stream s = rng_stream_make(11, RNG_TEST, 0, 0, 7);
    for (size_t i = 0; i < (size_t)IMAGES * row; i++) ds.pixels[i] = (uint8_t)rng_below(&s, 256);
    for (int i = 0; i < IMAGES; i++) ds.labels[i] = i % 10;
    for (int c = 0; c < 3; c++) ds.mean[c] = 0.3f, ds.std[c] = 0.35f;
    return ds;
}

// kind: objective_simclr or objective_dino (with local_crops local crops at 6 px).
static void trainee_create(trainee *t, const ops_backend *ops, const objective_kind *kind, int local_crops) {
    objective_settings s;
    memset(&s, 0, sizeof s);
    s.name = kind->name, s.pe_kind = "abs", s.cls = 1, s.batch = B, s.train_size = SIDE, s.patch = 3, s.heads = 2, s.seed = 1;
    s.total_steps = STEPS, s.steps_per_epoch = STEPS_PER_EPOCH;
    if (kind == &objective_simclr)
        *OBJECTIVE_OWN(&s, simclr_settings) = (simclr_settings){.temperature = 0.5, .color_strength = 0.5, .hidden_dim = 12,
                                                                 .proj_dim = 6, .pool = SIMCLR_POOL_CLS};
    else
        *OBJECTIVE_OWN(&s, dino_settings) = (dino_settings){
            .hidden_dim = 12, .bottleneck_dim = 6, .out_dim = 16, .local_crops = local_crops, .local_size = 6, .freeze_last_layer = 1,
            .teacher_temp_warmup = 2, .momentum = 0.9f, .student_temp = 0.1f, .teacher_temp = 0.07f,
            .warmup_teacher_temp = 0.04f, .center_momentum = 0.9f, .weight_decay = 0.04f, .weight_decay_end = 0.4f};
    const char *why = objective_config_error(&s);
    if (why) die_fail("test config: %s", why);
    model_config cfg = {.channels = 1, .image_size = SIDE, .patch = 3, .dim = 16, .depth = 2, .heads = 2, .mlp_ratio = 2,
                        .cls = 1, .pe_kind = "abs", .num_classes = 10, .dropout = 0.1f, .drop_path = 0.2f};
    kind->configure_model(&s, &cfg);
    model_create(&t->m, &cfg, ops, 2 * B, 5);
    objective_create(&t->o, kind, &s, &t->m, 2 * B);
    trainee_alloc_adam(t);
}

// The raw images of step s: B of the dataset, a different set each step.
static objective_batch batch_of(const dataset *ds, int *idx, int s) {
    for (int b = 0; b < B; b++) idx[b] = (3 * b + 5 * s) % IMAGES;
    return (objective_batch){.data = ds, .indices = idx, .B = B,
                             .rng = {.seed = 1, .epoch = (uint32_t)(s / STEPS_PER_EPOCH), .step = (uint32_t)(s % STEPS_PER_EPOCH)}};
}

static void check_backend(const ops_backend *ops, const dataset *ds, const objective_kind *kind, int local_crops) {
    char name[160], what[48];
    trainee ref, dev;
    trainee_create(&ref, ops, kind, local_crops);
    trainee_create(&dev, ops, kind, local_crops);
    snprintf(what, sizeof what, kind == &objective_dino ? "%s (%d local crops)" : "%s", kind->name, local_crops);
    optim_config oc = {.lr = 3e-3f, .min_lr = 1e-4f, .weight_decay = 0.05f, .beta1 = 0.9f, .beta2 = 0.999f,
                       .eps = 1e-8f, .clip = kind == &objective_dino ? DINO_CLIP : 0.9f, .warmup_steps = 2,
                       .total_steps = STEPS};
    step_device sd;
    step_device_create(&sd, ops, 0, "test: eager");
    int32_t labels[B] = {0};
    int idx[B];
    double ref_loss[STEPS], ref_norm[STEPS], got_loss[STEP_DEVICE_CAP], got_norm[STEP_DEVICE_CAP];
    float ref_lr[STEPS], got_lr[STEPS];
    int first = 0, inside_reads = 0, bad_reads = 0, reads_done = 0, clipped = 0, state_bad = 0, value_bad = 0;
    for (int s = 0; s < STEPS; s++) {
        objective_batch bt = batch_of(ds, idx, s);
        ops->set_rng_clock(NULL); // the reading step draws at the address passed (the clock is process-wide)
        ops->zero(ref.m.grad, ref.m.params.total);
        ref_loss[s] = kind->train_views(&ref.o, &bt);
        optim_config ref_oc = oc; // the trainer's own_views_step: the objective's weight decay, its hook after AdamW
        if (kind->weight_decay_at) ref_oc.weight_decay = (float)kind->weight_decay_at(&ref.o, s);
        ref_norm[s] = optim_step(ops, &ref.m.params, ref.m.param, ref.m.grad, ref.adam_m, ref.adam_v, &ref_oc, s, &ref_lr[s]);
        if (kind->after_step) kind->after_step(&ref.o, s);
        clipped += ref_norm[s] > oc.clip;

        ops->set_rng_clock(sd.clock);
        step_target target = {.obj = &dev.o, .m = &dev.m, .adam_m = dev.adam_m, .adam_v = dev.adam_v, .oc = &oc, .B = B,
                              .views = &bt};
        ops->host_reads(1);
        got_lr[s] = step_device_run(&sd, &target, labels, bt.rng, s, NULL);
        if (ops->host_reads(1)) inside_reads++;
        if (s == 2 || s == STEPS - 1) { // the logging steps: one download for every step since the last
            int n = step_device_read(&sd, got_loss, got_norm);
            if (ops->host_reads(1) != 1 || n != s + 1 - first) bad_reads++;
            for (int i = 0; i < n; i++)
                if (memcmp(&got_loss[i], &ref_loss[first + i], sizeof(double)) ||
                    memcmp(&got_norm[i], &ref_norm[first + i], sizeof(double)) ||
                    memcmp(&got_lr[first + i], &ref_lr[first + i], sizeof(float)))
                    value_bad++;
            reads_done++;
            first = s + 1;
        }
        if (!trainee_same_state(&ref, &dev)) state_bad++;
    }
    ops->set_rng_clock(NULL);
    snprintf(name, sizeof name, "host reads: %s %s: none inside a step", what, ops->name);
    test_check(name, inside_reads == 0 && bad_reads == 0 && reads_done == 2,
               "%d of %d steps read mid-step; %d of %d reads were not one download of the pending steps", inside_reads,
               STEPS, bad_reads, reads_done);
    snprintf(name, sizeof name, "host reads: %s %s: values and state bitwise the reading step's", what, ops->name);
    test_check(name, value_bad == 0 && state_bad == 0 && clipped > 0 && clipped < STEPS,
               "%d steps with a loss, norm or rate unlike the reading step's, %d with other parameters or moments; "
               "%d of %d steps clipped (norm > %g; norms %.3g .. %.3g)", value_bad, state_bad, clipped, STEPS, oc.clip,
               ref_norm[0], ref_norm[STEPS - 1]);
    step_device_free(&sd);
    trainee_free(&ref);
    trainee_free(&dev);
}

// The forward as a replay issues it: train_forward_to's host code at step 0's address, each step's
// views staged by train_stage_views and the clock uploaded before it.
static void check_stale_forward(const ops_backend *ops, const dataset *ds) {
    trainee ref, dev;
    trainee_create(&ref, ops, &objective_simclr, 0);
    trainee_create(&dev, ops, &objective_simclr, 0);
    uint32_t *clock = ops->alloc(2 * sizeof(uint32_t), "clock");
    double *loss = ops->alloc(sizeof(double), "loss");
    int idx[B];
    double ref_loss[STEPS], got[STEPS];
    int bad = 0, distinct = 0;
    rng_addr stale = {.seed = 1, .epoch = 0, .step = 0};
    for (int s = 0; s < STEPS; s++) {
        objective_batch bt = batch_of(ds, idx, s);
        ops->set_rng_clock(NULL);
        ops->zero(ref.m.grad, ref.m.params.total);
        ref_loss[s] = ref.o.kind->train_views(&ref.o, &bt);
        uint32_t now[2] = {bt.rng.epoch, bt.rng.step};
        ops->upload(clock, now, sizeof now);
        ops->set_rng_clock(clock);
        dev.o.kind->train_stage_views(&dev.o, &bt);
        dev.o.kind->train_forward_to(&dev.o, B, NULL, stale, loss);
        ops->download(&got[s], loss, sizeof(double));
        bad += memcmp(&got[s], &ref_loss[s], sizeof(double)) != 0;
        distinct += s > 0 && ref_loss[s] != ref_loss[0];
    }
    ops->set_rng_clock(NULL);
    char name[96];
    snprintf(name, sizeof name, "host reads: simclr %s: staged views, stale forward address", ops->name);
    test_check(name, bad == 0 && distinct == STEPS - 1, "%d of %d steps' losses unlike train_views' at their step "
               "(step %d: %.9g vs %.9g); %d of %d later steps' losses differ from step 0's", bad, STEPS, STEPS - 1,
               got[STEPS - 1], ref_loss[STEPS - 1], distinct, STEPS - 1);
    ops->free(clock);
    ops->free(loss);
    trainee_free(&ref);
    trainee_free(&dev);
}

// A model that keeps 6 px and 12 px, its input arena zeroed and its encoding's and backbone's
// host work (set_grid) skipped, as a replayed switch skips them: switching to each size must
// give the forward of a model whose host computed and uploaded that size's tables.
static void check_kept_tables(const ops_backend *ops) {
    model_config cfg = {.channels = 1, .image_size = SIDE, .patch = 3, .dim = 16, .depth = 2, .heads = 2, .mlp_ratio = 2,
                        .cls = 1, .pe_kind = "abs", .num_classes = 10};
    model host, kept;
    model_create(&host, &cfg, ops, B, 5);
    model_create(&kept, &cfg, ops, B, 5);
    model_keep_resolution(&kept, 6);
    model_keep_resolution(&kept, SIDE);
    posenc_kind pe = *kept.pe;
    backbone_kind arch = *kept.arch;
    pe.set_grid = NULL, arch.set_grid = NULL; // what a replay does not run
    kept.pe = &pe, kept.arch = &arch;
    int sizes[3] = {6, SIDE, 6}, bad = 0;
    float *a = xmalloc(B * 10 * sizeof(float), "logits"), *b = xmalloc(B * 10 * sizeof(float), "logits");
    for (int i = 0; i < 3; i++) {
        ops->zero(kept.input, kept.inputs.total); // nothing of the last size's tables left
        model_set_resolution(&host, sizes[i]);
        model_set_resolution(&kept, sizes[i]);
        size_t n = (size_t)B * model_input_floats(&host);
        float *ih = model_images(&host), *ik = model_images(&kept);
        for (size_t e = 0; e < n; e++) ih[e] = ik[e] = (float)((e * 7 + (size_t)i) % 13) / 13.0f - 0.5f;
        rng_addr rng = {.seed = 1};
        ops->download(a, model_forward(&host, B, 0, rng), B * 10 * sizeof(float));
        ops->download(b, model_forward(&kept, B, 0, rng), B * 10 * sizeof(float));
        bad += memcmp(a, b, B * 10 * sizeof(float)) != 0;
    }
    kept.pe = host.pe, kept.arch = host.arch;
    char name[96];
    snprintf(name, sizeof name, "kept resolution %s: tables restored by a backend copy", ops->name);
    test_check(name, bad == 0, "%d of 3 switches (6, %d, 6 px; abs table resized at 6) gave other logits than the host's "
               "tables (first logit %.9g vs %.9g)", bad, SIDE, a[0], b[0]);
    free(a), free(b);
    model_free(&host);
    model_free(&kept);
}

// Drop path under the RNG clock (epoch 3, step 5) with the address's epoch slot 2 << 24 draws
// what it draws at (epoch (2 << 24) + 3, step 5) without a clock, and not what slot 0 draws.
static void check_clock_slot(const ops_backend *ops) {
    enum { N = 64 };
    uint32_t now[2] = {3, 5}, *clock = ops->alloc(sizeof now, "clock");
    float *keep = ops->alloc(N * sizeof(float), "keep scales");
    float clocked[N], slot0[N], plain[N];
    ops->upload(clock, now, sizeof now);
    ops->set_rng_clock(clock);
    rng_addr a = {.seed = 1, .purpose = RNG_DROPPATH, .epoch = 2u << 24, .step = 0, .index = 4};
    ops->drop_path_scales(keep, N, 0.5f, a);
    ops->download(clocked, keep, sizeof clocked);
    a.epoch = 0;
    ops->drop_path_scales(keep, N, 0.5f, a);
    ops->download(slot0, keep, sizeof slot0);
    ops->set_rng_clock(NULL);
    a.epoch = (2u << 24) + 3, a.step = 5;
    ops->drop_path_scales(keep, N, 0.5f, a);
    ops->download(plain, keep, sizeof plain);
    char name[96];
    snprintf(name, sizeof name, "RNG clock %s: keeps the address's epoch slot", ops->name);
    test_check(name, !memcmp(clocked, plain, sizeof plain) && memcmp(clocked, slot0, sizeof slot0),
               "slot 2 under the clock %s the unclocked draw at epoch (2 << 24) + 3; %s slot 0's",
               memcmp(clocked, plain, sizeof plain) ? "differs from" : "equals",
               memcmp(clocked, slot0, sizeof slot0) ? "differs from" : "equals (the slot was dropped)");
    ops->free(clock);
    ops->free(keep);
}

int main(void) {
    dataset ds = synthetic();
    check_backend(&ops_cpu, &ds, &objective_simclr, 0);
    check_backend(&ops_cpu_guarded, &ds, &objective_simclr, 0);
    for (int locals = 0; locals <= 3; locals += locals ? 1 : 2) { // 0, 2, 3
        check_backend(&ops_cpu, &ds, &objective_dino, locals);
        check_backend(&ops_cpu_guarded, &ds, &objective_dino, locals);
    }
    check_kept_tables(&ops_cpu);
    check_kept_tables(&ops_cpu_guarded);
    check_clock_slot(&ops_cpu);
    check_clock_slot(&ops_cpu_guarded);
    check_stale_forward(&ops_cpu, &ds);
    check_stale_forward(&ops_cpu_guarded, &ds);
    free(ds.pixels), free(ds.labels);
    return test_exit_code();
}
