// bench/crosscheck/crosscheck.c — `posbench crosscheck` (contract in crosscheck.h): select the
// runs, write each one's plan, train it with posbench and with PyTorch (each in its own
// process), read both results back, print the comparison table and the verdict.
#include "crosscheck.h"
#include "../experiment/experiment.h"
#include "../report/significance.h"
#include "../results/results_read.h"
#include "../train/train.h"
#include "../../core/common.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CC_MAX_MATCH 16
#define CC_ALPHA 0.05

typedef struct {
    const char *experiment, *stage, *scale, *out, *python, *script, *device, *metric;
    const char *match_key[CC_MAX_MATCH], *match_value[CC_MAX_MATCH];
    int nmatch, parity_steps;
    double margin;
} cc_flags;

typedef struct {
    double value;    // the compared /final metric (top1, or MP3's position accuracy; NAN when missing)
    double *losses;  // training loss of every step (malloc'd)
    int nlosses;
} cc_side;

static void help(void) {
    printf("usage: posbench crosscheck EXPERIMENT.yaml --stage S [--match key=value ...] [--scale S]\n"
           "                           [--out DIR] [--margin M] [--parity-steps K] [--threads N]\n"
           "                           [--metric M] [--python PATH] [--script FILE] [--device D]\n"
           "Trains the runs of stage S whose config matches every key=value (one per seed) with posbench\n"
           "and with the independent PyTorch trainer bench/crosscheck/torch_train.py on the same data,\n"
           "batch order, augmentation draws, image sizes (data.resolution; UniViT: each step's drawn size),\n"
           "MP3 context draws and initial weights, and prints both sides' metric (mean and 95%% CI over\n"
           "seeds), the per-seed difference with a paired t-test, and a verdict: agree (TOST: the\n"
           "difference is within +-margin), disagree (paired two-sided p < 0.05) or inconclusive.\n"
           "  --out DIR           results directory (default results; posbench runs as `posbench run`)\n"
           "  --metric M          the /final metric compared: supervised: top1 (default: at the training size) or\n"
           "                      top1@S (test images resized to S px, S one of the stage's eval.resolutions; e.g.\n"
           "                      top1@20 for a UniViT at 20 px); objective mp3: pos_top1_nonblank_eta0 (default:\n"
           "                      position top-1 at test eta 0 of the non-blank patches) or pos_top1_eta0 (all)\n"
           "  --margin M          equivalence margin in the metric's units (default 0.02 = 2 points)\n"
           "  --parity-steps K    first training steps whose losses are compared seed by seed (default 5)\n"
           "  --python PATH       Python with PyTorch (default /usr/bin/python3)\n"
           "  --script FILE       the PyTorch trainer (default bench/crosscheck/torch_train.py)\n"
           "Exit status: 0 both sides trained, 1 a training failed, 2 bad input.\n");
}

