// bench/run/slurm_script.c — `posbench slurm`: prints the sbatch job-array script that runs an
// experiment across a Slurm cluster, one array task per root run (with its descendants), each
// task `posbench run --shard $SLURM_ARRAY_TASK_ID/N --threads $SLURM_CPUS_PER_TASK`. Resubmitting
// the same script after a failure or a scancel runs only what is not done (the runner skips done
// runs, resumes interrupted ones and locks each run).
// Quoting: every value on the shell command line is single-quoted ('\'' for a quote inside);
// every #SBATCH value is double-quoted (sbatch's own parser), and characters that parser cannot
// carry (", \, control characters) are refused with exit 2; % in the log path is written %%.
// The Slurm options it writes are checked against Slurm's syntax here, so a bad --time or --mem
// is exit 2 now and not a rejected submission later.
#include "runner.h"
#include "../experiment/experiment.h"
#include "../../core/common.h"
#include "../../core/device.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SLURM_DEFAULT_MAX_ARRAY = 1001 }; // Slurm's default MaxArraySize: indices 0..1000

static experiment g_exp; // ~50 KB: static, not on the stack

typedef struct {
    const char *path, *scale, *out, *device, *partition, *account, *qos, *time, *mem, *gres, *only;
    long max_parallel, cpus, retries;
} slurm_flags;

static void slurm_help(void) {
    printf("usage: posbench slurm EXPERIMENT.yaml [--scale S] [--out DIR] [--max-parallel K]\n"
           "                      [--cpus-per-task N] [--time T] [--mem M] [--partition P] [--account A]\n"
           "                      [--qos Q] [--gres G] [--device D] [--retries N] [--only PATTERN]\n"
           "Prints an sbatch job-array script: one task per root run (with its descendants), each\n"
           "running posbench run --shard $SLURM_ARRAY_TASK_ID/N --threads $SLURM_CPUS_PER_TASK.\n"
           "Submit it with sbatch; submit it again after a failure or scancel: done runs are skipped,\n"
           "interrupted runs resume. Logs: DIR/<name>/slurm-<job>_<task>.log (DIR/<name>/ is created\n"
           "now so that Slurm can open them) and each run's <run-id>.log beside its .h5.\n"
           "  --max-parallel K     at most K array tasks at once (--array=0-N%%K)\n"
           "  --cpus-per-task N    CPUs per task, used as the runs' threads (default: this machine's %d)\n"
           "  --time T             Slurm time limit: MIN, MIN:SEC, H:MIN:SEC, D-H, D-H:MIN, D-H:MIN:SEC\n"
           "  --mem M              memory per node: a number with an optional K, M, G or T suffix\n"
           "  --partition, --account, --qos NAME   passed to sbatch (letters, digits, . _ - and ,)\n"
           "  --gres G             generic resources, e.g. gpu:1 (use with --device cuda)\n"
           "  --device, --retries, --only, --scale   passed to posbench run\n"
           "Refused (exit 2): --jobs, --shard, --threads, --force, --dry-run (the array decides them).\n",
           posbench_threads());
}

// Appends text to buf (len bytes) or dies: a script line that does not fit is not written cut.
static void put(char *buf, size_t len, const char *text) {
    size_t used = strlen(buf), add = strlen(text);
    if (used + add >= len) die_input("posbench slurm: a path or value is too long for the script (%.80s...)", text);
    memcpy(buf + used, text, add + 1);
}

// value in single quotes for bash: ' inside becomes '\'' (nothing inside is expanded).
static void put_sh(char *buf, size_t len, const char *value) {
    put(buf, len, "'");
    for (const char *p = value; *p; p++) {
        char one[2] = {*p, 0};
        put(buf, len, *p == '\'' ? "'\\''" : one);
    }
    put(buf, len, "'");
}

