// bench/perf/perf.c — step benchmarks: median training-step time, images/s, achieved GFLOP/s as a
// fraction of the backend's own linear layer (OpenBLAS sgemm on the CPU, cuBLAS on cuda)
// measured in this process, peak memory, and the ratio to the
// identical step in PyTorch (bench/perf/torch_cpu_step.py) run right after ours: Debian's
// PyTorch 1.13 (/usr/bin/python3), and when `make deps-anchors` made build/venv-anchors current
// PyTorch there, eager and torch.compile (one line under the config's row). With
// --device cuda the PyTorch step is bench/perf/torch_gpu_step.py on the GPU (torch.compile,
// fp32 like ours; its own --config list adds bf16, eager and the MP3 / ViT-B/16 configs).
#include "perf.h"
#include "arena_plan.h"
#include "../config/config.h"
#include "../run/estimate.h"
#include "../run/launch.h"
#include "../train/graph_replay.h"
#include "../train/step_device.h"
#include "../../core/attention_route.h"
#include "../../core/common.h"
#include "../../core/optimizer.h"
#include "../../core/rng.h"
#include "../../models/model.h"
#include "../../models/backbones/gmlp.h"
#include "../../core/device.h"
#include "../../core/ops_cuda.h"
#include "../../datasets/dataset.h"
#include "../../objectives/objective.h"
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const char *name;
    model_config model;
    int batch;
    int gpu_sized;         // 1: left out of the all-configs run on a CPU backend (minutes per step there); named, it runs
    const char *objective; // objective.name of the step (NULL: supervised)
    double eta;            // objective.eta (mp3)
    // The objective's own keys, "key=value" words over their defaults (NULL: the defaults; only
    // for an objective with own keys, objective_kind.read_settings)
    const char *own_keys;
} perf_config;

// MP3 ViT-B/16 (MP3 Table 2: step time and memory against the ViT-B/16 step, by eta): the
// backbone of vit-b16-224 with the position head and masked attention, pe.kind none.
#define MP3_B16_224(eta_name, eta_value)                                                                  \
    {"mp3-b16-224-" eta_name, {.channels = 3, .image_size = 224, .patch = 16, .dim = 768, .depth = 12,       \
                               .heads = 12, .mlp_ratio = 4, .cls = 1, .pe_kind = "none", .num_classes = 1000}, \
     128, 1, "mp3", eta_value, NULL}

static const perf_config perf_configs[] = {
    {"vit-d128-L6-p4-28px", {.channels = 1, .image_size = 28, .patch = 4, .dim = 128, .depth = 6, .heads = 4,
                             .mlp_ratio = 4, .cls = 1, .pe_kind = "abs", .num_classes = 10}, 128, 0, NULL, 0, NULL},
    {"vit-d192-L12-p4-32px", {.channels = 3, .image_size = 32, .patch = 4, .dim = 192, .depth = 12, .heads = 3,
                              .mlp_ratio = 4, .cls = 1, .pe_kind = "abs", .num_classes = 100}, 128, 0, NULL, 0, NULL},
    // the small step `make bench-ci` times (bench/perf/regress.h): seconds, not minutes, per sample set
    {"vit-d64-L2-p4-28px-ci", {.channels = 1, .image_size = 28, .patch = 4, .dim = 64, .depth = 2, .heads = 2,
                               .mlp_ratio = 2, .cls = 1, .pe_kind = "abs", .num_classes = 10}, 32, 0, NULL, 0, NULL},
    // gMLP (issue 16) beside the ViT of the same width and depth: dense spatial W, no position encoding
    {"gmlp-d128-L6-p4-28px", {.channels = 1, .image_size = 28, .patch = 4, .dim = 128, .depth = 6, .heads = 4,
                              .mlp_ratio = 4, .cls = 1, .pe_kind = "none", .arch = "gmlp", .num_classes = 10},
     128, 0, NULL, 0, NULL},
    // the GPU configs of issue 14, the same shapes as bench/perf/torch_gpu_step.py's configs of these names
    {"vit-s4-32", {.channels = 3, .image_size = 32, .patch = 4, .dim = 384, .depth = 12, .heads = 6,
                   .mlp_ratio = 4, .cls = 1, .pe_kind = "abs", .num_classes = 100}, 256, 1, NULL, 0, NULL},
    {"vit-b16-224", {.channels = 3, .image_size = 224, .patch = 16, .dim = 768, .depth = 12, .heads = 12,
                     .mlp_ratio = 4, .cls = 1, .pe_kind = "abs", .num_classes = 1000}, 128, 1, NULL, 0, NULL},
    MP3_B16_224("e30", 0.3), MP3_B16_224("e50", 0.5), MP3_B16_224("e75", 0.75), MP3_B16_224("e90", 0.9),
    // the MP3 step small enough for the CPU (and for tests/e2e_train.sh)
    {"mp3-d64-L2-p4-28px-e75", {.channels = 1, .image_size = 28, .patch = 4, .dim = 64, .depth = 2, .heads = 2,
                                .mlp_ratio = 2, .cls = 1, .pe_kind = "none", .num_classes = 10}, 32, 0, "mp3", 0.75, NULL},
    // the GVP step small enough for the CPU: two streams, 4 groups of fixed segmentation (static
    // shapes: --graph on replays it on the GPU)
    {"gvp-d64-L2-p4-28px-fixed", {.channels = 1, .image_size = 28, .patch = 4, .dim = 64, .depth = 2, .heads = 2,
                                  .mlp_ratio = 2, .cls = 1, .pe_kind = "sin2d", .num_classes = 10}, 32, 0, "gvp", 0,
     "objective.groups=4 objective.segmentation=fixed"},
    // the objectives that draw their own views from raw images (synthetic ones here, staged before
    // each step): SimCLR's 2 views and DINO's 2 global + 6 local crops (12 px), small enough for the CPU
    {"simclr-d64-L2-p4-28px", {.channels = 1, .image_size = 28, .patch = 4, .dim = 64, .depth = 2, .heads = 2,
                               .mlp_ratio = 2, .cls = 1, .pe_kind = "abs", .num_classes = 10}, 32, 0, "simclr", 0, NULL},
    {"dino-d64-L2-p4-28px", {.channels = 1, .image_size = 28, .patch = 4, .dim = 64, .depth = 2, .heads = 2,
                             .mlp_ratio = 2, .cls = 1, .pe_kind = "abs", .num_classes = 10}, 32, 0, "dino", 0,
     "dino.hidden_dim=256 dino.bottleneck_dim=64 dino.out_dim=1024"},
    // DINO at ViT-S/16 (the paper's recipe per GPU: 2 x 224 px global + 6 x 96 px local crops, 64 images)
    {"dino-s16-224", {.channels = 3, .image_size = 224, .patch = 16, .dim = 384, .depth = 12, .heads = 6,
                      .mlp_ratio = 4, .cls = 1, .pe_kind = "abs", .num_classes = 1000}, 64, 1, "dino", 0,
     "dino.local_size=96 dino.hidden_dim=2048 dino.bottleneck_dim=256 dino.out_dim=65536"},
};