static void parse(int argc, char **argv, cc_flags *f) {
    memset(f, 0, sizeof *f);
    f->out = "results", f->python = "/usr/bin/python3", f->script = "bench/crosscheck/torch_train.py";
    f->margin = 0.02, f->parity_steps = 5;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help();
            exit(0);
        }
        int takes = !strcmp(a, "--stage") || !strcmp(a, "--match") || !strcmp(a, "--scale") || !strcmp(a, "--out") ||
                    !strcmp(a, "--margin") || !strcmp(a, "--parity-steps") || !strcmp(a, "--threads") ||
                    !strcmp(a, "--python") || !strcmp(a, "--script") || !strcmp(a, "--device") || !strcmp(a, "--metric");
        if (takes && (!v || !v[0])) die_input("crosscheck: %s needs a value", a);
        if (!strcmp(a, "--stage")) f->stage = argv[++i];
        else if (!strcmp(a, "--scale")) f->scale = argv[++i];
        else if (!strcmp(a, "--out")) f->out = argv[++i];
        else if (!strcmp(a, "--python")) f->python = argv[++i];
        else if (!strcmp(a, "--script")) f->script = argv[++i];
        else if (!strcmp(a, "--device")) f->device = argv[++i];
        else if (!strcmp(a, "--metric")) {
            f->metric = argv[++i];
            const char *m = f->metric;
            int at_size = !strncmp(m, "top1@", 5) && m[5] && strspn(m + 5, "0123456789") == strlen(m + 5);
            if (strcmp(m, "top1") && !at_size && strcmp(m, "pos_top1_eta0") && strcmp(m, "pos_top1_nonblank_eta0"))
                die_input("crosscheck: --metric %s is not compared (valid: top1, top1@S for an eval.resolutions size S, "
                          "pos_top1_eta0, pos_top1_nonblank_eta0)", m);
        }
        else if (!strcmp(a, "--threads")) posbench_set_threads((int)parse_int_flag(a, argv[++i], 1, POSBENCH_MAX_THREADS));
        else if (!strcmp(a, "--parity-steps")) f->parity_steps = (int)parse_int_flag(a, argv[++i], 0, 1000000);
        else if (!strcmp(a, "--margin")) {
            char *end;
            f->margin = strtod(argv[++i], &end);
            if (*end || !(f->margin > 0) || !isfinite(f->margin))
                die_input("crosscheck: --margin must be a number > 0 in the metric's units (0.02 = 2 points), got '%s'", argv[i]);
        } else if (!strcmp(a, "--match")) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1]) die_input("crosscheck: --match needs key=value, got '%s'", v);
            if (f->nmatch == CC_MAX_MATCH) die_input("crosscheck: more than %d --match", CC_MAX_MATCH);
            char *key = xstrdup(v, "crosscheck match");
            key[eq - v] = '\0';
            if (cfg_index(key) < 0) die_input("crosscheck: --match %s: '%s' is not a config key (posbench train --help lists them)", v, key);
            f->match_key[f->nmatch] = key, f->match_value[f->nmatch++] = eq + 1;
            i++;
        } else if (a[0] == '-') {
            die_input("crosscheck: unknown flag '%s' (valid: --stage, --match, --scale, --out, --metric, --margin, "
                      "--parity-steps, --threads, --python, --script, --device, --help)", a);
        } else if (!f->experiment) {
            f->experiment = a;
        } else {
            die_input("crosscheck: one experiment file only (got '%s' after '%s')", a, f->experiment);
        }
    }
    if (!f->experiment) die_input("crosscheck: which experiment? (posbench crosscheck EXPERIMENT.yaml --stage S)");
    if (!f->stage) die_input("crosscheck: --stage is required (the stage whose runs are trained by both sides)");
}

// Does run i match every --match (values compared as the report compares them)?
static int matches(const experiment *e, int i, const cc_flags *f) {
    for (int m = 0; m < f->nmatch; m++) {
        char text[512];
        config_value_text(&e->runs[i].cfg, cfg_index(f->match_key[m]), text, sizeof text);
        if (!rr_value_equal(text, f->match_value[m])) return 0;
    }
    return 1;
}

// The exit status of child pid (a signal counts as a failed run).
static int wait_child(pid_t pid) {
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) die_fail("crosscheck: waitpid: %s", strerror(errno));
    return WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_RUN_FAILED;
}

// Runs train_run for run i in a child process (stdout and stderr to log), with the plan path
// (write the plan) or without (train). Returns the child's exit status.
static int child_train(const experiment *e, int i, const cc_flags *f, const char *out_dir, const char *plan, const char *log) {
    fflush(stdout), fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) die_fail("crosscheck: fork: %s", strerror(errno));
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) dup2(fd, STDOUT_FILENO), dup2(fd, STDERR_FILENO), close(fd);
        train_options opt = {.out_dir = out_dir, .experiment = e->name, .stage = e->runs[i].stage,
                             .run_id = e->runs[i].run_id, .device = f->device, .plan_path = plan};
        train_result res;
        int status = train_run(&e->runs[i].cfg, &opt, &res);
        fflush(stdout);
        _exit(status);
    }
    return wait_child(pid);
}

