// bench/train/metrics_log.c — <run-id>.metrics.jsonl, a run's live metrics (rules and keys in
// metrics_log.h): which steps get a line, the resume cut, and the strict-JSON writer (numbers
// and strings through bench/results/export.h, as `posbench export --format json` writes them).
#include "metrics_log.h"
#include "../results/export.h"
#include "../store/run_files.h"
#include "../../core/common.h"
#include "../../core/safe_file.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

long metrics_log_keep_bytes(const char *path, long keep_step, char *err, size_t errlen) {
    FILE *f;
    int missing;
    if (safe_fopen_read(path, -1, SAFE_NOFOLLOW, &f, &missing, err, errlen) != SAFE_OK) return missing ? 0 : -1;
    long offset = 0, keep = 0;
    char *line = NULL;
    size_t cap = 0;
    int got;
    while ((got = safe_read_line(f, &line, &cap, SAFE_LINE_CAP)) > 0) {
        long n = (long)strlen(line) + 1;
        if (feof(f)) break; // no newline: cut short by a kill, dropped
        const char *s = strstr(line, "\"step\":");
        char *end = NULL;
        long step = s ? strtol(s + 7, &end, 10) : -1;
        if (!s || end == s + 7 || step > keep_step) break; // a later step (or not a line of ours): cut here
        offset += n;
        keep = offset;
    }
    free(line);
    fclose(f);
    return keep;
}

void metrics_log_open(run *r) {
    char final[4200], err[4400];
    run_path_format(final, sizeof final, "the metrics file", "%s/%s.metrics.jsonl", r->opt->out_dir, r->run_id);
    struct stat st;
    r->metrics_pending = lstat(r->final_path, &st) == 0; // a finished run being retrained keeps its own metrics
    run_path_format(r->metrics_path, sizeof r->metrics_path, "the metrics file", "%s%s", final,
                    r->metrics_pending ? ".partial" : "");
    const char *path = r->metrics_path;
    long keep = r->step > 0 ? metrics_log_keep_bytes(path, r->step, err, sizeof err) : 0;
    if (keep < 0) die_code(SAFE_REFUSED, "cannot read the metrics file: %s", err);
    int rc = safe_fopen_update(path, "a", &r->metrics_file, err, sizeof err);
    if (rc != SAFE_OK) die_code(rc, "cannot write the metrics file: %s", err);
    if (ftruncate(fileno(r->metrics_file), keep) != 0)
        die_fail("cannot cut the metrics file %s to the checkpoint's step %ld: %s", path, r->step, strerror(errno));
    r->metrics_every = r->total_steps / 1000 > 1 ? r->total_steps / 1000 : 1;
}

void metrics_log_close(run *r) {
    if (r->metrics_file && fclose(r->metrics_file) != 0) fprintf(stderr, "posbench: warning: closing the metrics file failed\n");
    r->metrics_file = NULL;
}

void metrics_log_finish(run *r) {
    if (!r->metrics_pending) return;
    metrics_log_close(r);
    char final[4200], err[8600];
    snprintf(final, sizeof final, "%.*s", (int)(strlen(r->metrics_path) - strlen(".partial")), r->metrics_path);
    int rc = safe_rename_over(r->metrics_path, final, err, sizeof err);
    if (rc != SAFE_OK) die_code(rc, "the metrics file of run %s: %s", r->run_id, err);
    r->metrics_pending = 0;
}

static void put_number(FILE *f, const char *key, double v) {
    char num[64];
    export_number(v, num, sizeof num);
    fprintf(f, ",\"%s\":%s", key, num[0] ? num : "null");
}

static void put_scores(FILE *f, const char *prefix, const char *const names[2], const eval_scores *s) {
    char key[96];
    for (int m = 0; m < 2; m++) {
        snprintf(key, sizeof key, "%s_%s", prefix, names[m]);
        put_number(f, key, s->metric[m]);
    }
    snprintf(key, sizeof key, "%s_loss", prefix);
    put_number(f, key, s->loss);
}

// Is step a step with a training line? (Evaluation steps, the last and diverged ones are also
// logged: metrics_log_step.)
static int due(const run *r, long step) { return step % r->metrics_every == 0 || step % r->eval_every == 0 || step == r->total_steps; }

void metrics_log_step(run *r, long step, double loss, double lr, double grad_norm, const eval_scores *eval,
                      const eval_scores *val, int diverged) {
    FILE *f = r->metrics_file;
    if (!f || (!diverged && !eval && !due(r, step))) return;
    // The steps since the previous line (the last due step before this one): their mean loss and
    // throughput, from the recorded /train rows (a resumed run has them all back).
    long prev = step - 1;
    while (prev > 0 && !due(r, prev)) prev--;
    double loss_sum = 0.0, ms = 0.0;
    long n = 0;
    for (long i = r->train_hist.count - 1; i >= 0; i--) {
        const double *row = r->train_hist.rows + i * TRAIN_COLS; // step, epoch, loss, lr, grad_norm, step_time_ms
        if (row[0] <= (double)prev) break;
        if (row[0] > (double)step) continue;
        loss_sum += row[2], ms += row[5], n++;
    }
    struct timeval now;
    gettimeofday(&now, NULL);
    fputs("{\"run_id\":", f);
    export_json_string(f, r->run_id);
    fprintf(f, ",\"step\":%ld,\"total_steps\":%ld", step, r->total_steps);
    put_number(f, "epoch", (double)step / (double)r->steps_per_epoch);
    put_number(f, "loss", loss);
    put_number(f, "loss_avg", n > 0 && !diverged ? loss_sum / (double)n : NAN);
    put_number(f, "lr", lr);
    put_number(f, "grad_norm", grad_norm);
    put_number(f, "images_per_s", ms > 0 ? (double)n * r->batch / (ms / 1e3) : NAN);
    put_number(f, "train_time_s", r->train_time_s);
    put_number(f, "time", (double)now.tv_sec + now.tv_usec / 1e6);
    if (eval) put_scores(f, "eval", r->obj.kind->metric_names, eval);
    if (val) put_scores(f, "val", r->obj.kind->metric_names, val);
    if (diverged) fputs(",\"diverged\":true", f);
    fputs("}\n", f);
    if (fflush(f) != 0 || ferror(f)) die_fail("writing the metrics file of run %s failed: %s", r->run_id, strerror(errno));
}