// sbatch's parser cannot carry ", \ or a control character in an #SBATCH value (a newline would
// end the line): bad input naming flag, the posbench flag the value came from.
static void check_sbatch_value(const char *option, const char *flag, const char *value) {
    for (const unsigned char *p = (const unsigned char *)value; *p; p++)
        if (*p == '"' || *p == '\\' || *p < 0x20 || *p == 0x7f)
            die_input("posbench slurm: %s '%s' holds %s, which an #SBATCH %s line cannot carry; choose one without "
                      "\", \\ or control characters", flag, value,
                      *p == '"' ? "the character \"" : *p == '\\' ? "the character \\" : "a control character", option);
}

// value in double quotes for an #SBATCH line (checked by check_sbatch_value); percent: 1 for a
// filename pattern, where a literal % is written %%.
static void put_sbatch(char *buf, size_t len, const char *option, const char *flag, const char *value, int percent) {
    check_sbatch_value(option, flag, value);
    put(buf, len, "#SBATCH ");
    put(buf, len, option);
    put(buf, len, "=\"");
    for (const char *p = value; *p; p++) {
        char one[2] = {*p, 0};
        put(buf, len, percent && *p == '%' ? "%%" : one);
    }
    put(buf, len, "\"\n");
}

// 1 when s is 1 to max_digits decimal digits.
static int digits(const char *s, size_t n, size_t max_digits) {
    if (n == 0 || n > max_digits) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i])) return 0;
    return 1;
}

// Slurm's time formats (sbatch --time): MIN, MIN:SEC, H:MIN:SEC, D-H, D-H:MIN, D-H:MIN:SEC, or
// UNLIMITED / INFINITE.
static int slurm_time_valid(const char *t) {
    if (!strcmp(t, "UNLIMITED") || !strcmp(t, "INFINITE") || !strcmp(t, "unlimited") || !strcmp(t, "infinite")) return 1;
    const char *dash = strchr(t, '-'), *rest = t;
    if (dash) {
        if (!digits(t, (size_t)(dash - t), 6)) return 0;
        rest = dash + 1;
    }
    int fields = 0;
    for (const char *p = rest;; fields++) {
        size_t n = strcspn(p, ":");
        if (!digits(p, n, 9)) return 0;
        if (!p[n]) {
            fields++;
            break;
        }
        p += n + 1;
    }
    return fields <= 3;
}

// sbatch --mem: digits with an optional K, M, G or T suffix.
static int slurm_mem_valid(const char *m) {
    size_t n = strlen(m);
    if (n > 0 && strchr("KMGTkmgt", m[n - 1])) n--;
    return digits(m, n, 15);
}

// Partition, account and QOS names (comma lists) and --gres (also ':'): a conservative set.
static void check_name(const char *option, const char *v, const char *extra) {
    if (!v[0]) die_input("posbench slurm: %s needs a value (got an empty string)", option);
    for (const char *p = v; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("._-,", *p) && !strchr(extra, *p))
            die_input("posbench slurm: %s '%s' has the character '%c'; Slurm names are letters, digits and . _ - ,%s", option,
                      v, *p, extra[0] ? " :" : "");
}