// python script plan --out result --threads N, output to log. Returns its exit status.
static int run_torch(const cc_flags *f, const char *plan, const char *result, const char *log) {
    char threads[16];
    snprintf(threads, sizeof threads, "%d", posbench_threads());
    fflush(stdout), fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) die_fail("crosscheck: fork: %s", strerror(errno));
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) dup2(fd, STDOUT_FILENO), dup2(fd, STDERR_FILENO), close(fd);
        execl(f->python, f->python, f->script, plan, "--out", result, "--threads", threads, (char *)NULL);
        fprintf(stderr, "crosscheck: cannot run %s: %s\n", f->python, strerror(errno));
        _exit(EXIT_BAD_INPUT);
    }
    return wait_child(pid);
}

// The last non-empty line of a log (the error a child printed), into buf.
static const char *last_line(const char *path, char *buf, size_t len) {
    char line[4096];
    snprintf(buf, len, "(see %s)", path);
    FILE *fp = fopen(path, "r");
    if (!fp) return buf;
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0]) snprintf(buf, len, "%s", strncmp(line, "posbench: error: ", 17) ? line : line + 17);
    }
    fclose(fp);
    return buf;
}

// --metric top1@S needs S in the runs' eval.resolutions (posbench records /final top1@S only
// there) and, for an encoding tied to the training grid (relbias, rope, sin1d: the PyTorch
// trainer does not carry them to another grid), S = data.resolution (else plain top1).
static void check_size_metric(const config *c, const char *metric, const char *stage) {
    int S = atoi(metric + 5), sizes[CFG_LIST_MAX], n = cfg_int_list(c, "eval.resolutions", sizes, CFG_LIST_MAX), found = 0;
    char list[256] = "";
    for (int k = 0; k < n; k++) {
        found |= sizes[k] == S;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", k ? ", " : "", sizes[k]);
    }
    if (!found)
        die_input("crosscheck: --metric %s: stage %s evaluates top-1 at other sizes only at eval.resolutions [%s] (valid: top1, "
                  "or top1@S for one of those)", metric, stage, list);
    const char *pe = cfg_str(c, "pe.kind");
    if ((!strcmp(pe, "relbias") || !strcmp(pe, "rope") || !strcmp(pe, "sin1d")) && S != cfg_int(c, "data.resolution"))
        die_input("crosscheck: --metric %s with pe.kind=%s: the PyTorch trainer evaluates this encoding at the training "
                  "size only (valid: top1)", metric, pe);
}

