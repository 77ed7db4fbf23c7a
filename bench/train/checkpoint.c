// bench/train/checkpoint.c — writing, validating and resuming checkpoints, and the final weights
// (see checkpoint.h). The model is reached only through m->params, m->param and m->ops.
#include "checkpoint.h"
#include "../../core/common.h"
#include "../../core/tensorfile.h"
#include "../../datasets/data_files.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// A host copy of a backend arena of t->total floats (the caller frees it).
static float *arena_to_host(const ops_backend *ops, const tensor_table *t, const float *arena) {
    float *host = xmalloc_aligned(t->total * sizeof(float), "arena (host copy)");
    ops->download(host, arena, t->total * sizeof(float));
    return host;
}

static void add_arena(tensorfile *tf, const char *prefix, const tensor_table *t, const float *base) {
    char name[128];
    for (int i = 0; i < t->count; i++) {
        const tensor_info *info = &t->items[i];
        snprintf(name, sizeof name, "%s.%s", prefix, info->name);
        tf_add(tf, name, TF_F32, info->ndim, info->shape, base + info->offset);
    }
}

static void add_history(tensorfile *tf, const char *name, const history *h) {
    int dims[2] = {(int)h->count, h->cols};
    tf_add(tf, name, TF_F64, 2, dims, h->rows ? (const void *)h->rows : (const void *)"");
}

void checkpoint_write(run *r) {
    tensorfile tf;
    tf_init(&tf);
    int idlen[1] = {12};
    tf_add(&tf, "state.run_id", TF_U8, 1, idlen, r->run_id);
    tf_add_i64_scalar(&tf, "state.step", r->step);
    tf_add_i64_scalar(&tf, "state.total_steps", r->total_steps);
    int started_len[1] = {(int)strlen(r->started)};
    if (started_len[0] > 0) tf_add(&tf, "state.started", TF_U8, 1, started_len, r->started); // kept over resumes
    double t = r->train_time_s;
    int one[1] = {1};
    tf_add(&tf, "state.train_time_s", TF_F64, 1, one, &t);
    double sched[2]; // the wait for a CPU so far (absent: a segment went unmeasured)
    if (run_sched_total(r, &sched[0], &sched[1])) {
        int two_sched[1] = {2};
        tf_add(&tf, "state.cpu_sched", TF_F64, 1, two_sched, sched);
    }
    int prints_len[1] = {r->data_prints ? (int)strlen(r->data_prints) : 0}; // the data it trained on
    if (prints_len[0] > 0) tf_add(&tf, "state.data_files", TF_U8, 1, prints_len, r->data_prints);
    int two[1] = {2};
    if (isfinite(r->init_rms[0]) && isfinite(r->init_rms[1])) tf_add(&tf, "state.init_rms", TF_F64, 1, two, r->init_rms);
    const ops_backend *ops = r->model.ops;
    const tensor_table *params = &r->model.params;
    float *param = arena_to_host(ops, params, r->model.param), *m = arena_to_host(ops, params, r->adam_m),
          *v = arena_to_host(ops, params, r->adam_v);
    add_arena(&tf, "param", params, param);
    add_arena(&tf, "adam_m", params, m);
    add_arena(&tf, "adam_v", params, v);
    add_history(&tf, "history.train", &r->train_hist);
    add_history(&tf, "history.eval", &r->eval_hist);
    if (r->obj.kind->checkpoint_add) r->obj.kind->checkpoint_add(&r->obj, &tf); // the objective's own state (DINO's teacher)
    float *best = NULL; // early stopping: the /val rows and the best parameters so far
    if (r->es.on) add_history(&tf, "history.val", &r->es.hist);
    if (r->es.on && r->es.best_step > 0) {
        best = arena_to_host(ops, params, r->es.best_param);
        add_arena(&tf, "best_param", params, best);
    }
    char err[4400];
    int rc = tf_write(&tf, r->ckpt_path, err, sizeof err);
    if (rc != 0) die_code(rc, "checkpoint: %s", err);
    tf_free(&tf);
    free(param);
    free(m);
    free(v);
    free(best);
}

