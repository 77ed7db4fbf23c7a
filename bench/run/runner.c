// bench/run/runner.c — executes an experiment's runs in stage order. Each run is a child process
// (fork) running train_run, so a failing run cannot take the sweep down and --jobs N runs
// N at once with the CPU threads split between them. A run starts when its parent (the
// `init` stage's run) is done; it holds an flock on <run>.lock, so two processes or shards
// never run the same run (the kernel drops the lock if a process dies, even by kill -9). A run
// another process holds is waited for, then counted as that process left it (done, diverged) or,
// left unfinished, run here: two `run`s of one experiment into one folder both end with every run
// (a run found ended by the other process when this one takes its lock is counted, not restarted).
// Done runs are skipped, interrupted ones resume from their checkpoint, failed ones are
// retried (--retries), diverged ones are final. Shards split by root run: a run and its
// descendants always land in the same shard.
#include "runner.h"
#include "../train/cpu_busy.h"
#include "estimate.h"
#include "sgemm_cache.h"
#include "run_names.h"
#include "../experiment/exp_tables.h"
#include "../experiment/experiment.h"
#include "../store/run_files.h"
#include "../train/train.h"
#include "../train/data_unchanged.h"
#include "../train/train_settings.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include "../../core/device.h"
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

// R_ELSEWHERE: another process holds the run's lock (a second `posbench run` of the experiment
// into the same folder, a shard): this one waits for it and then counts what it left.
enum { R_SKIP, R_WAIT, R_RUNNING, R_DONE, R_FAILED, R_DIVERGED, R_BLOCKED, R_ELSEWHERE, R_DAMAGED };
static const char *state_name[] = {"skipped", "waiting", "running", "done", "failed", "diverged", "blocked", "elsewhere", "damaged"};

// Which <run-id>.h5 a run had when this process last looked (absent: exists 0): a run whose
// lock this process takes is trained only when its file is still the one seen, so a run that
// another process finished after this one's scan (but before this one reached it) is counted,
// not started again, and its files (the log included) are not touched.
typedef struct {
    int exists;
    dev_t dev;
    ino_t ino;
    struct timespec mtime;
} run_file_seen;

static run_file_seen file_seen(const experiment *e, int i, const char *out) {
    char base[4096], final_path[4200];
    experiment_run_path(e, i, out, base, sizeof base);
    snprintf(final_path, sizeof final_path, "%s.h5", base);
    struct stat st;
    run_file_seen s = {0};
    if (lstat(final_path, &st) == 0) s.exists = 1, s.dev = st.st_dev, s.ino = st.st_ino, s.mtime = st.st_mtim;
    return s;
}

static int same_file_seen(run_file_seen a, run_file_seen b) {
    return a.exists == b.exists && (!a.exists || (a.dev == b.dev && a.ino == b.ino && a.mtime.tv_sec == b.mtime.tv_sec &&
                                                  a.mtime.tv_nsec == b.mtime.tv_nsec));
}

// What another process left of run i (read under its lock): done (R_DONE), diverged
// (R_DIVERGED), damaged (R_DAMAGED), or unfinished (R_WAIT: this process trains it); the
// terminal ones are printed as "[done] ...: the other process finished it" and so on.
static int left_by_other(const experiment *e, int i, const char *out) {
    run_file_state st = experiment_run_file_state(e, i, out, NULL, 0);
    int state = st == RUN_FILE_DONE       ? R_DONE
                : st == RUN_FILE_DIVERGED ? R_DIVERGED
                : st == RUN_FILE_DAMAGED  ? R_DAMAGED
                                          : R_WAIT;
    printf("[%s]%*s %s %s %s: the other process %s\n", state == R_WAIT ? "resume" : state_name[state],
           (int)(8 - strlen(state == R_WAIT ? "resume" : state_name[state])), "", e->runs[i].run_id, e->runs[i].stage,
           vis(e->runs[i].axes),
           state == R_DONE       ? "finished it"
           : state == R_DIVERGED ? "saw it diverge"
           : state == R_DAMAGED  ? "left a damaged file (--force sets it aside and reruns the run)"
                                 : "left it unfinished: running it here");
    fflush(stdout);
    return state;
}