static void parse(int argc, char **argv, slurm_flags *f) {
    memset(f, 0, sizeof *f);
    f->out = "results";
    f->cpus = posbench_threads();
    f->retries = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **text = !strcmp(a, "--scale") ? &f->scale : !strcmp(a, "--out") ? &f->out
                          : !strcmp(a, "--device") ? &f->device : !strcmp(a, "--partition") ? &f->partition
                          : !strcmp(a, "--account") ? &f->account : !strcmp(a, "--qos") ? &f->qos
                          : !strcmp(a, "--time") ? &f->time : !strcmp(a, "--mem") ? &f->mem
                          : !strcmp(a, "--gres") ? &f->gres : !strcmp(a, "--only") ? &f->only : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            slurm_help();
            exit(0);
        } else if (text && v) {
            *text = argv[++i];
        } else if (!strcmp(a, "--max-parallel") && v) {
            f->max_parallel = parse_int_flag(a, argv[++i], 1, 1000000);
        } else if (!strcmp(a, "--cpus-per-task") && v) {
            f->cpus = parse_int_flag(a, argv[++i], 1, POSBENCH_MAX_THREADS);
        } else if (!strcmp(a, "--retries") && v) {
            f->retries = parse_int_flag(a, argv[++i], 0, 1000);
        } else if (!strcmp(a, "--jobs") || !strcmp(a, "--shard") || !strcmp(a, "--threads") || !strcmp(a, "--force") ||
                   !strcmp(a, "--dry-run")) {
            die_input("posbench slurm does not take %s: %s", a,
                      !strcmp(a, "--jobs")    ? "each array task runs one run at a time (--max-parallel K limits the tasks at once)"
                      : !strcmp(a, "--shard") ? "the job array shards the experiment itself, one task per root run"
                      : !strcmp(a, "--threads") ? "a task's runs use the CPUs Slurm gives it (--cpus-per-task N)"
                      : !strcmp(a, "--force") ? "a resubmitted array would retrain its done runs every time; run posbench run --force instead"
                                              : "posbench run EXPERIMENT --dry-run --shard I/N shows a task's runs");
        } else if (a[0] == '-') {
            die_input("unknown or incomplete flag '%s' for posbench slurm (posbench slurm --help lists them)", a);
        } else if (!f->path) {
            f->path = a;
        } else {
            die_input("posbench slurm takes one experiment file (got '%s' and '%s')", f->path, a);
        }
    }
    if (!f->path) die_input("posbench slurm needs an experiment file (posbench slurm --help)");
    if (!f->out[0]) die_input("--out needs a directory name (got an empty string)");
    if (f->device && !device_name_valid(f->device))
        die_input("posbench slurm: --device '%s' is not one of %s", f->device, DEVICE_CHOICES);
    if (f->time && !slurm_time_valid(f->time))
        die_input("posbench slurm: --time '%s' is not a Slurm time (MIN, MIN:SEC, H:MIN:SEC, D-H, D-H:MIN, D-H:MIN:SEC "
                  "or UNLIMITED)", f->time);
    if (f->mem && !slurm_mem_valid(f->mem))
        die_input("posbench slurm: --mem '%s' is not a Slurm size (digits with an optional K, M, G or T suffix)", f->mem);
    if (f->partition) check_name("--partition", f->partition, "");
    if (f->account) check_name("--account", f->account, "");
    if (f->qos) check_name("--qos", f->qos, "");
    if (f->gres) check_name("--gres", f->gres, ":");
}

