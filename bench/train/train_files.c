// bench/train/train_files.c — what `posbench train` does with a run's files before it trains:
// builds every derived path without truncation, takes the run lock (bench/store/run_files.h,
// the runner's own) unless the caller holds it, and decides from the run's state whether to
// train: done or diverged runs are not retrained without --force, and a damaged results file
// is never overwritten silently (refused, or set aside with --force, saying so).
#include "train_files.h"
#include "data_unchanged.h"
#include "../results/run_read.h"
#include "../store/run_files.h"
#include "../../datasets/data_files.h"
#include "../../core/common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The lock this process holds, so an exit on bad input (die_input after the lock was taken)
// leaves no lock file behind: bad input writes nothing.
static char g_held_lock[4200];
static void remove_held_lock(void) {
    if (g_held_lock[0]) unlink(g_held_lock);
}

void train_files_paths(run *r, train_result *out) {
    const train_options *opt = r->opt;
    if (!opt->out_dir || !opt->out_dir[0]) die_input("--out needs a directory name (got an empty string)");
    char base[4096];
    run_path_format(base, sizeof base, "the run's files", "%s/%s", opt->out_dir, r->run_id);
    run_path_format(r->final_path, sizeof r->final_path, "the results file", "%s.h5", base);
    run_path_format(r->partial_path, sizeof r->partial_path, "the partial results file", "%s.h5.partial", base);
    run_path_format(r->ckpt_path, sizeof r->ckpt_path, "the checkpoint", "%s.ckpt", base);
    run_path_format(r->weights_path, sizeof r->weights_path, "the final weights", "%s.weights", base);
    run_path_format(r->lock_base, sizeof r->lock_base, "the run lock", "%s", base);
    snprintf(out->run_id, sizeof out->run_id, "%s", r->run_id);
    snprintf(out->path, sizeof out->path, "%s", r->final_path);
    r->lock_fd = -1;
}

// A finished run's result line (its objective's final line: "final: top1=..% top5=..% time=..s")
// from its file's /final attributes; nothing when they cannot be read.
static void print_finished_result(const run *r) {
    const objective_kind *k = objective_find(r->trainer.objective_name);
    rr_run f;
    char err[512];
    if (!k || rr_read(r->final_path, RR_ATTRS, &f, err, sizeof err) != 0) return;
    const rr_attr *a = rr_attr_get(&f.final, k->metric_names[0]), *b = rr_attr_get(&f.final, k->metric_names[1]);
    const rr_attr *t = rr_attr_get(&f.final, "train_time_s");
    if (a && b && t && a->is_num && b->is_num && t->is_num)
        printf(k->final_line, metric_value_shown(k->metrics, k->metric_names[0], a->num),
               metric_value_shown(k->metrics, k->metric_names[1], b->num), t->num);
    rr_free(&f);
}

int train_files_claim(run *r, train_result *out, int *status) {
    const train_options *opt = r->opt;
    train_files_paths(r, out);
    const char *base = r->lock_base;
    make_dirs(opt->out_dir);
    run_files_check(base); // a link or device among the run's files: refused before anything is written
    if (!opt->lock_held) {
        char holder[4400];
        r->lock_fd = run_lock_take(base, holder, sizeof holder);
        if (r->lock_fd < 0) {
            error_msg("run %s is being trained by %s; nothing was touched (wait for it, "
                    "or stop that process)", r->run_id, holder);
            snprintf(out->status, sizeof out->status, "locked");
            *status = EXIT_RUN_FAILED;
            return 0;
        }
        static int registered;
        if (!registered && atexit(remove_held_lock) == 0) registered = 1;
        snprintf(g_held_lock, sizeof g_held_lock, "%s.lock", base);
    }
    char why[256] = "";
    run_file_state st = run_file_status(r->final_path, why, sizeof why);
    if (st == RUN_FILE_DONE && !opt->force) {
        char changed[4800];
        int same = train_data_unchanged(r->final_path, r->trainer.data_options.max_bytes, changed, sizeof changed);
        if (same < 0) die_input("%s", changed);
        if (!same)
            die_input("run %s finished on other data: %s; %s was left as it is (--force retrains the run on the data as it "
                      "is now)", r->run_id, changed, r->final_path);
        printf("run %s is already finished: %s (--force retrains it; the old file is replaced only when the new run ends)\n",
               r->run_id, vis(r->final_path));
        print_finished_result(r);
        snprintf(out->status, sizeof out->status, "skipped");
        *status = 0;
        train_files_release(r);
        return 0;
    }
    if (st == RUN_FILE_DIVERGED && !opt->force) {
        printf("run %s diverged earlier: %s (a diverged run stays diverged; --force retrains it)\n", r->run_id,
               vis(r->final_path));
        snprintf(out->status, sizeof out->status, "diverged");
        *status = EXIT_RUN_FAILED;
        train_files_release(r);
        return 0;
    }
    if (st == RUN_FILE_DAMAGED) {
        if (!opt->force)
            die_input("%s %s; it was left as it is (--force sets it aside as %s.damaged and retrains the run)",
                      r->final_path, why, r->final_path);
        char moved[4400], err[4600];
        if (run_file_set_aside(r->final_path, moved, sizeof moved, err, sizeof err) != 0) die_fail("%s", err);
        printf("run %s: %s %s; set aside as %s, retraining\n", r->run_id, vis(r->final_path), vis(why), vis(moved));
    }
    return 1;
}

void train_files_release(run *r) {
    if (r->lock_fd >= 0) run_lock_release(r->lock_base, r->lock_fd);
    r->lock_fd = -1;
    g_held_lock[0] = 0;
}