// A run another process was running (R_ELSEWHERE), checked again: still locked (stays), or as
// that process left it (left_by_other).
static int recheck_elsewhere(const experiment *e, int i, const char *out) {
    char base[4096], holder[4400];
    experiment_run_path(e, i, out, base, sizeof base);
    int fd = run_lock_take(base, holder, sizeof holder);
    if (fd < 0) return R_ELSEWHERE;
    int state = left_by_other(e, i, out);
    run_lock_release(base, fd);
    return state;
}

typedef struct {
    const char *path, *scale, *out, *only, *device;
    int jobs, shard, shards, dry_run, force, retries, fail_fast;
} run_flags;

static experiment g_exp; // ~50 KB: static, not on the stack

static void run_help(void) {
    printf("usage: posbench run EXPERIMENT.yaml [--scale S] [--out DIR] [--jobs N] [--shard I/N]\n"
           "                    [--only PATTERN] [--dry-run] [--force] [--retries N] [--fail-fast]\n"
           "                    [--threads N] [--device auto|cpu|cpu-guarded|cuda]\n"
           "Runs every run of the experiment in stage order into DIR/<name>/<stage>/<run-id>.h5\n"
           "(DIR defaults to results). Done runs are skipped, interrupted runs resume from their\n"
           "checkpoint, failed runs are retried, and a lock keeps two processes off one run (a run another\n"
           "process holds is waited for, then counted as it was left, or run here when left unfinished).\n"
           "Each stage folder gets names/: links named by the run's axis values and seed to its .h5\n"
           "(docs/cli.md); each run writes <run-id>.metrics.jsonl as it trains (posbench watch DIR).\n"
           "  --scale S       apply the experiment's named override set S\n"
           "  --jobs N        run N runs at once, splitting the CPU threads between them\n"
           "  --shard I/N     run only shard I of N (0-based; a run stays with its root run)\n"
           "  --only PATTERN  run only runs whose id, stage or axis text matches the shell pattern\n"
           "  --dry-run       print what would run and stop\n"
           "  --force         retrain runs that are already done\n"
           "  --retries N     retry a failed run N times (default 0); diverged runs are final\n"
           "  --fail-fast     stop starting runs after the first failure\n"
           "Exit status: 0 all selected runs done, 1 some failed or diverged (named at the end), 2 bad input.\n");
}

static int root_of(const experiment *e, int i) {
    while (e->runs[i].parent >= 0) i = e->runs[i].parent;
    return i;
}

static int selected(const experiment *e, int i, const run_flags *f) {
    if (f->shards > 0) {
        int root = root_of(e, i), rank = 0; // rank of the root among root runs
        for (int k = 0; k < root; k++) rank += e->runs[k].parent < 0;
        if (rank % f->shards != f->shard) return 0;
    }
    if (f->only) {
        const exp_run *r = &e->runs[i];
        char text[1200];
        snprintf(text, sizeof text, "%s %s %s", r->run_id, r->stage, r->axes);
        if (fnmatch(f->only, r->run_id, 0) != 0 && fnmatch(f->only, r->stage, 0) != 0 &&
            fnmatch(f->only, text, 0) != 0 && !strstr(text, f->only))
            return 0;
    }
    return 1;
}

// Creates the directories leading to file.
static void make_dirs_for(const char *file) {
    char dir[4400];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return;
    *slash = 0;
    make_dirs(dir);
}