void perf_check_attention(const char *v) {
    static const char *const routes[] = {"auto", "materialised", "fused", "cudnn", "materialised-inplace"}; // ATTENTION_ROUTE_SETTINGS
    const char *closest = NULL;
    int best = 3;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (!strcmp(v, routes[i])) return;
        int d = cfg_edit_distance(v, routes[i]);
        if (d < best) best = d, closest = routes[i];
    }
    if (closest)
        die_input("--attention must be auto, materialised, fused, cudnn or materialised-inplace, got '%s' (did you mean '%s'?)",
                  v, closest);
    die_input("--attention must be auto, materialised, fused, cudnn or materialised-inplace, got '%s'", v);
}

void perf_help(void) {
    printf("usage: posbench bench [--config NAME] [--iters N] [--no-torch] [--threads N] [--device D] [--precision fp32|bf16]\n"
           "                      [--attention auto|materialised|fused|cudnn|materialised-inplace] [--activations fp32|bf16]\n"
           "                      [--breakdown] [--recompute off|gelu] [--linear gemmex|lt] [--kernels v1|v2] [--graph on|off] [--arena-only]\n"
           "Times the full training step (forward, label-smoothed cross entropy, backward, AdamW) of\n"
           "each config and prints the median step time, images/s, achieved GFLOP/s, that as a\n"
           "fraction of the backend's own 2048^3 linear layer (OpenBLAS; with --device cuda cuBLAS at 8192^3, at the\n"
           "same precision) measured in this process, peak memory, and the ratio to the\n"
           "same step in PyTorch on the CPU (Debian's /usr/bin/python3, same thread count; and when make deps-anchors\n"
           "has made build/venv-anchors, current PyTorch there, eager and torch.compile, on a line below), or with --device\n"
           "cuda on the GPU (bench/perf/torch_gpu_step.py: torch.compile at the same --precision, bf16 = autocast;\n"
           "python3 from PATH). --precision bf16 times train.precision=bf16 (on a CPU backend an emulation,\n"
           "slower than fp32, and not compared with PyTorch). --attention (with --device cuda) forces the training\n"
           "attention: materialised = bf16 cuBLAS products with a fused softmax (needs bf16), fused = the\n"
           "online-softmax fp32 kernels, cudnn = cuDNN's flash attention (needs bf16 and libcudnn at run time;\n"
           "calls with a key subset, group mask or bias, or without the library, take auto's route);\n"
           "auto = materialised in bf16 up to 1024 tokens, else fused; materialised-inplace = materialised whose\n"
           "--activations bf16 calls read q, k, v and write out and the gradients in their rows (no head-major\n"
           "copies) where the rows allow it (no key index, 16-byte aligned heads; unmeasured, not auto's).\n"
           "--breakdown adds per config the median time of each phase of the step (upload, forward, zero, backward,\n"
           "optimizer; CUDA events on the GPU, the clock on the CPU), their total against the step, and the host's\n"
           "blocked time in mid-step downloads and synchronizations.\n"
           "--linear (with --device cuda, bf16): gemmex = cublasGemmEx with the bias written first (the default),\n"
           "lt = cuBLASLt with the bias in the epilogue and cached bf16 weight copies. --kernels v1|v2 (with\n"
           "--device cuda): the scalar or the 16-byte vectorised elementwise kernels and one-launch AdamW.\n"
           "Both default to POSBENCH_LINEAR / POSBENCH_KERNELS from the environment.\n"
           "--activations bf16 (needs --precision bf16) times train.activations=bf16: the ViT blocks keep the\n"
           "activations that feed their matrix products in bf16 (arena MiB shows the saving); configs whose model\n"
           "keeps fp32 activations (gMLP) say so under their row.\n"
           "--recompute gelu (needs --activations bf16) times train.recompute=gelu: the blocks keep no GELU output;\n"
           "one shared bf16 buffer holds it and the backward recomputes it from the stored hidden (arena MiB shows the\n"
           "saving; the step's results are bitwise the same).\n"
           "--graph on|off (default off): on times the step without host reads (loss, gradient norm and clipping on\n"
           "the backend; train.graph=on), captured once as a CUDA graph and replayed where the config replays (no\n"
           "reference tokens, CAPE draws or per-step sizes; docs/usage.md's table); --breakdown\n"
           "says per config whether it replayed and why not. The CPU backends run it eagerly.\n"
           "--arena-only runs nothing: per config (all of them, GPU ones included, or --config's) the arena the step\n"
           "would have, from the model's tensor tables, by part, under the CPU backend's sizing rules and the CUDA\n"
           "backend's (they differ in the saved attention state and route A's workspace; CUDA's other transient\n"
           "workspaces are not predicted), at --precision, --activations, --recompute and --attention. On the CPU its total is\n"
           "the arena MiB a timed run reports.\n"
           "Configs marked GPU run on a CPU backend only when\n"
           "named.\n"
           "--ranks N (a build with MPI): one small run for --iters steps in one process and under mpirun -np N\n"
           "(--threads split between the ranks) at the same global batch: median step times, speedup, efficiency\n"
           "t1 / (N tN) and the bytes each rank sends per step (bench/perf/ranks.c).\nconfigs:\n");
    for (size_t i = 0; i < sizeof perf_configs / sizeof perf_configs[0]; i++) {
        const perf_config *p = &perf_configs[i];
        printf("  %-22s d=%d L=%d H=%d patch %d, %dx%d px x%d, batch %d%s\n", p->name, p->model.dim, p->model.depth,
               p->model.heads, p->model.patch, p->model.image_size, p->model.image_size, p->model.channels, p->batch,
               p->gpu_sized ? " (GPU)" : "");
    }
}

// Median step time in seconds of the posbench training step for config p on backend ops;
// each timed step's seconds also go to samples[iters] when samples is not NULL.
// The objective settings and the model config (with what the objective asks of the model:
// MP3's head and masked context) of config p; returns its objective kind.
// --activations bf16 (perf_run sets it): the configs whose model can store them do (train.activations);
// --recompute gelu: those configs recompute the GELU output in the backward (train.recompute).
static int bench_bf16_activations, bench_recompute_gelu;

