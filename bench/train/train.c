// bench/train/train.c — the training loop shared by `posbench train` and the runner, for any
// objective (called through objectives/objective.h; no per-objective code here): setup,
// forward/backward/AdamW per step, evaluation each epoch, exact-resume checkpoints, and
// crash-safe HDF5 recording (<run-id>.h5.partial renamed to <run-id>.h5 when the run ends).
// A run across processes (opt->comm, core/comm.h): every rank trains its micro-batch of each
// step (train_step.c) and takes the same AdamW step; rank 0 alone claims the run, writes the
// results file and checkpoints; the per-epoch evaluation is sharded over the ranks where the
// objective allows it (train_eval.c), else rank 0's; rank 0 tells the others when an evaluation diverged
// and, with train.early_stop, each validation row (every rank keeps the same best parameters).
// A non-finite training loss is the sum over the ranks' micro-batches, so every rank stops at
// the same step without a message.
// It calls the run's other modules and none calls back: data and epoch order (train_data.c),
// history rows (train_history.c), checkpoints (checkpoint.c), early stopping (early_stop.c),
// the end-of-run records, and the test-only fault hooks (train_faults.c). Tensors live in
// backend memory; the host reaches them only through explicit uploads and downloads.
#include "train.h"
#include "train_internal.h"
#include "../results/machine.h"
#include "budget.h"
#include "checkpoint.h"
#include "train_data.h"
#include "train_faults.h"
#include "train_step.h"
#include "train_files.h"
#include "metrics_log.h"
#include "progress.h"
#include "../experiment/settings.h"
#include "../results/results.h"
#include "../../core/attention_route.h"
#include "../../core/comm.h"
#include "../../core/ops_cuda.h"
#include "../../core/common.h"
#include "../../core/safe_file.h"
#include "../../core/optimizer.h"
#include "../../core/rng.h"
#include "../../datasets/dataset.h"
#include "../../models/model.h"
#include "../../core/device.h"
#include "cpu_busy.h"
#include "../../objectives/objective.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../version.h"

static const results_column train_columns[TRAIN_COLS] = {
    {"step", 'i'}, {"epoch", 'i'}, {"loss", 'd'}, {"lr", 'd'}, {"grad_norm", 'd'}, {"step_time_ms", 'd'}};
// /eval: epoch, step, the objective's two metrics (objective_kind.metric_names), loss.
static void eval_columns(const objective_kind *k, results_column *cols) {
    const results_column fixed[EVAL_COLS] = {{"epoch", 'i'}, {"step", 'i'}, {k->metric_names[0], 'd'},
                                             {k->metric_names[1], 'd'}, {"loss", 'd'}};
    memcpy(cols, fixed, sizeof fixed);
}



// Metric m of kind k as the console shows it: in its unit, as the reports do (objectives/metric.h).
static double metric_shown(const objective_kind *k, int m, double v) {
    return metric_value_shown(k->metrics, k->metric_names[m], v);
}