// Child: trains run i and exits with train_run's status (stdout goes to <run>.log).
static void child_train(const experiment *e, int i, const run_flags *f, int threads) {
    char base[4096], out_dir[4096], init[4200], log[4200];
    experiment_run_path(e, i, f->out, base, sizeof base);
    snprintf(out_dir, sizeof out_dir, "%s", base);
    *strrchr(out_dir, '/') = 0;
    snprintf(log, sizeof log, "%s.log", base);
    int fd;
    char err[4400];
    int rc = safe_open_update(log, O_WRONLY | O_CREAT | O_APPEND, &fd, err, sizeof err); // never through a link
    if (rc != SAFE_OK) error_msg("the run's log %s", err), _exit(rc);
    dup2(fd, STDOUT_FILENO);
    if (f->jobs > 1) dup2(fd, STDERR_FILENO); // one progress bar only: the single job's
    close(fd);
    posbench_set_threads(threads);
    train_options opt = {.out_dir = out_dir, .experiment = e->name, .stage = e->runs[i].stage,
                         .scale = e->scale[0] ? e->scale : "small", // small: the experiments' base config
                         .force = f->force, .run_id = e->runs[i].run_id, .device = f->device,
                         .lock_held = 1}; // the parent holds the run lock
    if (e->runs[i].parent >= 0) {
        experiment_run_path(e, e->runs[i].parent, f->out, init, sizeof init);
        strcat(init, ".weights");
        opt.init_weights = init;
        opt.parent_cfg = &e->runs[e->runs[i].parent].cfg;
        opt.parent_stage = e->runs[e->runs[i].parent].stage;
    }
    const config *budget_cfgs[EXP_MAX_STAGES];
    const char *budget_stages[EXP_MAX_STAGES];
    int chain[EXP_MAX_STAGES], nchain = 0;
    for (int q = e->runs[i].budget; q >= 0 && nchain < EXP_MAX_STAGES; q = e->runs[q].parent) chain[nchain++] = q;
    for (int k = 0; k < nchain; k++) { // root first
        budget_cfgs[k] = &e->runs[chain[nchain - 1 - k]].cfg;
        budget_stages[k] = e->runs[chain[nchain - 1 - k]].stage;
    }
    opt.budget_cfgs = budget_cfgs, opt.budget_stages = budget_stages, opt.nbudget = nchain;
    train_result res;
    int status = train_run(&e->runs[i].cfg, &opt, &res);
    fflush(stdout);
    _exit(status);
}

// The run's "final: top1=... top5=... time=...s" line from its log, or "no result".
static void last_final_line(const char *base, char *out, size_t len) {
    char log[4200], line[512];
    snprintf(log, sizeof log, "%s.log", base);
    snprintf(out, len, "no result");
    FILE *f;
    char err[64];
    if (safe_fopen_read(log, -1, SAFE_NOFOLLOW, &f, NULL, err, sizeof err) != SAFE_OK) return; // never blocks
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "final: ", 7)) {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, len, "%.*s", (int)(len - 1), line + 7);
        }
    fclose(f);
}

static int parse_flags(int argc, char **argv, run_flags *f) {
    memset(f, 0, sizeof *f);
    f->out = "results";
    f->jobs = 1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
        if (!strcmp(a, "--scale") && v) f->scale = argv[++i];
        else if (!strcmp(a, "--out") && v) {
            if (!v[0]) die_input("--out needs a directory name (got an empty string)");
            f->out = argv[++i];
        }
        else if (!strcmp(a, "--only") && v) f->only = argv[++i];
        else if (!strcmp(a, "--dry-run")) f->dry_run = 1;
        else if (!strcmp(a, "--force")) f->force = 1;
        else if (!strcmp(a, "--fail-fast")) f->fail_fast = 1;
        else if ((!strcmp(a, "--jobs") || !strcmp(a, "--retries") || !strcmp(a, "--threads")) && v) {
            long n = parse_int_flag(a, v, strcmp(a, "--retries") ? 1 : 0, strcmp(a, "--retries") ? POSBENCH_MAX_THREADS : 1000);
            if (!strcmp(a, "--jobs")) f->jobs = (int)n;
            else if (!strcmp(a, "--retries")) f->retries = (int)n;
            else posbench_set_threads((int)n);
            i++;
        } else if (!strcmp(a, "--shard") && v) {
            const char *slash = strchr(v, '/');
            char first[32];
            if (!slash || slash - v >= (long)sizeof first) die_input("--shard needs I/N with 0 <= I < N (got '%s')", v);
            snprintf(first, sizeof first, "%.*s", (int)(slash - v), v);
            long n = parse_int_flag("--shard N", slash + 1, 1, 1000000), s = parse_int_flag("--shard I", first, 0, n - 1);
            f->shard = s;
            f->shards = n;
            i++;
        } else if (!strcmp(a, "--device") && v) {
            device_flag_validate(v);
            f->device = v;
            i++;
        } else if (a[0] == '-') {
            die_input("unknown or incomplete flag '%s' for posbench run (posbench run --help lists them)", a);
        } else if (!f->path) {
            f->path = a;
        } else {
            die_input("posbench run takes one experiment file (got '%s' and '%s')", f->path, a);
        }
    }
    if (!f->path) die_input("posbench run needs an experiment file (posbench run --help)");
    struct stat st;
    if (stat(f->out, &st) == 0 && !S_ISDIR(st.st_mode))
        die_input("--out %s is not a directory (a file of that name exists): name a results directory", f->out);
    return 0;
}