// The objective's own settings of config p (objective_kind.read_settings): its keys' defaults
// with p->own_keys applied, read from one config per bench config, kept for the process (the
// settings may point at its strings).
static void perf_own_settings(const perf_config *p, const objective_kind *kind, objective_settings *os) {
    enum { CONFIGS = sizeof perf_configs / sizeof perf_configs[0] };
    static config own[CONFIGS];
    static int filled[CONFIGS];
    size_t i = (size_t)(p - perf_configs);
    if (!filled[i]) {
        config_defaults(&own[i]);
        char words[256], err[512];
        snprintf(words, sizeof words, "%s", p->own_keys ? p->own_keys : "");
        for (char *save = NULL, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
            if (config_apply_override(&own[i], w, err, sizeof err) != 0) die_fail("bench config %s: %s", p->name, err);
        filled[i] = 1;
    }
    key_reader r = config_reader(&own[i]);
    kind->read_settings(&r, os->own);
}

// Model inputs of config p's step: its batch times the objective's inputs per image (SimCLR's and
// DINO's 2 views; 1 otherwise), what the model and objective are sized for, as in training.
static int perf_inputs(const perf_config *p, const objective_kind *kind) {
    return p->batch * (kind->batch_factor > 1 ? kind->batch_factor : 1);
}

static const objective_kind *perf_setup(const perf_config *p, objective_settings *os, model_config *mc) {
    *os = (objective_settings){.name = p->objective ? p->objective : "supervised", .pe_kind = p->model.pe_kind,
                               .eta = p->eta, .label_smoothing = 0.1, .patch = p->model.patch,
                               .train_size = p->model.image_size, .cls = p->model.cls};
    const objective_kind *kind = objective_find(os->name);
    if (kind && kind->read_settings) perf_own_settings(p, kind, os);
    else if (p->own_keys) die_fail("bench config %s: objective %s has no keys of its own (own_keys %s)", p->name, os->name, p->own_keys);
    const char *why = kind ? objective_config_error(os) : "unknown objective";
    if (why) die_fail("bench config %s: %s", p->name, why);
    *mc = p->model;
    kind->configure_model(os, mc);
    if (bench_bf16_activations) {
        mc->bf16_activations = 1;
        if (model_config_error(mc)) mc->bf16_activations = 0; // this model keeps fp32 activations (its row says why)
        mc->recompute_gelu = mc->bf16_activations && bench_recompute_gelu;
    }
    return kind;
}

// FLOPs of one training step (3 x forward per model input, masked attention counted with its key
// tokens, and the objective's extra: GVP's query stream, DINO's teacher and local crops).
static double perf_step_flops(const perf_config *p) {
    objective_settings os;
    model_config mc;
    const objective_kind *kind = perf_setup(p, &os, &mc);
    int rows, cols;
    model_grid_at(&mc, mc.image_size, &rows, &cols);
    int keys = mc.request.context_tokens > 0 ? mc.request.context_tokens : rows * cols + (mc.cls ? 1 : 0);
    double extra = kind->train_extra_flops ? kind->train_extra_flops(&os, &mc) : 0.0;
    return 3.0 * model_forward_flops_masked(&mc, keys) * perf_inputs(p, kind) + extra * p->batch;
}

// --breakdown: the step's phases, between the timing marks (ops timer_mark) recorded at the
// start, after the inputs' upload (the model records it), after the forward and loss, after
// the activation-gradient clearing, after the backward and after AdamW.
enum { MARK_START, MARK_UPLOADED, MARK_FORWARD, MARK_ZEROED, MARK_BACKWARD, MARK_OPTIMIZER, MARK_COUNT };
enum { PHASE_COUNT = MARK_COUNT - 1 };
static const char *const phase_names[PHASE_COUNT] = {"upload", "forward", "zero", "backward", "optimizer"};

// Median milliseconds per phase over the timed steps (-1: not measured, a replayed CUDA graph has
// no marks inside), their per-step sum, the host's blocked time inside the step (mid-step
// downloads, copies, synchronize; 0 on the CPU) and its reads (ops host_reads: downloads,
// synchronize, sums returned to the host) inside the step; whether --graph on replayed the step
// and why not.
typedef struct {
    double phase_ms[PHASE_COUNT];
    double sum_ms;         // median over steps of the marks' total, start to after AdamW
    double host_wait_ms;   // median over steps
    double host_reads;     // median over steps
    int replayed;          // --graph on: the timed steps replayed one captured graph
    char graph_why[256];   // --graph on and not replayed: why
} step_breakdown;

// Raw images for an objective that draws its own views (SimCLR, DINO): `n` uint8 images of
// config p's channels and size, uniform, labelled by index; the objective's views are cut from them.
static dataset synthetic_images(const perf_config *p, int n) {
    dataset ds;
    memset(&ds, 0, sizeof ds);
    snprintf(ds.name, sizeof ds.name, "synthetic");
    int c = p->model.channels, side = p->model.image_size;
    ds.n = n, ds.channels = c, ds.height = side, ds.width = side, ds.num_classes = p->model.num_classes;
    size_t bytes = (size_t)n * c * side * side;
    ds.pixels = xmalloc(bytes, "bench raw images");
    ds.labels = xmalloc((size_t)n * sizeof *ds.labels, "bench raw image labels");
    rng_stream s = rng_stream_make(0, RNG_TEST, 0, 0, 1);
    for (size_t i = 0; i < bytes; i++) ds.pixels[i] = (uint8_t)rng_below(&s, 256);
    for (int i = 0; i < n; i++) ds.labels[i] = i % ds.num_classes;
    for (int k = 0; k < 3; k++) ds.mean[k] = 0.5f, ds.std[k] = 0.25f;
    return ds;
}

// The training step (forward, loss, backward, AdamW) of config p through its objective,
// timed `iters` times after two warmup steps; an objective that draws its own views gets a batch
// of synthetic raw images (objective_batch), staged before each step with --graph on
// (train_stage_views) and stepped as the trainer steps them with it off (objective_views_step),
// the forward phase of --breakdown then holding that whole step (views, forward, loss, backward
// and AdamW); samples[iters]
// gets each step's seconds, and breakdown (when not NULL) the phases' medians. graph (--graph
// on): the step without host reads (bench/train/step_device.h), captured after the warm-up and
// replayed where the config replays (graph_replay.h) and the backend builds graphs; its values
// are read after each timed step.
static double time_posbench_step(const perf_config *p, const ops_backend *ops, int iters, double *samples,
                                 size_t *arena_peak, step_breakdown *breakdown, int graph) {
    objective_settings os;
    model_config mc;
    const objective_kind *kind = perf_setup(p, &os, &mc);
    ops->memory_peak(1);
    int inputs = perf_inputs(p, kind);
    model m;
    model_create(&m, &mc, ops, inputs, 0);
    objective obj;
    objective_create(&obj, kind, &os, &m, inputs);
    int own_views = kind->train_views != NULL;
    dataset raw = {0};
    int *raw_index = xmalloc((size_t)p->batch * sizeof(int), "bench raw image indices");
    for (int b = 0; b < p->batch; b++) raw_index[b] = b;
    if (own_views) raw = synthetic_images(p, p->batch);
    objective_batch views = {.data = &raw, .indices = raw_index, .B = p->batch};
    float *adam_m = ops->alloc(m.params.total * sizeof(float), "adam m");
    float *adam_v = ops->alloc(m.params.total * sizeof(float), "adam v");
    int32_t *labels = xmalloc((size_t)p->batch * sizeof(int32_t), "labels");
    rng_stream s = rng_stream_make(0, RNG_TEST, 0, 0, 0);
    size_t n = (size_t)p->batch * p->model.channels * p->model.image_size * p->model.image_size;
    float *images = model_images(&m);
    for (size_t i = 0; i < n; i++) images[i] = rng_normal(&s);
    for (int b = 0; b < p->batch; b++) labels[b] = (int32_t)rng_below(&s, (uint32_t)p->model.num_classes);
    optim_config oc = {.lr = 1e-3f, .min_lr = 1e-5f, .weight_decay = 0.05f, .beta1 = 0.9f, .beta2 = 0.999f,
                       .eps = 1e-8f, .clip = 0.0f, .warmup_steps = 0, .total_steps = 1000};
    double *t = xmalloc((size_t)iters * sizeof(double), "timings");
    // --graph on: the step without host reads, replayed where config p replays
    step_device sd = {0};
    if (graph) {
        graph_replay_inputs in = graph_replay_inputs_of(kind, &os, &m.cfg, 1, 1, 1);
        const char *no_device = graph_device_step_refusal(&in), *no_replay = graph_replay_refusal(&in);
        if (no_device) {
            graph = 0;
            if (breakdown) snprintf(breakdown->graph_why, sizeof breakdown->graph_why, "%s", no_device);
        } else {
            step_device_create(&sd, ops, no_replay == NULL, no_replay);
            ops->pin_host(labels, (size_t)p->batch * sizeof(int32_t)); // a replay's memcpy node reads it
        }
    }
    step_target target = {.obj = &obj, .m = &m, .adam_m = adam_m, .adam_v = adam_v, .oc = &oc, .B = p->batch,
                          .views = own_views ? &views : NULL};
    static const int inner_marks[4] = {MARK_FORWARD, MARK_ZEROED, MARK_BACKWARD, MARK_OPTIMIZER};
    // --breakdown: per step, each phase's ms, the marks' total, the host's blocked ms and its reads
    enum { COLS = PHASE_COUNT + 3 };
    double *marks = breakdown ? xmalloc((size_t)iters * COLS * sizeof(double), "step phases") : NULL;
    for (int it = -2; it < iters; it++) { // two warmup steps
        double t0 = now_seconds();
        if (breakdown) m.upload_mark = MARK_UPLOADED; // the step's first forward of the model records it
        rng_addr rng = {.seed = 0, .step = (uint32_t)(it + 2)};
        views.rng = rng; // the step's views (own_views)
        if (breakdown) {
            ops->host_wait_seconds(1);
            ops->timer_mark(MARK_START);
        }
        ops->host_reads(1);
        int inside = 1; // the marks inside the step were recorded (not a captured or replayed step)
        if (graph) {
            if (sd.graph && sd.issued >= STEP_DEVICE_WARMUP) m.upload_mark = 0, inside = 0; // may be captured
            step_device_run(&sd, &target, labels, rng, it + 2, breakdown ? inner_marks : NULL);
            if (!sd.replaying && !inside) inside = 1; // the backend refused the capture: eager from now on
            if (breakdown && !inside) ops->timer_mark(MARK_OPTIMIZER);
        } else if (own_views) { // the trainer's step for them (objective_views_step)
            objective_views_step(&obj, &views, adam_m, adam_v, &oc, it + 2, NULL, NULL);
            if (breakdown) // the whole step in the forward phase: train_views runs its forwards and backwards
                ops->timer_mark(MARK_FORWARD), ops->timer_mark(MARK_ZEROED), ops->timer_mark(MARK_BACKWARD),
                    ops->timer_mark(MARK_OPTIMIZER);
        } else {
            kind->train_forward(&obj, p->batch, labels, rng);
            if (breakdown) ops->timer_mark(MARK_FORWARD);
            m.ops->zero(m.grad, m.params.total);
            model_zero_act_grads_batch(&m, p->batch);
            if (breakdown) ops->timer_mark(MARK_ZEROED);
            kind->train_backward(&obj, p->batch);
            if (breakdown) ops->timer_mark(MARK_BACKWARD);
            optim_step(m.ops, &m.params, m.param, m.grad, adam_m, adam_v, &oc, it + 2, NULL);
            if (breakdown) ops->timer_mark(MARK_OPTIMIZER);
        }
        size_t reads = ops->host_reads(1);                          // inside the step
        double waited = breakdown ? ops->host_wait_seconds(1) : 0; // before the step's closing synchronize
        ops->synchronize();
        if (graph) { // the step's loss and norm, as a logging step reads them
            double loss[STEP_DEVICE_CAP], norm[STEP_DEVICE_CAP];
            step_device_read(&sd, loss, norm);
        }
        if (it < 0) continue;
        t[it] = now_seconds() - t0;
        if (!breakdown) continue;
        double *row = marks + (size_t)it * COLS;
        for (int ph = 0; ph < PHASE_COUNT; ph++) row[ph] = inside ? ops->timer_elapsed_ms(ph, ph + 1) : -1;
        row[PHASE_COUNT] = ops->timer_elapsed_ms(MARK_START, MARK_OPTIMIZER);
        row[PHASE_COUNT + 1] = waited * 1e3;
        row[PHASE_COUNT + 2] = (double)reads;
    }
    if (breakdown) { // medians per column
        double *col = xmalloc((size_t)iters * sizeof(double), "step phase column");
        for (int c = 0; c < COLS; c++) {
            for (int it = 0; it < iters; it++) col[it] = marks[(size_t)it * COLS + c];
            double med_c = median_double(col, iters);
            if (c < PHASE_COUNT) breakdown->phase_ms[c] = med_c;
            else if (c == PHASE_COUNT) breakdown->sum_ms = med_c;
            else if (c == PHASE_COUNT + 1) breakdown->host_wait_ms = med_c;
            else breakdown->host_reads = med_c;
        }
        free(col);
        free(marks);
        breakdown->replayed = graph && sd.replaying;
        if (graph && !sd.replaying) snprintf(breakdown->graph_why, sizeof breakdown->graph_why, "%s", sd.why);
    }
    if (graph) {
        ops->unpin_host(labels);
        step_device_free(&sd);
    }
    if (samples) memcpy(samples, t, (size_t)iters * sizeof *t);
    if (arena_peak) *arena_peak = ops->memory_peak(0);
    double med = median_double(t, iters);
    free(t);
    ops->free(adam_m);
    ops->free(adam_v);
    free(labels);
    free(raw_index);
    free(raw.pixels), free(raw.labels);
    objective_free(&obj);
    model_free(&m);
    return med;
}

// bench/perf/torch_cpu_step.py's --arch: 0 ViT, 1 gMLP, 2 aMLP.
static int torch_arch(const model_config *v) {
    const backbone_kind *b = backbone_find(v->arch); // its twin, a capability of the backbone registry
    return b ? b->torch_step_arch : 0;
}

// The string value of "key" in one JSON line (the step scripts print flat objects) into out.
static void json_string_field(const char *line, const char *key, char *out, size_t outlen) {
    const char *k = strstr(line, key);
    if (!k || outlen == 0) return;
    k += strlen(key);
    while (*k == ' ' || *k == ':') k++;
    if (*k++ != '"') return;
    size_t n = 0;
    while (k[n] && k[n] != '"' && n + 1 < outlen) n++;
    memcpy(out, k, n);
    out[n] = 0;
}

// The anchors' Python beside the binary (<dir of posbench>/venv-anchors/bin/python, made by
// `make deps-anchors`) into path; 1 when it is there, 0 when not.
static int anchors_python(char *path, size_t len) {
    char exe[4096];
    snprintf(path, len, "build/venv-anchors/bin/python");
    if (self_exe_path(exe, sizeof exe) != 0) return 0;
    snprintf(path, len, "%s/venv-anchors/bin/python", dirname(exe));
    return access(path, X_OK) == 0;
}

// Whether torch_gpu_step.py has config p's step: the supervised one, or MP3's (the position head
// on a masked context); not one with a query stream (GVP), kept tokens or a model extension (MAE).
static int torch_gpu_twin(const perf_config *p) {
    objective_settings os;
    model_config asked;
    perf_setup(p, &os, &asked);
    return !asked.request.query_stream && asked.request.keep_tokens == 0 && !asked.request.extension;
}

// Runs the PyTorch step script (gpu: torch_gpu_step.py, compiled, python3 from PATH; the CPU:
// torch_cpu_step.py under `python`, torch.compile when compile is 1); returns its median step
// time in seconds, or -1 with a reason. *peak_mib gets PyTorch's GPU peak memory (-1 when the
// script reports none: the CPU step), `version` its torch version and GPU name.
static double time_torch_step(const perf_config *p, int iters, int gpu, const char *python, int compile,
                              const char *precision, char *why, size_t whylen, double *peak_mib, char *version,
                              size_t vlen) {
    *peak_mib = -1;
    char exe[4096], script[4200];
    if (self_exe_path(exe, sizeof exe) != 0) {
        snprintf(why, whylen, "cannot locate the posbench binary");
        return -1;
    }
    snprintf(script, sizeof script, "%s/../bench/perf/%s", dirname(exe),
             gpu ? "torch_gpu_step.py" : "torch_cpu_step.py");
    if (access(script, R_OK) != 0 || (!gpu && access(python, X_OK) != 0)) {
        snprintf(why, whylen, "%s or %s not found", script, python);
        return -1;
    }
    const model_config *v = &p->model;
    // The twin's flags from the registries: a learned position table (--pos-abs), MP3's masked
    // context attention with the position head (--mp3: what the objective asks of the model).
    objective_settings os;
    model_config asked;
    perf_setup(p, &os, &asked);
    const posenc_kind *pe = posenc_for_model(v);
    int pos_abs = pe && pe->table_grad != NULL, masked = asked.request.context_tokens > 0;
    // The script's arguments, each a word of its own (no shell reads them): numbers in vals.
    char vals[24][24];
    char *argv[64];
    int na = 0, nv = 0;
#define ARG(word) (argv[na++] = (char *)(word))
#define NUM(flag, value) (ARG(flag), snprintf(vals[nv], sizeof vals[nv], "%.10g", (double)(value)), ARG(vals[nv++]))
    ARG(gpu ? "python3" : python);
    ARG(script);
    if (gpu) ARG("--config"), ARG("custom"), ARG("--device"), ARG("cuda"), ARG("--modes"), ARG("compile"), ARG("--precision"), ARG(precision);
    NUM("--image", v->image_size), NUM("--channels", v->channels), NUM("--patch", v->patch), NUM("--dim", v->dim);
    NUM("--depth", v->depth), NUM("--heads", v->heads), NUM("--mlp-ratio", v->mlp_ratio), NUM("--classes", v->num_classes);
    NUM("--batch", p->batch), NUM("--warmup", gpu ? 3 : 2), NUM("--iters", iters), NUM("--cls", v->cls), NUM("--pos-abs", pos_abs);
    int tiny_attn_dim = gmlp_settings_of(v).tiny_attn_dim; // 0: not amlp (the script's default then)
    if (gpu) NUM("--mp3", masked), NUM("--eta", p->eta);
    else NUM("--threads", posbench_threads()), NUM("--arch", torch_arch(v)), NUM("--tiny-attn-dim", tiny_attn_dim > 0 ? tiny_attn_dim : 64),
         NUM("--compile", compile);
    argv[na] = NULL;
#undef ARG
#undef NUM
    pid_t child;
    FILE *f = launch_reading(argv, &child);
    if (!f) {
        snprintf(why, whylen, "cannot start %s: %s", argv[0], strerror(errno));
        return -1;
    }
    char line[1024];
    double ms = -1;
    while (fgets(line, sizeof line, f)) {
        const char *k = strstr(line, "\"median_ms\":");
        if (k) ms = strtod(k + 12, NULL);
        const char *pk = strstr(line, "\"peak_mib\":");
        if (pk) *peak_mib = strtod(pk + 11, NULL);
        char torch[64] = "", device[128] = "";
        json_string_field(line, "\"torch\"", torch, sizeof torch);
        json_string_field(line, "\"gpu\"", device, sizeof device);
        if (torch[0]) snprintf(version, vlen, "PyTorch %s%s%s", torch, device[0] ? " on " : "", device);
    }
    int rc = launch_reading_close(f, child);
    if (rc != 0 || ms <= 0) {
        snprintf(why, whylen, "%s failed under %s (exit %d; is PyTorch installed%s?)", gpu ? "torch_gpu_step.py" : "torch_cpu_step.py",
                 argv[0], rc, gpu ? " with CUDA and torch.compile" : compile ? " with torch.compile" : "");
        return -1;
    }
    return ms / 1e3;
}

// The line under a CPU row: the same step under the anchors' Python (current PyTorch), eager and
// torch.compile, each with posbench's ratio to it (or why it was not timed).
static void print_anchors_line(const perf_config *p, int iters, const char *python, double step, char *version,
                               size_t vlen) {
    printf("  current PyTorch:");
    for (int compile = 0; compile < 2; compile++) {
        char why[4608] = "";
        double peak, t = time_torch_step(p, iters, 0, python, compile, "fp32", why, sizeof why, &peak, version, vlen);
        const char *mode = compile ? "torch.compile" : "eager";
        if (t > 0) printf(" %s %.1f ms (%.0f img/s, ratio %.3f)%s", mode, t * 1e3, p->batch / t, step / t, compile ? "" : ";");
        else printf(" %s not timed (%s)%s", mode, why, compile ? "" : ";");
    }
    printf("\n");
    fflush(stdout);
}

// GFLOP/s of the backend's own linear layer, out (n, n) = in (n, n) · weight (n, n)ᵀ, at the
// matmul precision set (OpenBLAS sgemm on the CPU, cuBLAS on cuda, in bf16 when set): the
// ceiling each step is compared with, measured on the device that runs the step (median of 7
// timed calls after a warm-up, each bracketed by synchronize).
static double backend_linear_gflops(const ops_backend *ops, int n) {
    size_t count = (size_t)n * n, bytes = count * sizeof(float);
    float *host = xmalloc(bytes, "matmul ceiling input");
    for (size_t i = 0; i < count; i++) host[i] = (float)(i % 7) * 0.1f;
    float *in = ops->alloc(bytes, "matmul ceiling input");
    float *weight = ops->alloc(bytes, "matmul ceiling weight");
    float *out = ops->alloc(bytes, "matmul ceiling output");
    ops->upload(in, host, bytes);
    ops->upload(weight, host, bytes);
    double t[7];
    for (int r = 0; r < 8; r++) {
        ops->synchronize();
        double t0 = now_seconds();
        ops->linear_forward(out, in, weight, NULL, n, n, n);
        ops->synchronize();
        if (r > 0) t[r - 1] = now_seconds() - t0; // the first call warms up
    }
    ops->free(in);
    ops->free(weight);
    ops->free(out);
    free(host);
    return 2.0 * n * n * (double)n / median_double(t, 7) / 1e9;
}

// One config's --breakdown line: the phases' medians, their per-step total against the step's
// median wall time, and the host's blocked time.
static void print_breakdown(const step_breakdown *b, double step_seconds, int graph) {
    printf("  breakdown (median ms):");
    for (int ph = 0; ph < PHASE_COUNT; ph++) {
        if (b->phase_ms[ph] >= 0) printf(" %s %.2f%s", phase_names[ph], b->phase_ms[ph], ph + 1 < PHASE_COUNT ? "," : ";");
        else printf(" %s n/a%s", phase_names[ph], ph + 1 < PHASE_COUNT ? "," : ";");
    }
    printf(" phases total %.2f = %.1f%% of the step's %.2f; host blocked %.2f; host reads per step %.0f\n", b->sum_ms,
           100.0 * b->sum_ms / (step_seconds * 1e3), step_seconds * 1e3, b->host_wait_ms, b->host_reads);
    if (graph && b->replayed) printf("  graph: replayed (one capture after the warm-up, every timed step a replay)\n");
    else if (graph) printf("  graph: not replayed: %s\n", b->graph_why);
}

// --arena-only: per config the predicted arena by part (MiB) under the CPU and the CUDA sizing
// rules, at the options' precision, activations, recompute and attention route; nothing is allocated or run.
static int perf_arena_only(const perf_options *opt, int bf16, int route) {
    int known = !opt->only;
    for (size_t i = 0; i < sizeof perf_configs / sizeof perf_configs[0] && !known; i++)
        known = !strcmp(opt->only, perf_configs[i].name);
    if (!known) die_input("--config '%s' is not a benchmark config (posbench bench --help lists them)", opt->only);
    const char *activations = opt->activations ? opt->activations : "fp32";
    printf("posbench bench --arena-only: predicted arena (MiB) of the training step from the tensor tables, nothing\n"
           "allocated or run; %s linear layers, %s activations, recompute %s, CUDA attention setting %s\n\n",
           bf16 ? "bf16" : "fp32", activations, opt->recompute ? opt->recompute : "off", opt->attention ? opt->attention : "auto");
    static const char *const parts[] = {"parameters", "gradients", "AdamW m, v", "activations", "attention state",
                                        "activation grads", "inputs", "objective", "workspace", "total"};
    enum { NPARTS = sizeof parts / sizeof parts[0] };
    printf("%-24s %-5s", "config", "rules");
    for (int k = 0; k < NPARTS; k++) printf(" %*s", k == NPARTS - 1 ? 10 : 9, parts[k]);
    printf("\n");
    for (size_t i = 0; i < sizeof perf_configs / sizeof perf_configs[0]; i++) {
        const perf_config *p = &perf_configs[i];
        if (opt->only && strcmp(opt->only, p->name) != 0) continue;
        objective_settings os;
        model_config mc;
        const objective_kind *kind = perf_setup(p, &os, &mc);
        for (int rules = ARENA_RULES_CPU; rules <= ARENA_RULES_CUDA; rules++) {
            arena_plan a = arena_plan_of(kind, &os, &mc, perf_inputs(p, kind), (arena_rules)rules, bf16 ? MATMUL_BF16 : MATMUL_FP32, route);
            const size_t v[NPARTS] = {a.params,    a.grads,  a.adamw,     a.acts,      a.attn_state, a.act_grads,
                                      a.inputs,    a.objective, a.workspace, a.total};
            printf("%-24s %-5s", rules == ARENA_RULES_CPU ? p->name : "", rules == ARENA_RULES_CPU ? "cpu" : "cuda");
            for (int k = 0; k < NPARTS; k++) printf(" %*.1f", k == NPARTS - 1 ? 10 : 9, v[k] / 1048576.0);
            printf("\n");
        }
        if (bench_bf16_activations && !mc.bf16_activations) {
            mc.bf16_activations = 1;
            printf("  (activations fp32 here: %s)\n", model_config_error(&mc));
        }
    }
    printf("\ncpu: the CPU backend's sizing (it keeps the attention probabilities, B·H·T·M floats per layer); its total\n"
           "is the arena MiB that posbench bench --device cpu measures for the config. cuda: the CUDA backend's sizing,\n"
           "which differs in the saved attention state (core/attention_route.c attention_route_state_floats: the\n"
           "bf16 probabilities of the materialised route, ⌈B·H·T·ld / 2⌉ floats with ld = M rounded up to 8, or the\n"
           "row log-sum-exp B·H·T of the fused and cuDNN routes) and, where the blocks' attention takes the\n"
           "materialised route (bf16; under --attention cudnn the library counted as loaded: the calls it can express\n"
           "keep the row log-sum-exp), adds that route's workspace (its\n"
           "backward's bf16 heads and T×M matrices: core/attention_gemm_layout.h). The CUDA arena measured on a GPU\n"
           "is larger by its other transient workspaces while they live (column-sum partials, bf16 widening buffers,\n"
           "the cuBLASLt workspace and cached bf16 weight copies, cuDNN's workspace), which this plan does not predict.\n");
    return 0;
}

int perf_run(const perf_options *opt) {
    if (opt->arena_only) { // the options that shape the arena, checked as a timed run checks them
        const char *precision = opt->precision ? opt->precision : "fp32";
        const int bf16 = strcmp(precision, "bf16") == 0;
        const int route = attention_route_setting_named(opt->attention ? opt->attention : "auto");
        if (attention_route_setting_needs_bf16(route) && !bf16)
            die_input("--attention %s is a bf16 route: it needs --precision bf16", opt->attention);
        if (opt->activations && !strcmp(opt->activations, "bf16") && !bf16)
            die_input("--activations bf16 stores the linear layers' inputs in bfloat16: it needs --precision bf16");
        bench_bf16_activations = opt->activations && !strcmp(opt->activations, "bf16");
        if (opt->recompute && !strcmp(opt->recompute, "gelu") && !bench_bf16_activations)
            die_input("--recompute gelu recomputes the bf16 GELU output of --activations bf16: it needs --activations bf16");
        bench_recompute_gelu = opt->recompute && !strcmp(opt->recompute, "gelu");
        return perf_arena_only(opt, bf16, route);
    }
    int threads = posbench_threads();
    char why[320];
    const ops_backend *ops = device_backend(opt->device, why, sizeof why);
    if (!ops) die_input("%s", why);
    const char *precision = opt->precision ? opt->precision : "fp32";
    int gpu = strcmp(ops->name, "cuda") == 0, bf16 = strcmp(precision, "bf16") == 0;
    ops->set_matmul_precision(bf16 ? MATMUL_BF16 : MATMUL_FP32);
    // --attention, else the environment's POSBENCH_ATTENTION (device_backend vetted it), else auto
    const char *env_attention = getenv("POSBENCH_ATTENTION");
    const char *attention = opt->attention ? opt->attention : env_attention && *env_attention ? env_attention : "auto";
    const char *attention_from = opt->attention ? "--attention" : "POSBENCH_ATTENTION=";
    if (strcmp(attention, "auto") && !gpu)
        die_input("%s%s%s chooses between the CUDA backend's attention routes; the %s backend has one (use --device cuda)",
                  attention_from, opt->attention ? " " : "", attention, ops->name);
    const int route = attention_route_setting_named(attention); // perf_check_attention vetted it
    if (attention_route_setting_needs_bf16(route) && !bf16)
        die_input("%s%s%s is a bf16 route: it needs --precision bf16", attention_from, opt->attention ? " " : "", attention);
    cuda_set_attention_route(route);
    if (route == CUDA_ATTN_CUDNN) { // say once whether it runs, before any number depends on it
        char cudnn_why[512];
        if (cuda_attention_cudnn_available(cudnn_why, sizeof cudnn_why))
            printf("cudnn attention: available (calls it cannot express take the auto route)\n");
        else
            printf("cudnn attention: not available (%s); every call takes the auto route\n", cudnn_why);
    }
    if ((opt->linear || opt->kernels) && !gpu)
        die_input("--%s chooses between the CUDA backend's %s; the %s backend has one (use --device cuda)",
                  opt->linear ? "linear" : "kernels", opt->linear ? "linear routes" : "kernel versions", ops->name);
    const char *activations = opt->activations ? opt->activations : "fp32";
    if (!strcmp(activations, "bf16") && !bf16)
        die_input("--activations bf16 stores the linear layers' inputs in bfloat16: it needs --precision bf16");
    bench_bf16_activations = !strcmp(activations, "bf16");
    const char *recompute = opt->recompute ? opt->recompute : "off";
    if (!strcmp(recompute, "gelu") && !bench_bf16_activations)
        die_input("--recompute gelu recomputes the bf16 GELU output of --activations bf16: it needs --activations bf16");
    bench_recompute_gelu = !strcmp(recompute, "gelu");
    if (opt->linear) cuda_set_linear_route(!strcmp(opt->linear, "lt") ? CUDA_LINEAR_LT : CUDA_LINEAR_GEMMEX);
    if (opt->kernels) cuda_set_kernels(!strcmp(opt->kernels, "v2") ? CUDA_KERNELS_V2 : CUDA_KERNELS_V1);
    printf("posbench bench: %s backend, %s linear layers, %s activations, recompute %s, %s attention, %d threads, %d timed "
           "steps per config (median)\n", ops->name, precision, activations, recompute, gpu ? attention : "cpu", threads,
           opt->iters);
    // The CUDA switches in force (flags, else POSBENCH_LINEAR / POSBENCH_KERNELS, else the defaults).
    const char *linear = !gpu ? "cpu" : cuda_linear_route() == CUDA_LINEAR_LT ? "lt" : "gemmex";
    const char *kernels = !gpu ? "cpu" : cuda_kernels() == CUDA_KERNELS_V2 ? "v2" : "v1";
    if (gpu) printf("posbench bench: CUDA linear route %s (bf16 only), elementwise kernels %s\n", linear, kernels);
    if (opt->breakdown)
        printf("switches: precision=%s activations=%s recompute=%s attention=%s linear=%s kernels=%s graph=%s\n", precision,
               activations, recompute, gpu ? attention : "cpu", linear, kernels, opt->graph ? "on" : "off");
    int ceiling_n = gpu ? 8192 : 2048; // on the GPU a 2048³ product takes tens of microseconds
    double peak = backend_linear_gflops(ops, ceiling_n);
    printf("%s linear layer %dx%dx%d (%s): %.1f GFLOP/s (the ceiling used below)\n\n",
           gpu ? "cuBLAS" : "OpenBLAS", ceiling_n, ceiling_n, ceiling_n, precision, peak);
    printf("%-24s %9s %8s %9s %8s %10s %10s %10s %8s %9s %10s\n", "config", "step ms", "img/s", "GFLOP/s", "of peak",
           "arena MiB", "peak MiB", "torch ms", "torch/s", "ratio", "torch MiB");
    char torch_version[256] = "", anchors[4200] = "", anchors_version[256] = "";
    int ran = 0, have_anchors = !gpu && anchors_python(anchors, sizeof anchors);
    for (size_t i = 0; i < sizeof perf_configs / sizeof perf_configs[0]; i++) {
        const perf_config *p = &perf_configs[i];
        if (opt->only ? strcmp(opt->only, p->name) != 0 : p->gpu_sized && !gpu) continue;
        ran++;
        size_t arena = 0;
        step_breakdown phases;
        double step = time_posbench_step(p, ops, opt->iters, NULL, &arena, opt->breakdown ? &phases : NULL, opt->graph);
        double flops = perf_step_flops(p);
        double gflops = flops / step / 1e9;
        char torch_ms[32] = "-", torch_ips[32] = "-", ratio[32] = "-", torch_mib[32] = "-", why[4608] = "";
        if (opt->torch && bf16 && !gpu) {
            snprintf(why, sizeof why, "bf16 on a CPU backend is an emulation; compare bf16 on the GPU");
        } else if (opt->torch && gpu && !torch_gpu_twin(p)) {
            snprintf(why, sizeof why, "torch_gpu_step.py has no %s twin (it has the supervised and MP3 steps)", p->objective);
        } else if (opt->torch && gpu && torch_arch(&p->model) != 0) {
            snprintf(why, sizeof why, "torch_gpu_step.py has no %s twin (bench/perf/torch_cpu_step.py has)", p->model.arch);
        } else if (opt->torch && p->objective && !gpu) {
            snprintf(why, sizeof why, "the PyTorch CPU step has no %s twin (torch_gpu_step.py has MP3)", p->objective);
        } else if (opt->torch) {
            double torch_peak;
            double t = time_torch_step(p, opt->iters, gpu, "/usr/bin/python3", 0, precision, why, sizeof why, &torch_peak,
                                       torch_version, sizeof torch_version);
            if (torch_peak >= 0) snprintf(torch_mib, sizeof torch_mib, "%.0f", torch_peak);
            if (t > 0) {
                snprintf(torch_ms, sizeof torch_ms, "%.1f", t * 1e3);
                snprintf(torch_ips, sizeof torch_ips, "%.0f", p->batch / t);
                snprintf(ratio, sizeof ratio, "%.3f", step / t);
            }
        }
        printf("%-24s %9.1f %8.0f %9.1f %8.3f %10.1f %10.0f %10s %8s %9s %10s\n", p->name, step * 1e3, p->batch / step,
               gflops, gflops / peak, arena / 1048576.0, peak_rss_bytes() / 1048576.0, torch_ms, torch_ips, ratio,
               torch_mib);
        if (why[0]) printf("  (PyTorch not timed: %s)\n", why);
        if (opt->torch && !gpu && !bf16 && !p->objective && have_anchors)
            print_anchors_line(p, opt->iters, anchors, step, anchors_version, sizeof anchors_version);
        if (bench_bf16_activations) {
            objective_settings os;
            model_config mc;
            perf_setup(p, &os, &mc);
            if (!mc.bf16_activations) {
                mc.bf16_activations = 1;
                printf("  (activations fp32 here: %s)\n", model_config_error(&mc));
            }
        }
        if (opt->breakdown) print_breakdown(&phases, step, opt->graph);
        fflush(stdout);
    }
    if (!ran) die_input("--config '%s' is not a benchmark config (posbench bench --help lists them)", opt->only);
    printf("\nratio = posbench step time / PyTorch step time (lower is better); GFLOP/s counts 3x the forward\n"
           "FLOPs (matmuls and attention) per image, \"of peak\" divides it by the linear-layer ceiling; arena MiB is the peak of the backend's arenas in this config's\n"
           "step (model, activations, AdamW; GPU memory on cuda); peak MiB is this process's peak resident memory\n"
           "so far; torch MiB is PyTorch's GPU peak memory in its step (torch.cuda.max_memory_allocated; the CPU step\n"
           "reports none).%s%s\n", torch_version[0] ? "\nCompared with: " : "", torch_version);
    if (opt->torch && !gpu && have_anchors && anchors_version[0])
        printf("The line under a row: the same step under %s (%s), eager and torch.compile (Inductor, compiled in\n"
               "the warmup steps), with posbench's ratio to each.\n", anchors_version, anchors);
    else if (opt->torch && !gpu && !have_anchors)
        printf("Current PyTorch (eager and torch.compile): not compared: %s not found (make deps-anchors installs\n"
               "torch and timm from PyPI there; bench then adds a line under each row).\n", anchors);
    if (opt->breakdown)
        printf("breakdown: each phase is the time between two timing marks of the step (on cuda CUDA events on the\n"
               "ops' stream: the device's time, idle gaps included; on the CPU the clock): upload = the inputs'\n"
               "copies, forward = forward and loss, zero = clearing the gradients, backward, optimizer = AdamW\n"
               "(with the gradient norm); the phases total is the median of their per-step sums; host blocked is\n"
               "the time the host waited inside the step's downloads, copies and synchronize calls (0 on the CPU);\n"
               "host reads counts the calls inside the step that bring a value back or wait for the backend (every\n"
               "backend counts them alike). --graph on: the step keeps its loss, norm and clipping on the backend\n"
               "(0 reads inside it; its values are read after it) and is replayed as a CUDA graph where the config\n"
               "replays (docs/usage.md); a replayed step has no marks inside: its phases are n/a.\n");
    return 0;
}

// (the CPU backend: the committed CI baseline is a CPU measurement)
double perf_step_samples(const char *name, int iters, double *samples, double *flops_per_step, int *batch, size_t *arena_peak) {
    for (size_t i = 0; i < sizeof perf_configs / sizeof perf_configs[0]; i++) {
        const perf_config *p = &perf_configs[i];
        if (strcmp(name, p->name) != 0) continue;
        *flops_per_step = perf_step_flops(p);
        *batch = p->batch;
        return time_posbench_step(p, &ops_cpu, iters, samples, arena_peak, NULL, 0);
    }
    return -1;
}

int perf_arena_check(const char *name, int bf16, int bf16_activations, int recompute_gelu, int rules, int route,
                     arena_plan *plan, size_t *measured) {
    for (size_t i = 0; i < sizeof perf_configs / sizeof perf_configs[0]; i++) {
        const perf_config *p = &perf_configs[i];
        if (strcmp(name, p->name) != 0) continue;
        const int precision = bf16 ? MATMUL_BF16 : MATMUL_FP32;
        ops_cpu.set_matmul_precision(precision);
        bench_bf16_activations = bf16_activations;
        bench_recompute_gelu = recompute_gelu;
        objective_settings os;
        model_config mc;
        const objective_kind *kind = perf_setup(p, &os, &mc);
        *plan = arena_plan_of(kind, &os, &mc, perf_inputs(p, kind), (arena_rules)rules, precision, route);
        if (measured) time_posbench_step(p, &ops_cpu, 1, NULL, measured, NULL, 0);
        ops_cpu.set_matmul_precision(MATMUL_FP32);
        bench_bf16_activations = bench_recompute_gelu = 0;
        return 0;
    }
    return -1;
}