int cmd_slurm(int argc, char **argv) {
    slurm_flags f;
    parse(argc, argv, &f);
    char err[4096];
    experiment *e = &g_exp;
    if (experiment_load(e, f.path, f.scale, err, sizeof err) != 0) die_input("%s", err);
    int roots = 0;
    for (int i = 0; i < e->nruns; i++) roots += e->runs[i].parent < 0;
    if (roots == 0) die_input("posbench slurm: experiment %s has no runs, so no array tasks", e->name);
    if (roots > SLURM_DEFAULT_MAX_ARRAY)
        fprintf(stderr, "posbench slurm: note: %d array tasks; Slurm's default MaxArraySize (%d) refuses indices past %d "
                        "unless the cluster raised it (scontrol show config | grep MaxArraySize)\n",
                roots, SLURM_DEFAULT_MAX_ARRAY, SLURM_DEFAULT_MAX_ARRAY - 1);
    char exe[PATH_MAX], cwd[PATH_MAX], yaml[PATH_MAX], out[PATH_MAX + 8], logs[PATH_MAX + 200];
    if (self_exe_path(exe, sizeof exe) != 0) die_fail("cannot locate the posbench binary: %s", strerror(errno));
    if (!getcwd(cwd, sizeof cwd)) die_fail("cannot read the working directory: %s", strerror(errno));
    if (!realpath(f.path, yaml)) die_input("cannot resolve %s: %s", f.path, strerror(errno));
    // Absolute: the job starts in sbatch's directory, not necessarily this one.
    if (snprintf(out, sizeof out, "%s%s%s", f.out[0] == '/' ? "" : cwd, f.out[0] == '/' ? "" : "/", f.out) >= (int)sizeof out)
        die_input("--out path too long: %.200s...", f.out);
    check_sbatch_value("--output", "--out", out);
    if (snprintf(logs, sizeof logs, "%s/%s", out, e->name) >= (int)sizeof logs) die_input("--out path too long: %.200s...", out);
    static char script[65536];
    char line[1024];
    script[0] = 0;
    snprintf(line, sizeof line, "#!/bin/bash\n# posbench experiment %.200s: %d runs, %d root runs -> %d array tasks (posbench slurm)\n"
             "# Submit with sbatch; submit again after a failure or scancel: done runs are skipped.\n"
             "#SBATCH --job-name=posbench-%.200s\n#SBATCH --array=0-%d", e->name, e->nruns, roots, roots, e->name, roots - 1);
    put(script, sizeof script, line);
    if (f.max_parallel) {
        snprintf(line, sizeof line, "%%%ld", f.max_parallel);
        put(script, sizeof script, line);
    }
    snprintf(line, sizeof line, "\n#SBATCH --cpus-per-task=%ld\n", f.cpus);
    put(script, sizeof script, line);
    char pattern[PATH_MAX + 240];
    snprintf(pattern, sizeof pattern, "%s/slurm-", logs);
    put_sbatch(script, sizeof script, "--output", "--out", pattern, 1);
    script[strlen(script) - 2] = 0; // reopen the quotes after the escaped path to add Slurm's own %A_%a
    put(script, sizeof script, "%A_%a.log\"\n");
    if (f.partition) put_sbatch(script, sizeof script, "--partition", "--partition", f.partition, 0);
    if (f.account) put_sbatch(script, sizeof script, "--account", "--account", f.account, 0);
    if (f.qos) put_sbatch(script, sizeof script, "--qos", "--qos", f.qos, 0);
    if (f.time) put_sbatch(script, sizeof script, "--time", "--time", f.time, 0);
    if (f.mem) put_sbatch(script, sizeof script, "--mem", "--mem", f.mem, 0);
    if (f.gres) put_sbatch(script, sizeof script, "--gres", "--gres", f.gres, 0);
    put(script, sizeof script, "set -euo pipefail\n: \"${SLURM_ARRAY_TASK_ID:?submit this script with sbatch: it is a Slurm job array}\"\ncd ");
    put_sh(script, sizeof script, cwd);
    put(script, sizeof script, "\nexec ");
    put_sh(script, sizeof script, exe);
    put(script, sizeof script, " run ");
    put_sh(script, sizeof script, yaml);
    const char *pass[][2] = {{"--scale", f.scale}, {"--device", f.device}, {"--only", f.only}, {"--out", out}};
    for (size_t k = 0; k < sizeof pass / sizeof pass[0]; k++) {
        if (!pass[k][1]) continue;
        put(script, sizeof script, " ");
        put(script, sizeof script, pass[k][0]);
        put(script, sizeof script, " ");
        put_sh(script, sizeof script, pass[k][1]);
    }
    if (f.retries >= 0) {
        snprintf(line, sizeof line, " --retries %ld", f.retries);
        put(script, sizeof script, line);
    }
    snprintf(line, sizeof line, " --shard \"$SLURM_ARRAY_TASK_ID/%d\" --threads \"${SLURM_CPUS_PER_TASK:-1}\"\n", roots);
    put(script, sizeof script, line);
    make_dirs(logs); // Slurm does not create the log's directory: a missing one fails the task
    if (fputs(script, stdout) == EOF || fflush(stdout) != 0) die_fail("cannot write the script: %s", strerror(errno));
    experiment_free(e);
    return 0;
}