// "about N min" (or "under a minute") of `seconds`, with hours beside two hours or more, in hours
// and days from two days.
static void about_minutes(double seconds, char *out, size_t len) {
    double minutes = seconds / 60.0;
    if (minutes < 1.0) snprintf(out, len, "under a minute");
    else if (minutes < 120.0) snprintf(out, len, "about %.0f min", minutes);
    else if (minutes < 48 * 60.0) snprintf(out, len, "about %.0f min (%.1f h)", minutes, minutes / 60.0);
    else snprintf(out, len, "about %.0f h (%.0f days)", minutes / 60.0, minutes / 1440.0);
}

// The "estimated time" lines of the runs still to run (bench/run/estimate.h): the wall time on
// the cores the jobs use, then its CPU seconds by part, then the runs it cannot count and why.
// scripts/reproduce.sh sums the "(S s on" figure over a source's experiments.
static void print_estimate(const experiment *e, const int *state, int cores) {
    double train = 0.0, eval = 0.0, probe = 0.0, train_at_rate = 0.0, eval_at_rate = 0.0, probe_at_rate = 0.0,
           sgemm = sgemm_rate_cached();
    int counted = 0, uncounted = 0, no_eval = 0, narrow = 0;
    char why[340] = "";
    for (int i = 0; i < e->nruns; i++) {
        if (state[i] != R_WAIT) continue;
        run_estimate r;
        if (estimate_run(e, i, &r) != 0) {
            if (!uncounted++) snprintf(why, sizeof why, "%.255s (stage %.63s)", r.why, e->runs[i].stage);
            continue;
        }
        counted++;
        train += r.train_flops;
        eval += r.eval_flops;
        train_at_rate += estimate_rate_flops(&r, r.train_flops);
        eval_at_rate += estimate_rate_flops(&r, r.eval_flops);
        probe += r.probe_flops;
        probe_at_rate += estimate_probe_rate_flops(&r);
        no_eval += !r.eval_known;
        narrow += r.rate_fraction < 1.0;
    }
    if (!(sgemm > 0.0)) {
        printf("estimated time: unknown (the sgemm rate could not be measured in a child process)\n");
        return;
    }
    estimate_seconds t = estimate_cpu_seconds(train_at_rate, eval_at_rate, probe_at_rate, counted, sgemm);
    double cpu_s = t.train_s + t.eval_s + t.probe_s + t.setup_s, wall_s = cpu_s / cores;
    char about[64], probes[96] = "", probe_flops[160] = "";
    about_minutes(wall_s, about, sizeof about);
    if (probe > 0.0) {
        snprintf(probes, sizeof probes, " + linear probes %.0f", t.probe_s);
        snprintf(probe_flops, sizeof probe_flops, "; the linear probes' fits %.3g TFLOP at %.2f of the sgemm times d/(d + %.0f), for their work per row",
                 probe / 1e12, ESTIMATE_PROBE_EFFICIENCY, ESTIMATE_PROBE_ROW_DIMS);
    }
    printf("estimated time: %s (%.0f s on %d core%s of an otherwise idle machine; %.0f CPU s = training %.0f + evaluation "
           "%.0f%s + setup %.0f of %d run%s; %.3g + %.3g TFLOP at %.2f and %.2f of this machine's sgemm, %.0f GFLOP per CPU second%s%s)\n",
           about, wall_s, cores, cores == 1 ? "" : "s", cpu_s, t.train_s, t.eval_s, probes, t.setup_s, counted, counted == 1 ? "" : "s",
           train / 1e12, eval / 1e12, ESTIMATE_EFFICIENCY, ESTIMATE_EVAL_EFFICIENCY, sgemm,
           narrow ? ", models narrower than d = 64 at d/64 of those fractions" : "", probe_flops);
    if (uncounted)
        printf("  not counted: %d run%s whose size is known only once the data is read; the first: %s\n", uncounted,
               uncounted == 1 ? "" : "s", why);
    if (no_eval)
        printf("  evaluation not counted for %d run%s: the test set's size is known only once its files are read\n", no_eval,
               no_eval == 1 ? "" : "s");
}