// The PyTorch result file (torch_train.py's format): the metric's line and the losses. 0, or
// -1 with why.
static int read_torch(const char *path, const char *metric, cc_side *s, char *why, size_t len) {
    FILE *fp = fopen(path, "r");
    s->value = NAN, s->losses = NULL, s->nlosses = 0;
    if (!fp) {
        snprintf(why, len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char key[32];
    while (fscanf(fp, "%31s", key) == 1) {
        if (!strcmp(key, metric)) {
            if (fscanf(fp, "%lf", &s->value) != 1) break;
        } else if (!strcmp(key, "step_losses")) {
            double v;
            while (fscanf(fp, "%lf", &v) == 1) {
                double *g = realloc(s->losses, (size_t)(s->nlosses + 1) * sizeof *g);
                if (!g) die_fail("out of memory reading %s", path);
                s->losses = g, s->losses[s->nlosses++] = v;
            }
        } else {
            int c;
            while ((c = fgetc(fp)) != EOF && c != '\n') {}
        }
    }
    fclose(fp);
    if (!isfinite(s->value)) {
        snprintf(why, len, "%s: no finite %s line", path, metric);
        return -1;
    }
    return 0;
}

// posbench's run file: /final <metric> and /train/loss. 0, or -1 with why.
static int read_posbench(const char *path, const char *metric, cc_side *s, char *why, size_t len) {
    rr_run r;
    s->value = NAN, s->losses = NULL, s->nlosses = 0;
    if (rr_read(path, RR_ATTRS | RR_SERIES, &r, why, len) != 0) return -1;
    const rr_attr *a = rr_attr_get(&r.final, metric);
    const rr_column *loss = rr_column_get(&r.train, "loss");
    int ok = a && a->is_num && isfinite(a->num) && !strcmp(rr_run_status(&r), "done");
    if (ok) {
        s->value = a->num;
        s->nlosses = loss ? (int)loss->n : 0;
        s->losses = xcalloc((size_t)s->nlosses + 1, sizeof *s->losses, "crosscheck losses");
        for (int k = 0; k < s->nlosses; k++) s->losses[k] = loss->v[k];
    } else {
        snprintf(why, len, "%s: status %s, no finite /final %s", path, rr_run_status(&r), metric);
    }
    rr_free(&r);
    return ok ? 0 : -1;
}

// The length of a run's axes text without its trailing "seed=N".
static size_t axes_len(const char *axes) {
    const char *seed = strstr(axes, "seed=");
    size_t len = seed ? (size_t)(seed - axes) : strlen(axes);
    while (len > 0 && axes[len - 1] == ' ') len--;
    return len;
}

static void ci_text(const double *v, int n, char *out, size_t len) {
    double mean, var;
    sig_mean_var(v, n, &mean, &var);
    if (n < 2) {
        snprintf(out, len, "%.2f (n = 1, no CI)", 100 * mean);
        return;
    }
    double half = sig_t_quantile(0.975, n - 1) * sqrt(var / n);
    snprintf(out, len, "%.2f ± %.2f", 100 * mean, 100 * half);
}

void crosscheck_verdict(const double *a, const double *b, int n, double margin, char *out, size_t len) {
    if (n < 2) {
        snprintf(out, len, "inconclusive (1 seed)");
        return;
    }
    // Paired: seed k of both trainers starts from the same weights and sees the same batches
    // and augmentation draws (the plan), so the unit is the per-seed difference a_k − b_k.
    double *d = xmalloc((size_t)n * sizeof *d, "crosscheck differences");
    for (int k = 0; k < n; k++) d[k] = a[k] - b[k];
    sig_test t = sig_one_sample(d, n, 0.0);
    free(d);
    double p_two = t.p < 0.5 ? 2 * t.p : 2 * (1 - t.p);
    double p_tost = fmax(sig_shifted(t, margin).p, 1.0 - sig_shifted(t, -margin).p);
    char head[256];
    snprintf(head, sizeof head, "Δ %+.2f points, 95%% CI [%+.2f, %+.2f], paired t p = %.3f (two-sided), TOST p = %.3f at ±%.2f",
             100 * t.effect, 100 * t.lo, 100 * t.hi, p_two, p_tost, 100 * margin);
    if (p_tost < CC_ALPHA) snprintf(out, len, "%s: **agree** (within ±%.2f points)", head, 100 * margin);
    else if (p_two < CC_ALPHA) snprintf(out, len, "%s: **disagree** (significant difference)", head);
    else {
        int need = fabs(t.effect) < margin ? sig_n_one_sample(margin - fabs(t.effect), t.va) : -1;
        if (need > 0) snprintf(out, len, "%s: **inconclusive** (needs %d seeds)", head, need);
        else snprintf(out, len, "%s: **inconclusive** (the difference is outside the margin but not significant)", head);
    }
}

int cmd_crosscheck(int argc, char **argv) {
    cc_flags f;
    parse(argc, argv, &f);
    static experiment e; // large
    char err[2048];
    if (experiment_load(&e, f.experiment, f.scale, err, sizeof err) != 0) die_input("%s", err);
    int si = experiment_stage_index(&e, f.stage);
    if (si < 0) die_input("crosscheck: '%s' is not a stage of %s", f.stage, f.experiment);
    if (e.stage_init[si] >= 0)
        die_input("crosscheck: stage %s starts from stage %s's weights; the PyTorch trainer starts from initialisation only",
                  f.stage, e.stage_names[e.stage_init[si]]);
    int *sel = xcalloc((size_t)e.nruns + 1, sizeof *sel, "crosscheck runs"), n = 0;
    for (int i = 0; i < e.nruns; i++)
        if (!strcmp(e.runs[i].stage, f.stage) && matches(&e, i, &f)) sel[n++] = i;
    if (n == 0) die_input("crosscheck: no run of stage %s matches the --match values (posbench list %s shows the runs)", f.stage, f.experiment);
    for (int k = 1; k < n; k++) // one configuration: the runs differ by their seed only
        if (axes_len(e.runs[sel[k]].axes) != axes_len(e.runs[sel[0]].axes) ||
            strncmp(e.runs[sel[k]].axes, e.runs[sel[0]].axes, axes_len(e.runs[sel[0]].axes)))
            die_input("crosscheck: the --match values select more than one configuration of stage %s ('%.*s' and '%.*s'); add "
                      "--match for the axes that differ", f.stage, (int)axes_len(e.runs[sel[0]].axes), e.runs[sel[0]].axes,
                      (int)axes_len(e.runs[sel[k]].axes), e.runs[sel[k]].axes);
    int is_mp3 = !strcmp(cfg_str(&e.runs[sel[0]].cfg, "objective.name"), "mp3");
    if (!f.metric) f.metric = is_mp3 ? "pos_top1_nonblank_eta0" : "top1";
    if (is_mp3 != !strncmp(f.metric, "pos_", 4))
        die_input("crosscheck: --metric %s: the runs of stage %s have objective.name=%s (valid: %s)", f.metric, f.stage,
                  cfg_str(&e.runs[sel[0]].cfg, "objective.name"), is_mp3 ? "pos_top1_nonblank_eta0, pos_top1_eta0" : "top1, top1@S");
    if (!strncmp(f.metric, "top1@", 5)) check_size_metric(&e.runs[sel[0]].cfg, f.metric, f.stage);
    struct stat st;
    if (stat(f.script, &st) != 0) die_input("crosscheck: the PyTorch trainer %s: %s (run from the repository root or give --script)", f.script, strerror(errno));

    cc_side *pb = xcalloc((size_t)n, sizeof *pb, "crosscheck"), *th = xcalloc((size_t)n, sizeof *th, "crosscheck");
    double *a = xcalloc((size_t)n, sizeof *a, "crosscheck"), *b = xcalloc((size_t)n, sizeof *b, "crosscheck");
    int failed = 0;
    for (int k = 0; k < n; k++) {
        int i = sel[k];
        char base[4096], out_dir[4096], cc_dir[4200], plan[4400], torch_out[4400], log[4400], h5[4200];
        experiment_run_path(&e, i, f.out, base, sizeof base);
        snprintf(out_dir, sizeof out_dir, "%s", base);
        *strrchr(out_dir, '/') = '\0';
        snprintf(cc_dir, sizeof cc_dir, "%s/crosscheck", out_dir);
        make_dirs(cc_dir);
        snprintf(plan, sizeof plan, "%s/%s.plan", cc_dir, e.runs[i].run_id);
        snprintf(torch_out, sizeof torch_out, "%s/%s.torch", cc_dir, e.runs[i].run_id);
        snprintf(h5, sizeof h5, "%s.h5", base);
        printf("[%d/%d] %s %s\n", k + 1, n, e.runs[i].run_id, e.runs[i].axes);
        fflush(stdout);
        int need_torch = access(torch_out, R_OK) != 0, rc;
        char why[4600];
        if (need_torch) { // the plan first: a configuration the PyTorch trainer cannot do is refused before training
            snprintf(log, sizeof log, "%s/%s.plan.log", cc_dir, e.runs[i].run_id);
            unlink(log);
            rc = child_train(&e, i, &f, out_dir, plan, log);
            if (rc == EXIT_BAD_INPUT) die_input("crosscheck: run %s: %s", e.runs[i].run_id, last_line(log, why, sizeof why));
            if (rc != 0) die_fail("crosscheck: writing the plan of run %s failed (log %s)", e.runs[i].run_id, log);
        }
        snprintf(log, sizeof log, "%s.log", base);
        rc = child_train(&e, i, &f, out_dir, NULL, log);
        if (rc == EXIT_BAD_INPUT) die_input("crosscheck: run %s: %s", e.runs[i].run_id, last_line(log, why, sizeof why));
        if (rc != 0 || read_posbench(h5, f.metric, &pb[k], why, sizeof why) != 0) {
            fprintf(stderr, "posbench: crosscheck: posbench run %s failed (exit %d; log %s)\n", e.runs[i].run_id, rc, log);
            failed = 1;
            continue;
        }
        if (need_torch) {
            snprintf(log, sizeof log, "%s/%s.torch.log", cc_dir, e.runs[i].run_id);
            rc = run_torch(&f, plan, torch_out, log);
            unlink(plan); // large (the data); written again when needed
            if (rc == EXIT_BAD_INPUT) die_input("crosscheck: the PyTorch trainer refused run %s: %s", e.runs[i].run_id, last_line(log, why, sizeof why));
        }
        if (read_torch(torch_out, f.metric, &th[k], why, sizeof why) != 0) {
            fprintf(stderr, "posbench: crosscheck: PyTorch run %s failed: %s (log %s)\n", e.runs[i].run_id, why, log);
            failed = 1;
        }
    }
    if (failed) die_fail("crosscheck: a training failed (named above)");

    // The table: one row per side, then the verdict and the parity of the first steps.
    char match[1024] = "";
    for (int m = 0; m < f.nmatch; m++)
        snprintf(match + strlen(match), sizeof match - strlen(match), "%s%s=%s", m ? ", " : "", f.match_key[m], f.match_value[m]);
    printf("\n## Crosscheck: %s, stage %s%s%s\n\n", e.name, f.stage, f.nmatch ? ", " : "", match);
    printf("| trainer | n | %s (%%), mean ± 95%% CI | per seed |\n|---|---|---|---|\n", f.metric);
    for (int side = 0; side < 2; side++) {
        double *v = side ? b : a;
        char per[2048] = "", ci[128];
        for (int k = 0; k < n; k++) {
            v[k] = side ? th[k].value : pb[k].value;
            snprintf(per + strlen(per), sizeof per - strlen(per), "%s%ld: %.2f", k ? ", " : "", e.runs[sel[k]].seed, 100 * v[k]);
        }
        ci_text(v, n, ci, sizeof ci);
        printf("| %s | %d | %s | %s |\n", side ? "PyTorch (bench/crosscheck/torch_train.py)" : "posbench", n, ci, per);
    }
    char verdict[1024];
    crosscheck_verdict(a, b, n, f.margin, verdict, sizeof verdict);
    printf("\nposbench − PyTorch: %s\n", verdict);
    const config *c0 = &e.runs[sel[0]].cfg;
    int exact = cfg_float(c0, "model.drop_path") == 0 && strcmp(cfg_str(c0, "pe.kind"), "cape");
    printf("\nFirst %d training losses (posbench / PyTorch, max relative difference)%s:\n", f.parity_steps,
           exact ? "" : " — drop path or CAPE draws differ between the trainers, so these are not expected to match");
    for (int k = 0; k < n; k++) {
        int K = f.parity_steps < pb[k].nlosses ? f.parity_steps : pb[k].nlosses;
        K = K < th[k].nlosses ? K : th[k].nlosses;
        double worst = 0;
        printf("- seed %ld:", e.runs[sel[k]].seed);
        for (int s = 0; s < K; s++) {
            double d = fabs(pb[k].losses[s] - th[k].losses[s]) / fmax(1.0, fabs(th[k].losses[s]));
            worst = fmax(worst, d);
            printf(" %.5f/%.5f", pb[k].losses[s], th[k].losses[s]);
        }
        printf(" (max %.2g)\n", worst);
    }
    for (int k = 0; k < n; k++) free(pb[k].losses), free(th[k].losses);
    free(pb), free(th), free(a), free(b), free(sel);
    for (int m = 0; m < f.nmatch; m++) free((char *)f.match_key[m]);
    experiment_free(&e);
    return 0;
}