static void iso_time(char *buf, size_t len) {
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

// ---------------------------------------------------------------- setup
// Image sizes of the run: training (data.resolution or the dataset's), UniViT's list, the
// evaluation sizes and their TTA neighbours; all must be multiples of the patch. Sets the
// model's table size (training size) and the largest size (arena). Whether the objective
// allows more than one size is its config_error's to say.
static void resolution_setup(run *r, model_config *vc) {
    const train_settings *ts = &r->trainer;
    int native = r->train.height;
    r->train_size = ts->resolution > 0 ? ts->resolution : native;
    r->n_univit = ts->n_resolutions;
    memcpy(r->univit, ts->resolutions, sizeof r->univit);
    objective_settings *s = &r->settings; // the evaluation sizes as the objective sees them
    s->train_size = r->train_size;
    int *eval_sizes = s->eval_sizes, delta = s->tta_delta;
    if (delta > 0 && s->n_eval_sizes == 0) eval_sizes[s->n_eval_sizes++] = r->train_size;
    vc->image_size = r->train_size;
    // largest: the arena's size; largest_resized: the largest size a batch is resized to (every
    // size but the native one goes through the resize scratch, smaller ones included).
    int largest = r->train_size, sizes[3 * OBJECTIVE_MAX_SIZES + CFG_LIST_MAX + 1], n = 0;
    sizes[n++] = r->train_size;
    for (int i = 0; i < r->n_univit; i++) sizes[n++] = r->univit[i];
    for (int i = 0; i < s->n_eval_sizes; i++) {
        sizes[n++] = eval_sizes[i];
        if (delta > 0) sizes[n++] = eval_sizes[i] - delta, sizes[n++] = eval_sizes[i] + delta;
    }
    r->largest_resized = 0;
    for (int i = 0; i < n; i++) {
        largest = sizes[i] > largest ? sizes[i] : largest;
        if (sizes[i] != native && sizes[i] > r->largest_resized) r->largest_resized = sizes[i];
    }
    int frames = speech_eval_largest_frames(ts); // eval.speech_durations / eval.speech_rates
    vc->max_image_size = largest > frames ? largest : frames;
    const char *why = NULL;
    char key[64];
    if (ts->resolution > 0) // the dataset's own size is checked by vit_config_error
        why = model_resolution_error(vc, r->train_size, "data.resolution");
    for (int i = 0; !why && i < r->n_univit; i++) why = model_resolution_error(vc, r->univit[i], "data.resolutions");
    for (int i = 0; !why && i < s->n_eval_sizes; i++) {
        why = model_resolution_error(vc, eval_sizes[i], "eval.resolutions");
        for (int shift = -1; !why && delta > 0 && shift <= 1; shift += 2) {
            snprintf(key, sizeof key, "eval.tta_delta=%d around eval.resolutions %d", delta, eval_sizes[i]);
            why = model_resolution_error(vc, eval_sizes[i] + shift * delta, key);
        }
    }
    if (why) die_input("%s", why);
}

static void setup(run *r) {
    const train_settings *ts = &r->trainer;
    const config *c = ts->cfg; // for the model's and the objective's own settings
    train_data_load(r);
    r->batch = ts->batch;
    r->eval_batch = ts->eval_batch;
    if (r->train.n < r->batch)
        die_input("train.batch=%d is larger than the training set (%d images after data.limit/data.labeled_fraction)",
                  r->batch, r->train.n);
    r->steps_per_epoch = r->train.n / r->batch; // the last partial batch of an epoch is dropped
    r->total_steps = budget_updates(ts, r->train.n); // train.steps > 0: a step budget, the last epoch possibly partial
    r->epochs = (int)((r->total_steps + r->steps_per_epoch - 1) / r->steps_per_epoch);
    budget_setup(r); // a matched-budget run: the length of its chain
    r->eval_every = ts->eval_every > 0 ? ts->eval_every : r->steps_per_epoch;
    r->eval_set = &r->test;
    r->seed = ts->seed;
    // A speech dataset is a sequence: height frames of width MFCCs, one token per frame.
    model_config vc = model_config_from_config(c, r->train.channels, r->train.height, r->train.num_classes,
                                               r->train.audio ? r->train.width : 0);
    objective_settings_from_config(c, &r->settings);
    r->settings.total_steps = r->total_steps, r->settings.steps_per_epoch = r->steps_per_epoch; // objectives' schedules
    resolution_setup(r, &vc);
    const char *why = objective_config_error(&r->settings);
    if (why) die_input("%s", why);
    speech_eval_check(r);
    probes_check(r);
    const objective_kind *kind = objective_find(r->settings.name);
    kind->configure_model(&r->settings, &vc);
    why = model_config_error(&vc);
    if (why) die_input("%s", why);
    // An objective's largest forward may take several inputs per image (objective_kind.batch_factor).
    int train_inputs = r->batch * (kind->batch_factor > 1 ? kind->batch_factor : 1);
    int max_batch = train_inputs > r->eval_batch ? train_inputs : r->eval_batch;
    char why_device[320];
    const ops_backend *ops = device_backend(r->opt->device, why_device, sizeof why_device);
    if (!ops) die_input("%s", why_device);
    ops->set_matmul_precision(ts->bf16 ? MATMUL_BF16 : MATMUL_FP32); // train.activations=bf16 needs it: train_settings.c
    // The CUDA training attention, process-wide and before the model sizes its state (every run
    // sets it: a process may train several). The CPU backends have one attention.
    // A bf16 route without train.precision=bf16 was refused by train_settings_resolve.
    const int route = ts->attention_route, env_route = device_attention_from_env();
    if (env_route >= 0 && env_route != route)
        die_input("environment variable POSBENCH_ATTENTION=%s disagrees with train.attention=%s: a run's attention route is "
                  "its key (set train.attention=%s, or unset POSBENCH_ATTENTION)",
                  getenv("POSBENCH_ATTENTION"), ts->attention, getenv("POSBENCH_ATTENTION"));
    cuda_set_attention_route(route);
    char cudnn_why[512];
    if (route == CUDA_ATTN_CUDNN && !strcmp(ops->name, "cuda") && !cuda_attention_cudnn_available(cudnn_why, sizeof cudnn_why))
        fprintf(stderr, "posbench: train.attention=cudnn: not available (%s); the automatic route serves every call\n",
                cudnn_why);
    ops->memory_peak(1); // /final backend_peak_bytes: this run's arenas
    model_create(&r->model, &vc, ops, max_batch, r->seed);
    objective_create(&r->obj, kind, &r->settings, &r->model, max_batch);
    r->optim = train_settings_optim(ts, r->total_steps, r->steps_per_epoch);
    early_stop_setup(r);
    size_t nparam = r->model.params.total;
    r->adam_m = ops->alloc(nparam * sizeof(float), "AdamW first moments");
    r->adam_v = ops->alloc(nparam * sizeof(float), "AdamW second moments");
    r->labels = xmalloc((size_t)max_batch * sizeof(int32_t), "batch labels");
    // Longer speech clips come from their own variants, not resized batches.
    size_t scratch = r->largest_resized > 0 && !r->train.audio
                         ? dataset_batch_scratch_floats(&r->train, max_batch, r->largest_resized) : 0;
    r->scratch = xmalloc((scratch + 1) * sizeof(float), "batch before resizing");
    r->order = xmalloc((size_t)r->train.n * sizeof(int), "epoch order");
    r->batch_index = xmalloc((size_t)max_batch * sizeof(int), "batch indices");
    r->train_hist.cols = TRAIN_COLS;
    r->eval_hist.cols = EVAL_COLS;
    train_step_setup(r); // train.accumulate, the ranks
}

// ---------------------------------------------------------------- results file
// One typed /config attribute per key, named prefix + key.
static void write_config_attrs(results *res, const config *c, const char *prefix) {
    char name[256];
    for (int i = 0; i < cfg_key_count; i++) {
        const cfg_key *k = &cfg_keys[i];
        snprintf(name, sizeof name, "%s%s", prefix, k->key);
        if (k->type == CFG_INT || k->type == CFG_BOOL) results_attr_int(res, "/config", name, (int64_t)c->num[i]);
        else if (k->type == CFG_FLOAT) results_attr_double(res, "/config", name, c->num[i]);
        else results_attr_str(res, "/config", name, c->str[i] ? c->str[i] : "");
    }
}

// Root attr `bool_keys`: the boolean keys ("data.hflip,eval.knn,..."), whose /config values are
// stored as 0/1 integers, so a reader without the key table (python/posbench_results.py) gives
// them as booleans, as `posbench export` does.
static void write_bool_keys(results *res) {
    size_t len = 1;
    for (int i = 0; i < cfg_key_count; i++) len += strlen(cfg_keys[i].key) + 1;
    char *text = xcalloc(len, 1, "bool_keys");
    for (int i = 0; i < cfg_key_count; i++)
        if (cfg_keys[i].type == CFG_BOOL) snprintf(text + strlen(text), len - strlen(text), "%s%s", text[0] ? "," : "", cfg_keys[i].key);
    results_attr_str(res, "/", "bool_keys", text);
    free(text);
}

static void open_results(run *r) {
    const config *c = r->trainer.cfg;
    r->res = results_create(r->partial_path);
    results_attr_str(r->res, "/", "experiment", r->opt->experiment);
    results_attr_str(r->res, "/", "stage", r->opt->stage);
    results_attr_str(r->res, "/", "run_id", r->run_id);
    results_attr_str(r->res, "/", "status", "running");
    results_attr_int(r->res, "/", "seed", (int64_t)r->seed);
    results_attr_str(r->res, "/", "started", r->started);
    results_attr_str(r->res, "/", "git_commit", posbench_git_commit);
    write_bool_keys(r->res);
    results_attr_int(r->res, "/", "threads", posbench_threads());
    results_attr_str(r->res, "/", "device", r->model.ops->name);
    char cpu[256];
    machine_cpu_model(cpu, sizeof cpu);
    results_attr_str(r->res, "/", "cpu_model", cpu);
    if (r->opt->scale) results_attr_str(r->res, "/", "scale", r->opt->scale);
    if (r->comm->size > 1) results_attr_int(r->res, "/", "ranks", r->comm->size); // a run across processes
    char *yaml = config_yaml(c);
    results_attr_str(r->res, "/", "config_yaml", yaml);
    free(yaml);
    // The fingerprints of the data files (datasets/data_files.h): "already done" and resumes compare them.
    results_attr_str(r->res, "/", "data_files", r->data_prints ? r->data_prints : "");
    write_config_attrs(r->res, c, "");
    if (r->opt->parent_cfg && r->opt->parent_stage) {
        char prefix[128];
        snprintf(prefix, sizeof prefix, "%s.", r->opt->parent_stage);
        write_config_attrs(r->res, r->opt->parent_cfg, prefix);
    }
    for (int i = 0; i < r->opt->nbudget; i++) { // a matched-budget run: its chain's keys, and its derived length
        char prefix[128];
        snprintf(prefix, sizeof prefix, "%s.", r->opt->budget_stages[i]);
        write_config_attrs(r->res, r->opt->budget_cfgs[i], prefix);
    }
    if (r->budget_updates > 0) results_attr_int(r->res, "/config", "train.steps", r->budget_updates);
    if (r->init_tensors > 0) { // the run summary: how much of the init weights it started from
        results_attr_int(r->res, "/init", "tensors_loaded", r->init_loaded);
        results_attr_int(r->res, "/init", "tensors", r->init_tensors);
    }
    r->train_series = results_series_create(r->res, "/train", TRAIN_COLS, train_columns, 1024);
    results_column cols[EVAL_COLS];
    eval_columns(r->obj.kind, cols);
    r->eval_series = results_series_create(r->res, "/eval", EVAL_COLS, cols, 64);
    // A resumed run replays its recorded history into the fresh partial file.
    for (long i = 0; i < r->train_hist.count; i++) results_series_append(r->train_series, r->train_hist.rows + i * TRAIN_COLS);
    for (long i = 0; i < r->eval_hist.count; i++) results_series_append(r->eval_series, r->eval_hist.rows + i * EVAL_COLS);
    early_stop_open(r);
    results_flush(r->res);
}

// ---------------------------------------------------------------- steps and evaluation
// /init attrs content_rms and posenc_rms (the first training step's embedding, before any update:
// model_measure_embedding) and pe_to_content = posenc_rms / content_rms; /final init_pe_to_content
// repeats the ratio for the report's run tables. Kept in the checkpoint (state.init_rms) so a
// resumed run's file has them too. Nothing is written when they were not measured (NAN).
static void record_init_embedding(run *r, double content_rms, double posenc_rms) {
    r->init_rms[0] = content_rms, r->init_rms[1] = posenc_rms;
    if (!isfinite(content_rms) || !isfinite(posenc_rms)) return;
    double ratio = content_rms > 0.0 ? posenc_rms / content_rms : NAN;
    results_attr_double(r->res, "/init", "content_rms", content_rms);
    results_attr_double(r->res, "/init", "posenc_rms", posenc_rms);
    results_attr_double(r->res, "/init", "pe_to_content", ratio);
    results_attr_double(r->res, "/final", "init_pe_to_content", ratio);
}

// The objective's view of the run for its evaluations: test batches (train_data.c) and the
// results file.
static void sink_attr_double(void *ctx, const char *group, const char *name, double v) {
    results_attr_double(((run *)ctx)->res, group, name, v);
}
static void sink_attr_int(void *ctx, const char *group, const char *name, int64_t v) {
    results_attr_int(((run *)ctx)->res, group, name, v);
}
static void sink_dataset_f32(void *ctx, const char *path, int ndim, const int *dims, const float *data) {
    results_dataset_f32(((run *)ctx)->res, path, ndim, dims, data);
}

static void env_init(run *r) {
    r->sink = (record_sink){.ctx = r, .attr_double = sink_attr_double, .attr_int = sink_attr_int,
                            .dataset_f32 = sink_dataset_f32};
    r->env = (objective_env){.trainer = r, .load_test = train_data_load_test, .test_n = r->test.n, .eval_batch = r->eval_batch,
                             .labels = r->labels, .pixel_mean = r->test.mean, .pixel_std = r->test.std, .rec = &r->sink,
                             .test_data = r->eval_set};
}

static void finish_file(run *r, const char *status, const eval_scores *last) {
    const objective_kind *k = r->obj.kind;
    if (strcmp(status, "done") == 0) {
        if (r->trainer.knn) record_knn(r);
        record_speech_variants(r);
        if (r->trainer.linear_probe) record_linear_probe(r);
        record_attention(r);
        record_views(r);
        record_spatial_weights(r);
        if (k->record_final) k->record_final(&r->obj, &r->env, last);
        weights_write(r);
    }
    char finished[32];
    iso_time(finished, sizeof finished);
    results_attr_str(r->res, "/", "status", status);
    results_attr_str(r->res, "/", "finished", finished);
    double sched_run, sched_wait; // what the timings below were measured under (bench/results/machine.h)
    if (run_sched_total(r, &sched_run, &sched_wait)) {
        results_attr_double(r->res, "/", "cpu_run_s", sched_run);
        results_attr_double(r->res, "/", "cpu_wait_s", sched_wait);
    }
    if (last) {
        results_attr_double(r->res, "/final", k->metric_names[0], last->metric[0]);
        results_attr_double(r->res, "/final", k->metric_names[1], last->metric[1]);
        results_attr_double(r->res, "/final", "loss", last->loss);
    }
    if (r->train_hist.count > 0) { // median step time over the run (the per-step series has them all)
        double *t = xmalloc((size_t)r->train_hist.count * sizeof(double), "step times");
        for (long i = 0; i < r->train_hist.count; i++) t[i] = r->train_hist.rows[i * TRAIN_COLS + 5];
        results_attr_double(r->res, "/final", "step_time_ms", median_double(t, r->train_hist.count));
        free(t);
    }
    results_attr_int(r->res, "/final", "act_bytes", (int64_t)model_activation_bytes(&r->model));
    results_attr_double(r->res, "/final", "train_time_s", r->train_time_s);
    results_attr_int(r->res, "/final", "peak_mem_bytes", peak_rss_bytes());
    results_attr_int(r->res, "/final", "backend_peak_bytes", (int64_t)r->model.ops->memory_peak(0));
    results_attr_int(r->res, "/final", "params", (int64_t)tensor_table_numel(&r->model.params));
    int train_keys = k->train_keys(&r->obj);
    results_attr_double(r->res, "/final", "flops_per_step", 3.0 * model_forward_flops_masked(&r->model.cfg, train_keys) * r->batch *
                                                               (k->batch_factor > 1 ? k->batch_factor : 1));
    results_attr_int(r->res, "/final", "steps", r->step);
    budget_record(r);
    results_attr_double(r->res, "/final", "images_per_s", r->train_time_s > 0 ? r->step * (double)r->batch / r->train_time_s : 0.0);
    run_metrics_write(r->res, k->metrics); // /final metric_info: units and direction (bench/results/run_metrics.h)
    if (results_close(r->res) != 0) die_fail("%s: closing the results file failed", r->partial_path);
    r->res = NULL;
    char err[8600];
    int rc = safe_rename_over(r->partial_path, r->final_path, err, sizeof err); // never over a link or device
    if (rc != SAFE_OK) die_code(rc, "%s", err);
    metrics_log_finish(r); // a retrained finished run's new metrics replace its old ones only now
    unlink(r->ckpt_path);
}

// train.graph=on: whether the steps issued so far must be read after global step `done` (1-based)
// is issued: its record needs what follows it (a metrics line, an evaluation, a checkpoint, the
// stop, the last step, a test hook), or the backend's array is full.
static int read_due(const run *r, long done, long stop_after, long checkpoint_every, int hooks) {
    return hooks || step_device_full(r->device_step) || r->metrics_every <= 1 || done % r->metrics_every == 0 || done % r->eval_every == 0 ||
           done >= r->total_steps || done % r->steps_per_epoch == 0 ||
           (checkpoint_every > 0 && done % checkpoint_every == 0) || (stop_after > 0 && done >= stop_after);
}

static void free_run(run *r) {
    const ops_backend *ops = r->model.ops;
    train_step_free(r);
    objective_free(&r->obj);
    early_stop_free(r);
    if (ops) ops->free(r->adam_m);
    if (ops) ops->free(r->adam_v);
    model_free(&r->model);
    dataset_free(&r->train);
    dataset_free(&r->test);
    free(r->data_prints);
    r->data_prints = NULL;
    free(r->labels);
    free(r->scratch);
    free(r->order);
    free(r->batch_index);
    history_free(&r->train_hist);
    history_free(&r->eval_hist);
    metrics_log_close(r);
}

int train_run(const config *cfg, const train_options *opt, train_result *out) {
    run r;
    memset(&r, 0, sizeof r);
    r.init_rms[0] = r.init_rms[1] = NAN;
    memset(out, 0, sizeof *out);
    train_settings_resolve_or_die(cfg, &r.trainer); // exits 2 on a refusal
    r.opt = opt;
    r.comm = opt->comm ? opt->comm : comm_single();
    const int root = r.comm->rank == 0; // the rank that writes files and evaluates
    if (opt->run_id) snprintf(r.run_id, sizeof r.run_id, "%s", opt->run_id);
    else config_run_id(cfg, r.run_id);
    if (opt->plan_path) { // the crosscheck plan instead of training (train_plan.c)
        setup(&r);
        int rc = train_plan_write(&r, opt->plan_path);
        free_run(&r);
        return rc;
    }
    int claim_status = 0;
    if (r.comm->size == 1) {
        if (!train_files_claim(&r, out, &claim_status)) return claim_status;
    } else { // rank 0 claims the run for every rank; the others only need its paths
        int decision[2] = {1, 0}; // train?, status
        if (root) decision[0] = train_files_claim(&r, out, &claim_status), decision[1] = claim_status;
        else train_files_paths(&r, out);
        r.comm->broadcast(decision, sizeof decision, 0);
        if (!decision[0]) return decision[1];
    }
    setup(&r);
    env_init(&r);
    if (opt->init_weights) weights_load_init(&r, opt->init_weights), budget_read_init(&r, opt->init_weights);
    if (opt->fresh && root) unlink(r.ckpt_path);
    r.comm->barrier(); // every rank reads the checkpoint rank 0 kept
    int resumed = checkpoint_resume(&r); // keeps the first segment's `started`
    if (resumed) early_stop_resume_best(&r); // the best step from the restored /val rows
    char now[32];
    iso_time(now, sizeof now);
    if (!r.started[0]) snprintf(r.started, sizeof r.started, "%s", now);
    if (root) open_results(&r);
    if (root) metrics_log_open(&r); // lines past the checkpoint's step are cut (metrics_log.h)
    if (resumed && root) results_attr_str(r.res, "/", "resumed", now); // the latest resume
    if (resumed && root) record_init_embedding(&r, r.init_rms[0], r.init_rms[1]); // measured by the first segment

    model *m = &r.model;
    printf("run %s: %s d=%d L=%d H=%d patch %d, %zu parameters; %d train / %d test images; %d epochs x %d steps of %d\n",
           r.run_id, m->arch->name, m->cfg.dim, m->cfg.depth, m->cfg.heads, m->cfg.patch, tensor_table_numel(&m->params), r.train.n,
           r.test.n, r.epochs, r.steps_per_epoch, r.batch);
    if (resumed) printf("resuming run %s from step %ld (%s)\n", r.run_id, r.step, vis(r.ckpt_path));
    fflush(stdout);
    if (opt->warn_busy_cores && root && strcmp(m->ops->name, "cuda") != 0) cpu_busy_warn(1, posbench_threads());

    progress bar;
    FILE *bar_out = root ? stderr : fopen("/dev/null", "w"); // the other ranks show nothing
    if (!bar_out) die_fail("rank %d: cannot open /dev/null for its progress", r.comm->rank);
    progress_init(&bar, bar_out, "train", r.total_steps);
    bar.base_step = r.step;
    long checkpoint_every = r.trainer.checkpoint_every;
    eval_scores last = {{0, 0}, 0};
    if (r.eval_hist.count > 0) {
        const double *row = r.eval_hist.rows + (r.eval_hist.count - 1) * EVAL_COLS;
        last = (eval_scores){{row[2], row[3]}, row[4]};
    }
    int status = 0;
    r.sched_base = machine_sched_now(); // this segment's wait for a CPU counts from here (checkpoint.h)
    const char *final_status = "done";
    const train_hooks *hooks = train_fault_hooks(); // test-only fault injection (train_faults.h); NULL in real runs
    // train.graph=on (r.device_step): steps are issued ahead of their records; their losses and
    // norms are read in one download when a step needs them (read_due), then each step is recorded
    // in order exactly as a step that read its loss at once (a non-finite loss changed nothing
    // on the backend and ends the run at that step).
    step_device *sd = r.device_step;
    long issued = r.step; // steps issued (ahead of r.step, the steps recorded, under train.graph=on)
    int pend_epoch[STEP_DEVICE_CAP];
    float pend_lr[STEP_DEVICE_CAP];
    double pend_dt[STEP_DEVICE_CAP], pend_loss[STEP_DEVICE_CAP], pend_norm[STEP_DEVICE_CAP];
    int ended = 0;
    while (!ended && r.step < r.total_steps) {
        int epoch = (int)(issued / r.steps_per_epoch), in_epoch = (int)(issued % r.steps_per_epoch);
        if (in_epoch == 0 || issued == 0 || resumed) train_epoch_order(&r, epoch);
        resumed = 0;
        if (hooks) hooks->before_step(hooks->ctx, m, issued + 1);
        double t0 = now_seconds(), grad_norm = 0.0, loss = 0.0;
        float lr = 0.0f;
        if (issued == 0) model_measure_embedding(m); // the /init attributes, from this step's forward
        if (sd) lr = train_step_device(&r, epoch, in_epoch, issued);
        else loss = train_step(&r, epoch, in_epoch, &grad_norm, &lr);
        if (issued == 0 && root) record_init_embedding(&r, m->content_rms, m->posenc_rms);
        issued++;
        double dt = now_seconds() - t0;
        int steps = 1; // recorded now
        if (sd) {
            int i = sd->pending - 1;
            pend_epoch[i] = epoch, pend_lr[i] = lr, pend_dt[i] = dt;
            if (!read_due(&r, issued, opt->stop_after, checkpoint_every, hooks != NULL)) continue;
            double t1 = now_seconds();
            steps = step_device_read(sd, pend_loss, pend_norm);
            pend_dt[steps - 1] += now_seconds() - t1; // the wait for the steps' end counts in the last one
        }
        for (int i = 0; i < steps && !ended; i++) {
            if (sd) { // step i of those just read: as train_step returns it (a non-finite loss: no rate, no norm)
                epoch = pend_epoch[i], dt = pend_dt[i], loss = pend_loss[i];
                lr = isfinite(loss) ? pend_lr[i] : 0.0f;
                grad_norm = isfinite(loss) ? pend_norm[i] : 0.0;
            }
            r.train_time_s += dt;
            if (!isfinite(loss)) {
                progress_finish(&bar);
                if (root) fprintf(stderr, "posbench: run %s diverged: loss %g at step %ld\n", r.run_id, loss, r.step + 1);
                if (root) results_attr_int(r.res, "/final", "diverged_step", r.step + 1);
                if (root) metrics_log_step(&r, r.step + 1, loss, lr, grad_norm, NULL, NULL, 1);
                final_status = "diverged";
                status = 1;
                ended = 1;
                break;
            }
            r.step++;
            double row[TRAIN_COLS] = {(double)r.step, (double)epoch, loss, lr, grad_norm, dt * 1e3};
            history_append(&r.train_hist, row);
            if (root) results_series_append(r.train_series, row);
            progress_update(&bar, r.step, loss, r.batch / dt);
            int epoch_end = r.step % r.steps_per_epoch == 0;
            if (!(r.step % r.eval_every == 0 || r.step == r.total_steps) && root)
                metrics_log_step(&r, r.step, loss, lr, grad_norm, NULL, NULL, 0); // when due (metrics_log.h)
            if (r.step % r.eval_every == 0 || r.step == r.total_steps) { // test (and validation) evaluation, rank 0
                int diverged = 0;
                if (train_evaluates_here(&r)) { // rank 0, or every rank when the evaluation is sharded
                    if (hooks) hooks->before_eval(hooks->ctx, m, epoch + 1);
                    last = train_evaluate(&r);
                }
                if (!isfinite(last.loss)) last.metric[0] = last.metric[1] = NAN; // a diverged model's scores are no scores (not 0)
                if (root) {
                    double erow[EVAL_COLS] = {(double)epoch + 1, (double)r.step, last.metric[0], last.metric[1], last.loss};
                    history_append(&r.eval_hist, erow);
                    results_series_append(r.eval_series, erow);
                }
                eval_scores val = r.es.on ? early_stop_evaluate(&r) : last; // every rank: rank 0's validation row
                if (!isfinite(val.loss)) val.metric[0] = val.metric[1] = NAN;
                if (root) {
                    if (!isfinite(last.loss) || !isfinite(val.loss)) { // non-finite logits: the model diverged; no accuracy is reported
                        progress_finish(&bar);
                        fprintf(stderr, "posbench: run %s diverged: %s loss %g at the end of epoch %d (step %ld)\n", r.run_id,
                                isfinite(last.loss) ? "validation" : "test", isfinite(last.loss) ? val.loss : last.loss, epoch + 1, r.step);
                        results_attr_int(r.res, "/final", "diverged_step", r.step);
                        diverged = 1;
                    }
                    metrics_log_step(&r, r.step, loss, lr, grad_norm, &last, r.es.on ? &val : NULL, diverged);
                    if (!diverged) {
                        progress_message(&bar, r.obj.kind->progress, epoch + 1, r.epochs, loss, metric_shown(r.obj.kind, 0, last.metric[0]),
                                         metric_shown(r.obj.kind, 1, last.metric[1]), r.train_time_s);
                    }
                }
                r.comm->broadcast(&diverged, sizeof diverged, 0); // the other ranks stop with rank 0
                if (diverged) {
                    if (!root) progress_finish(&bar);
                    final_status = "diverged";
                    status = 1;
                    ended = 1;
                    break;
                }
            }
            int stop = opt->stop_after > 0 && r.step >= opt->stop_after && r.step < r.total_steps;
            if ((epoch_end || stop || (checkpoint_every > 0 && r.step % checkpoint_every == 0)) && r.step < r.total_steps && root) {
                checkpoint_write(&r);
                results_flush(r.res);
            }
            if (hooks) hooks->after_step(hooks->ctx, m, r.step);
            if (stop) {
                progress_finish(&bar);
                if (root && results_close(r.res) != 0) die_fail("%s: closing the results file failed", r.partial_path);
                r.res = NULL;
                if (!root) fclose(bar_out);
                r.comm->barrier(); // the checkpoint is written before any rank leaves
                printf("stopped after step %ld of %ld as asked; checkpoint %s (rerun the same command to resume)\n", r.step,
                       r.total_steps, r.ckpt_path);
                snprintf(out->status, sizeof out->status, "stopped");
                snprintf(out->path, sizeof out->path, "%s", r.partial_path);
                out->steps = r.step;
                free_run(&r);
                train_files_release(&r);
                return 0;
            }
        }
    }
    progress_finish(&bar);
    if (!root) fclose(bar_out);
    if (status == 0 && r.es.on && r.es.best_step > 0) { // the final test metrics are those of the chosen state
        early_stop_use_best(&r); // on every rank: the same chosen parameters
        if (train_evaluates_here(&r)) last = train_evaluate(&r);
    }
    if (root) finish_file(&r, final_status, status == 0 ? &last : NULL);
    r.comm->barrier(); // the results file is in place before any rank leaves
    snprintf(out->status, sizeof out->status, "%s", final_status);
    out->top1 = last.metric[0];
    out->top5 = last.metric[1];
    out->seconds = r.train_time_s;
    out->steps = r.step;
    if (status == 0)
        printf(r.obj.kind->final_line, metric_shown(r.obj.kind, 0, last.metric[0]), metric_shown(r.obj.kind, 1, last.metric[1]), r.train_time_s);
    printf("results: %s\n", vis(r.final_path));
    free_run(&r);
    train_files_release(&r);
    return status;
}