int cmd_run(int argc, char **argv) {
    run_flags f;
    if (parse_flags(argc, argv, &f)) {
        run_help();
        return 0;
    }
    char err[4096];
    experiment *e = &g_exp;
    if (experiment_load(e, f.path, f.scale, err, sizeof err) != 0) die_input("%s", err);
    if (exp_tables_write(e, NULL, err, sizeof err) != 0) die_input("%s", err);
    for (int i = 0; i < e->nruns; i++) { // the trainer's rules between keys, before any run starts
        train_settings ts;
        if (train_settings_resolve(&e->runs[i].cfg, &ts, err, sizeof err) != 0)
            die_input("%s (stage '%s', %s)", err, e->runs[i].stage, e->runs[i].axes);
    }
    int n = e->nruns;
    int *state = xcalloc((size_t)n, sizeof(int), "run states");
    int *tries = xcalloc((size_t)n, sizeof(int), "run attempts");
    int *lock_fd = xcalloc((size_t)n, sizeof(int), "run locks");
    pid_t *pid = xcalloc((size_t)n, sizeof(pid_t), "run processes");
    run_file_seen *seen = xcalloc((size_t)n, sizeof *seen, "run files seen");
    int pending = 0; // runs left to train
    for (int i = 0; i < n; i++) { // a run's state comes from its results file (run_files.h) only
        char why[256] = "";
        run_file_state st = experiment_run_file_state(e, i, f.out, why, sizeof why);
        if (!selected(e, i, &f)) state[i] = R_SKIP;
        else if (st == RUN_FILE_DONE && !f.force) {
            state[i] = R_DONE;
            char base[4096], final_path[4200], changed[4800];
            experiment_run_path(e, i, f.out, base, sizeof base);
            snprintf(final_path, sizeof final_path, "%s.h5", base);
            int same = train_data_unchanged(final_path, cfg_int(&e->runs[i].cfg, "data.max_bytes"), changed, sizeof changed);
            if (same < 0) die_input("%s", changed);
            if (!same) // nothing was started: finished on other data, a rerun would mix two corpora
                die_input("run %s (stage %s) finished on other data: %s; nothing was run (--force retrains the runs on the "
                          "data as it is now)", e->runs[i].run_id, e->runs[i].stage, changed);
        }
        else if (st == RUN_FILE_DIVERGED && !f.force) state[i] = R_DIVERGED; // final: reruns keep it
        else if (st == RUN_FILE_DAMAGED && !f.force) {
            state[i] = R_DAMAGED;
            char base[4096];
            experiment_run_path(e, i, f.out, base, sizeof base);
            printf("[damaged] %s %s %s: %s.h5 %s; left as it is (--force sets it aside and reruns the run)\n",
                   e->runs[i].run_id, e->runs[i].stage, vis(e->runs[i].axes), vis(base), vis(why));
        } else state[i] = R_WAIT, pending++, seen[i] = file_seen(e, i, f.out);
    }
    int threads = posbench_threads(), per_job = threads / f.jobs > 0 ? threads / f.jobs : 1;
    printf("experiment %s: %d run%s in %d stage%s; %d to run%s (%d job%s x %d thread%s)\n", e->name, n, n == 1 ? "" : "s",
           e->nstages, e->nstages == 1 ? "" : "s", pending, f.shards ? " in this shard" : "", f.jobs, f.jobs == 1 ? "" : "s",
           per_job, per_job == 1 ? "" : "s");
    if (pending > 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN), used = (long)f.jobs * per_job;
        print_estimate(e, state, (int)(cores > 0 && used > cores ? cores : used));
    }
    if (f.dry_run) {
        for (int i = 0; i < n; i++)
            if (state[i] != R_SKIP)
                printf("  %s %-10s %-8s %s\n", e->runs[i].run_id, e->runs[i].stage,
                       state[i] == R_DONE ? "done" : experiment_run_status(e, i, f.out), vis(e->runs[i].axes));
        return 0;
    }
    if (pending > 0 && !(f.device && !strcmp(f.device, "cuda"))) cpu_busy_warn(f.jobs, per_job);
    char exp_dir[4096];
    snprintf(exp_dir, sizeof exp_dir, "%.3900s/%.127s/", f.out, e->name);
    make_dirs_for(exp_dir);
    if (exp_tables_write(e, exp_dir, err, sizeof err) != 0) die_fail("%s", err);
    if (run_names_write(e, f.out, err, sizeof err) != 0) // readable links to the runs (run_names.h)
        warn_msg("%s; the runs go on without readable names", err);
    fflush(stdout);
    int running = 0, stop = 0;
    for (;;) {
        int elsewhere = 0;
        for (int i = 0; i < n; i++)
            if (state[i] == R_ELSEWHERE) elsewhere += (state[i] = recheck_elsewhere(e, i, f.out)) == R_ELSEWHERE;
        // Start what can start: parents done, a job slot free, the lock ours.
        for (int i = 0; i < n && running < f.jobs && !stop; i++) {
            if (state[i] != R_WAIT) continue;
            int parent = e->runs[i].parent;
            int parent_state = parent < 0 ? R_DONE : state[parent];
            if (parent >= 0 && parent_state == R_SKIP && experiment_run_file_state(e, parent, f.out, NULL, 0) == RUN_FILE_DONE)
                parent_state = R_DONE; // a parent in another shard or filtered out, done earlier
            if (parent_state == R_FAILED || parent_state == R_DIVERGED || parent_state == R_BLOCKED ||
                parent_state == R_DAMAGED || (parent_state == R_SKIP)) {
                state[i] = R_BLOCKED;
                printf("[blocked] %s %s %s: its %s run %s is not done\n", e->runs[i].run_id, e->runs[i].stage,
                       vis(e->runs[i].axes), e->runs[parent].stage, e->runs[parent].run_id);
                continue;
            }
            if (parent_state != R_DONE) continue;
            char base[4096];
            experiment_run_path(e, i, f.out, base, sizeof base);
            char holder[4400];
            make_dirs_for(base);
            run_files_check(base); // a link or device among the run's files: refused before its lock is taken
            int fd = run_lock_take(base, holder, sizeof holder);
            if (fd < 0) {
                state[i] = R_ELSEWHERE;
                elsewhere++;
                printf("[locked]  %s %s %s: %s is running it; waiting for it\n", e->runs[i].run_id, e->runs[i].stage,
                       vis(e->runs[i].axes), vis(holder));
                fflush(stdout);
                continue;
            }
            if (!same_file_seen(seen[i], file_seen(e, i, f.out))) { // another process ended it since this one looked
                int left = left_by_other(e, i, f.out);
                if (left != R_WAIT) {
                    run_lock_release(base, fd);
                    state[i] = left;
                    continue;
                }
            }
            fflush(stdout);
            fflush(stderr);
            pid_t p = fork();
            if (p < 0) die_fail("fork failed: %s", strerror(errno));
            if (p == 0) {
                close(fd);
                child_train(e, i, &f, per_job);
            }
            lock_fd[i] = fd;
            pid[i] = p;
            state[i] = R_RUNNING;
            tries[i]++;
            running++;
            printf("[start]   %s %s %s%s\n", e->runs[i].run_id, e->runs[i].stage, vis(e->runs[i].axes),
                   tries[i] > 1 ? " (retry)" : "");
            fflush(stdout);
        }
        if (running == 0 && elsewhere == 0) break;
        int wstatus;
        pid_t done;
        if (running == 0) { // only other processes' runs left: look again in a second
            sleep(1);
            continue;
        }
        // Our own runs: wait for one to end, checking other processes' runs every second meanwhile.
        while ((done = waitpid(-1, &wstatus, elsewhere ? WNOHANG : 0)) == 0) {
            sleep(1);
            int still = 0;
            for (int i = 0; i < n; i++)
                if (state[i] == R_ELSEWHERE) still += (state[i] = recheck_elsewhere(e, i, f.out)) == R_ELSEWHERE;
            if (still < elsewhere) break; // one came free: its children may start
        }
        if (done == 0) continue;
        if (done < 0) die_fail("wait failed: %s", strerror(errno));
        int i = 0;
        while (i < n && !(state[i] == R_RUNNING && pid[i] == done)) i++;
        if (i == n) continue;
        running--;
        char base[4096], final_path[4200];
        experiment_run_path(e, i, f.out, base, sizeof base);
        snprintf(final_path, sizeof final_path, "%s.h5", base);
        int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        run_file_state st = run_file_status(final_path, NULL, 0); // what the run left, read while still locked
        seen[i] = file_seen(e, i, f.out); // what this process's own attempt left (a retry starts from it)
        run_lock_release(base, lock_fd[i]);
        if (code == 0 && st == RUN_FILE_DONE) {
            state[i] = R_DONE;
        } else if (st == RUN_FILE_DIVERGED) {
            state[i] = R_DIVERGED; // finished file with status diverged: deterministic, no retry
        } else if (tries[i] <= f.retries && code != EXIT_BAD_INPUT) {
            state[i] = R_WAIT;
        } else {
            state[i] = R_FAILED;
            if (f.fail_fast) stop = 1;
        }
        char result[256];
        last_final_line(base, result, sizeof result);
        printf("[%s]%*s %s %s %s: %s (exit %d; log %s.log)\n", state[i] == R_WAIT ? "retry" : state_name[state[i]],
               (int)(8 - strlen(state[i] == R_WAIT ? "retry" : state_name[state[i]])), "", e->runs[i].run_id,
               e->runs[i].stage, vis(e->runs[i].axes), vis(result), code, vis(base));
        fflush(stdout);
    }
    int failed = 0, ok = 0;
    for (int i = 0; i < n; i++) {
        if (state[i] == R_DONE) ok++;
        if (state[i] == R_FAILED || state[i] == R_DIVERGED || state[i] == R_BLOCKED || state[i] == R_ELSEWHERE ||
            state[i] == R_DAMAGED || (state[i] == R_WAIT && stop)) {
            if (!failed++) printf("not done:\n");
            printf("  %s %s %s: %s\n", e->runs[i].run_id, e->runs[i].stage, vis(e->runs[i].axes),
                   state[i] == R_WAIT ? "not started (--fail-fast)" : state_name[state[i]]);
        }
    }
    printf("experiment %s: %d done, %d not done; results in %s/%s\n", e->name, ok, failed, vis(f.out), e->name);
    free(state);
    free(tries);
    free(lock_fd);
    free(pid);
    free(seen);
    experiment_free(e);
    return failed ? EXIT_RUN_FAILED : 0;
}

void device_flag_validate(const char *value) {
    char why[320];
    if (!device_backend(value, why, sizeof why)) die_input("%s", why);
}