// Every refusal names the file, says what is wrong and that nothing was resumed.
static void refuse(const run *r, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void refuse(const run *r, const char *fmt, ...) {
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    die_input("%s: checkpoint refused, not resumed: %s (posbench train --fresh restarts the run from step 0; "
              "or delete the file)", r->ckpt_path, what);
}

// Fills the backend arena from the checkpoint entries prefix.<tensor name>; every value must be
// finite (and >= 0 when nonneg: AdamW second moments).
static void restore_arena(const run *r, const tensorfile *tf, const char *prefix, float *arena, int nonneg) {
    const tensor_table *t = &r->model.params;
    float *base = xmalloc_aligned(t->total * sizeof(float), "arena (host copy)");
    char name[128];
    for (int i = 0; i < t->count; i++) {
        const tensor_info *info = &t->items[i];
        snprintf(name, sizeof name, "%s.%s", prefix, info->name);
        const tf_entry *e = tf_find(tf, name);
        if (!e || e->dtype != TF_F32 || e->count != info->numel) refuse(r, "entry %s is missing or has the wrong size", name);
        const float *v = e->data;
        for (size_t k = 0; k < e->count; k++)
            if (!isfinite(v[k]) || (nonneg && v[k] < 0.0f))
                refuse(r, "entry %s holds %g at element %zu (%s)", name, (double)v[k], k,
                       nonneg ? "second moments are finite and >= 0" : "values must be finite");
        memcpy(base + info->offset, e->data, info->numel * sizeof(float));
    }
    r->model.ops->upload(arena, base, t->total * sizeof(float));
    free(base);
}

// The recorded rows of a series: exactly `rows` rows of h->cols finite-or-NaN doubles whose
// step column (step_col) counts as the run recorded them.
static void restore_history(const run *r, const tensorfile *tf, const char *name, history *h, long rows, int step_col,
                            long step_per_row) {
    const tf_entry *e = tf_find(tf, name);
    if (!e || e->dtype != TF_F64 || e->ndim != 2 || e->dims[1] != h->cols) refuse(r, "entry %s is missing or malformed", name);
    if (e->dims[0] != rows) refuse(r, "entry %s has %d rows; step %ld needs %ld", name, e->dims[0], r->step, rows);
    const double *v = e->data;
    for (long i = 0; i < rows; i++)
        if (v[i * h->cols + step_col] != (double)((i + 1) * step_per_row))
            refuse(r, "entry %s row %ld records step %g, not %ld", name, i, v[i * h->cols + step_col], (i + 1) * step_per_row);
    h->rows = xmalloc((size_t)(rows > 0 ? rows : 1) * h->cols * sizeof(double), "training history");
    if (rows) memcpy(h->rows, v, (size_t)rows * h->cols * sizeof(double));
    h->capacity = rows > 0 ? rows : 1;
    h->count = rows;
}

// A scalar state entry: one finite f64 (an integer when integral is set).
static double state_scalar(const run *r, const tensorfile *tf, const char *name, int integral) {
    const tf_entry *e = tf_find(tf, name);
    if (!e || e->dtype != TF_F64 || e->count != 1) refuse(r, "entry %s is missing or malformed", name);
    double v = ((const double *)e->data)[0];
    if (!isfinite(v) || (integral && v != floor(v))) refuse(r, "entry %s is %g, not a finite%s number", name, v, integral ? " whole" : "");
    return v;
}

int checkpoint_resume(run *r) {
    if (access(r->ckpt_path, F_OK) != 0) return 0;
    tensorfile tf;
    char err[4400];
    if (tf_read(&tf, r->ckpt_path, err, sizeof err) != 0) die_input("%s; checkpoint refused, not resumed (posbench train --fresh restarts the run from step 0; or delete the file)", err);
    if (tf.version < TF_VERSION) refuse(r, "written without checksums (tensorfile version %d)", tf.version);
    const tf_entry *id = tf_find(&tf, "state.run_id");
    if (!id || id->dtype != TF_U8 || id->count != 12 || memcmp(id->data, r->run_id, 12) != 0)
        refuse(r, "it belongs to another run (state.run_id differs from %s)", r->run_id);
    const tf_entry *prints = tf_find(&tf, "state.data_files"); // absent: written before fingerprints existed
    if (prints) {
        if (prints->dtype != TF_U8) refuse(r, "entry state.data_files is malformed (text expected)");
        char *was = xmalloc(prints->count + 1, "recorded data fingerprints"), why[4600];
        memcpy(was, prints->data, prints->count);
        was[prints->count] = 0;
        int same = data_prints_equal(was, r->data_prints, why, sizeof why);
        free(was);
        if (!same && !r->opt->force)
            refuse(r, "the data changed since it was written: %s; the rest of the run would train on other data "
                   "(--force also restarts from step 0)", why);
        if (!same) {
            printf("run %s: the data changed since the checkpoint (%s); --force: restarting from step 0\n", r->run_id, vis(why));
            tf_free(&tf);
            return 0;
        }
    }
    double step = state_scalar(r, &tf, "state.step", 1), total = state_scalar(r, &tf, "state.total_steps", 1);
    if (total != (double)r->total_steps) refuse(r, "state.total_steps is %.0f; this run has %ld steps", total, r->total_steps);
    if (step < 1 || step >= (double)r->total_steps)
        refuse(r, "state.step is %.0f; a checkpoint is taken after step 1 .. %ld", step, r->total_steps - 1);
    r->step = (long)step;
    r->train_time_s = state_scalar(r, &tf, "state.train_time_s", 0);
    const tf_entry *started = tf_find(&tf, "state.started");
    if (started && started->dtype == TF_U8 && started->count < sizeof r->started) {
        memcpy(r->started, started->data, started->count);
        r->started[started->count] = 0;
    }
    if (r->train_time_s < 0) refuse(r, "state.train_time_s is %g (negative)", r->train_time_s);
    const tf_entry *sched = tf_find(&tf, "state.cpu_sched"); // absent (an older checkpoint): unmeasured
    if (!sched) r->sched_unknown = 1;
    else {
        const double *v = sched->data;
        if (sched->dtype != TF_F64 || sched->count != 2 || !(v[0] >= 0.0) || !(v[1] >= 0.0) || !isfinite(v[0]) || !isfinite(v[1]))
            refuse(r, "entry state.cpu_sched is malformed (2 finite non-negative seconds expected)");
        r->sched_run_s = v[0], r->sched_wait_s = v[1];
    }
    const tf_entry *init_rms = tf_find(&tf, "state.init_rms"); // absent: not measured (NAN kept)
    if (init_rms) {
        const double *v = init_rms->data;
        if (init_rms->dtype != TF_F64 || init_rms->count != 2 || !(v[0] >= 0.0) || !(v[1] >= 0.0) || !isfinite(v[0]) || !isfinite(v[1]))
            refuse(r, "entry state.init_rms is malformed (2 finite non-negative RMS values expected)");
        r->init_rms[0] = v[0], r->init_rms[1] = v[1];
    }
    restore_arena(r, &tf, "param", r->model.param, 0);
    restore_arena(r, &tf, "adam_m", r->adam_m, 0);
    restore_arena(r, &tf, "adam_v", r->adam_v, 1);
    if (r->obj.kind->checkpoint_restore) {
        const char *why = r->obj.kind->checkpoint_restore(&r->obj, &tf);
        if (why) refuse(r, "%s", why);
    }
    restore_history(r, &tf, "history.train", &r->train_hist, r->step, 0, 1);                   // column step
    restore_history(r, &tf, "history.eval", &r->eval_hist, r->step / r->eval_every, 1, r->eval_every); // column step
    if (r->es.on) { // the /val rows, and the best parameters when a best step was chosen (early_stop_resume_best
                    // derives that step from the rows and checks the two agree)
        restore_history(r, &tf, "history.val", &r->es.hist, r->step / r->eval_every, 0, r->eval_every);
        char first[128];
        snprintf(first, sizeof first, "best_param.%s", r->model.params.count > 0 ? r->model.params.items[0].name : "");
        r->es.best_restored = tf_find(&tf, first) != NULL;
        if (r->es.best_restored) restore_arena(r, &tf, "best_param", r->es.best_param, 0);
    }
    tf_free(&tf);
    return 1;
}

void weights_write(run *r) {
    tensorfile tf;
    tf_init(&tf);
    float *param = arena_to_host(r->model.ops, &r->model.params, r->model.param);
    add_arena(&tf, "param", &r->model.params, param);
    char err[4400];
    int rc = tf_write(&tf, r->weights_path, err, sizeof err);
    if (rc != 0) die_code(rc, "final weights: %s", err);
    tf_free(&tf);
    free(param);
}

// "(4, 16)" into buf.
static void shape_text(int ndim, const int *dims, char *buf, size_t len) {
    size_t used = (size_t)snprintf(buf, len, "(");
    for (int d = 0; d < ndim && used < len; d++) used += (size_t)snprintf(buf + used, len - used, "%s%d", d ? ", " : "", dims[d]);
    if (used < len) snprintf(buf + used, len - used, ")");
}

void weights_load_init(run *r, const char *path) {
    tensorfile tf;
    char err[4400];
    if (tf_read(&tf, path, err, sizeof err) != 0) die_input("init weights: %s", err);
    const tensor_table *t = &r->model.params;
    const char *head = r->model.cfg.request.head_name ? r->model.cfg.request.head_name : "head";
    size_t head_len = strlen(head);
    float *param = arena_to_host(r->model.ops, t, r->model.param);
    int loaded = 0, mismatched = 0;
    char skipped[1024] = "", wrong[1024] = "";
    for (int i = 0; i < t->count; i++) {
        const tensor_info *info = &t->items[i];
        char name[128];
        snprintf(name, sizeof name, "param.%s", info->name);
        const tf_entry *e = tf_find(&tf, name);
        if (e && e->dtype == TF_F32 && e->count == info->numel) {
            const float *v = e->data;
            for (size_t k = 0; k < e->count; k++)
                if (!isfinite(v[k])) die_input("init weights: %s: entry %s holds %g at element %zu (weights must be finite)", path, name, (double)v[k], k);
            memcpy(param + info->offset, e->data, info->numel * sizeof(float));
            loaded++;
            continue;
        }
        int is_head = !strncmp(info->name, head, head_len) && info->name[head_len] == '.';
        if (e && !is_head) { // the same tensor in another shape: the models differ
            char was[96], now[96];
            shape_text(e->ndim, e->dims, was, sizeof was);
            shape_text(info->ndim, info->shape, now, sizeof now);
            mismatched++;
            if (strlen(wrong) + strlen(info->name) + strlen(was) + strlen(now) + 24 < sizeof wrong)
                snprintf(wrong + strlen(wrong), sizeof wrong - strlen(wrong), "%s%s %s in the file, %s here",
                         wrong[0] ? "; " : "", info->name, was, now);
        }
        if (strlen(skipped) + strlen(info->name) + 3 < sizeof skipped) {
            strcat(skipped, skipped[0] ? ", " : "");
            strcat(skipped, info->name);
        }
    }
    if (mismatched > 0 && !r->trainer.init_partial) {
        free(param);
        tf_free(&tf);
        die_input("init weights %s do not fit this model: %d of %d tensors load, %d have another shape (%s); the stage's "
                  "model differs from its init stage's (set train.init_partial=true, in YAML train: {init_partial: true}, "
                  "to start from the tensors that fit)", path, loaded, t->count, mismatched, wrong);
    }
    r->model.ops->upload(r->model.param, param, t->total * sizeof(float));
    free(param);
    r->init_loaded = loaded, r->init_tensors = t->count;
    printf("init: %d of %d tensors from %s%s%s\n", loaded, t->count, vis(path), skipped[0] ? "; fresh: " : "", vis(skipped));
    tf_free(&tf);
}

int run_sched_total(const run *r, double *run_s, double *wait_s) {
    machine_sched_time now = machine_sched_now();
    if (r->sched_unknown || !r->sched_base.known || !now.known) return 0;
    double run = now.run_s - r->sched_base.run_s, wait = now.wait_s - r->sched_base.wait_s;
    if (run < 0.0 || wait < 0.0) return 0; // a thread ended since the base reading: its time is gone
    *run_s = r->sched_run_s + run, *wait_s = r->sched_wait_s + wait;
    return 1;
}
