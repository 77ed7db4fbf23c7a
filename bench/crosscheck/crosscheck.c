// bench/crosscheck/crosscheck.c — `posbench crosscheck` (contract in crosscheck.h): select the
// runs, write each one's plan, train it with posbench and with PyTorch (each in its own
// process; --init torch / timm: PyTorch with its own initial weights), read both results back, print
// the comparison table, the verdict (verdict.c), the embedding RMS at init and the loss parity.
#include "crosscheck.h"
#include "../config/config.h"
#include "../experiment/experiment.h"
#include "../report/significance.h"
#include "../results/results_read.h"
#include "../train/train.h"
#include "timm_match.h"
#include "torch_result.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include "../../core/tensorfile.h"
#include "../../models/posenc/encoding.h"
#include "../../objectives/objective.h"
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CC_MAX_MATCH 16

typedef struct {
    const char *experiment, *stage, *scale, *out, *python, *script, *device, *metric;
    const char *match_key[CC_MAX_MATCH], *match_value[CC_MAX_MATCH];
    int nmatch, parity_steps;
    const char *init; // --init: ours, torch (torch_init.py) or timm (torch_timm_init.py)
    int init_torch;   // --init torch or timm: the PyTorch side initialises the model itself
    int python_given; // --python was given (else --init timm runs the anchors' Python)
    double margin;
} cc_flags;

typedef struct {
    double value;    // the compared /final metric (top1, or MP3's position accuracy; NAN when missing)
    double *losses;  // training loss of every step (malloc'd)
    int nlosses;
    char init[16], embed_init[16]; // PyTorch: the init that started it ("ours" for files without one)
    double init_diff;                // PyTorch: the largest |initial weight − posbench's| (0 with --init ours)
    double content_rms, posenc_rms;  // the first training batch's embedding RMS (NAN when not recorded)
} cc_side;

static void help(void) {
    printf("usage: posbench crosscheck EXPERIMENT.yaml --stage S [--match key=value ...] [--scale S]\n"
           "                           [--out DIR] [--margin M] [--parity-steps K] [--threads N]\n"
           "                           [--metric M] [--init ours|torch|timm] [--python PATH] [--script FILE]\n"
           "                           [--device D]\n"
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
           "  --init ours|torch   ours (default): PyTorch starts from posbench's initial weights (paired verdict);\n"
           "                      torch: PyTorch initialises the model by timm's rules from its own generator\n"
           "                      (bench/crosscheck/torch_init.py; the patch projection by model.embed_init), so\n"
           "                      an init defect shows: the seeds are unpaired (Welch test, TOST on it);\n"
           "                      timm: PyTorch builds timm's own VisionTransformer (timm's init functions, seeded\n"
           "                      by the run's seed) and copies its weights into the twin (torch_timm_init.py): the\n"
           "                      reference itself; runs the anchors' Python (" ANCHORS_PYTHON ", make deps-anchors)\n"
           "                      and needs a model timm builds (model.arch=vit, objective.name=supervised,\n"
           "                      pe.kind abs or none, model.embed_init=timm, model.linear_init=timm), else exit 2\n"
           "  --margin M          equivalence margin in the metric's units (default 0.02 = 2 points)\n"
           "  --parity-steps K    first training steps whose losses are compared seed by seed (default 5)\n"
           "  --python PATH       Python with PyTorch (default /usr/bin/python3; --init timm: " ANCHORS_PYTHON ")\n"
           "  --script FILE       the PyTorch trainer (default bench/crosscheck/torch_train.py)\n"
           "Exit status: 0 both sides trained, 1 a training failed, 2 bad input.\n");
}

static void parse(int argc, char **argv, cc_flags *f) {
    memset(f, 0, sizeof *f);
    f->out = "results", f->python = "/usr/bin/python3", f->script = "bench/crosscheck/torch_train.py";
    f->margin = 0.02, f->parity_steps = 5, f->init = "ours";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help();
            exit(0);
        }
        int takes = !strcmp(a, "--stage") || !strcmp(a, "--match") || !strcmp(a, "--scale") || !strcmp(a, "--out") || !strcmp(a, "--init") ||
                    !strcmp(a, "--margin") || !strcmp(a, "--parity-steps") || !strcmp(a, "--threads") ||
                    !strcmp(a, "--python") || !strcmp(a, "--script") || !strcmp(a, "--device") || !strcmp(a, "--metric");
        if (takes && (!v || !v[0])) die_input("crosscheck: %s needs a value", a);
        if (!strcmp(a, "--stage")) f->stage = argv[++i];
        else if (!strcmp(a, "--scale")) f->scale = argv[++i];
        else if (!strcmp(a, "--out")) f->out = argv[++i];
        else if (!strcmp(a, "--python")) f->python = argv[++i], f->python_given = 1;
        else if (!strcmp(a, "--script")) f->script = argv[++i];
        else if (!strcmp(a, "--device")) f->device = argv[++i];
        else if (!strcmp(a, "--init")) {
            if (strcmp(v, "ours") && strcmp(v, "torch") && strcmp(v, "timm"))
                die_input("crosscheck: --init %s (valid: ours: PyTorch copies posbench's initial weights; torch: PyTorch "
                          "initialises by timm's rules from its own generator; timm: by timm's own VisionTransformer)", v);
            f->init = argv[++i];
            f->init_torch = strcmp(f->init, "ours") != 0;
        } else if (!strcmp(a, "--metric")) {
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
            const char *valid = "--stage, --match, --scale, --out, --metric, --init, --margin, --parity-steps, --threads, "
                                "--python, --script, --device, --help";
            die_input("crosscheck: unknown flag '%s'%s (valid: %s)", a, cfg_flag_hint(a, valid), valid);
        } else if (!f->experiment) {
            f->experiment = a;
        } else {
            die_input("crosscheck: one experiment file only (got '%s' after '%s')", a, f->experiment);
        }
    }
    if (!f->experiment) die_input("crosscheck: which experiment? (posbench crosscheck EXPERIMENT.yaml --stage S)");
    if (!f->stage) die_input("crosscheck: --stage is required (the stage whose runs are trained by both sides)");
    if (!strcmp(f->init, "timm") && !f->python_given) {
        f->python = ANCHORS_PYTHON;
        if (access(f->python, X_OK) != 0)
            die_input("crosscheck --init timm: %s not found: timm lives in the anchors' virtual environment (make "
                      "deps-anchors installs it; or give --python PATH of a Python with torch and timm)", f->python);
    }
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
        int fd;
        char err[4600];
        int src = safe_open_update(log, O_WRONLY | O_CREAT | O_APPEND, &fd, err, sizeof err); // never through a link
        if (src != SAFE_OK) error_msg("crosscheck: the log %s", err), _exit(src);
        dup2(fd, STDOUT_FILENO), dup2(fd, STDERR_FILENO), close(fd);
        train_options opt = {.out_dir = out_dir, .experiment = e->name, .stage = e->runs[i].stage,
                             .scale = e->scale[0] ? e->scale : "small",
                             .run_id = e->runs[i].run_id, .device = f->device, .plan_path = plan};
        train_result res;
        int status = train_run(&e->runs[i].cfg, &opt, &res);
        fflush(stdout);
        _exit(status);
    }
    return wait_child(pid);
}

// python script plan --out result --threads N [--init torch|timm --embed-init E], output to log.
// Returns its exit status.
static int run_torch(const cc_flags *f, const char *plan, const char *result, const char *log, const char *embed_init) {
    char threads[16];
    snprintf(threads, sizeof threads, "%d", posbench_threads());
    fflush(stdout), fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) die_fail("crosscheck: fork: %s", strerror(errno));
    if (pid == 0) {
        int fd;
        char err[4600];
        int src = safe_open_update(log, O_WRONLY | O_CREAT | O_TRUNC, &fd, err, sizeof err); // never through a link
        if (src != SAFE_OK) error_msg("crosscheck: the log %s", err), _exit(src);
        dup2(fd, STDOUT_FILENO), dup2(fd, STDERR_FILENO), close(fd);
        if (f->init_torch)
            execl(f->python, f->python, f->script, plan, "--out", result, "--threads", threads, "--init", f->init,
                  "--embed-init", embed_init, (char *)NULL);
        else
            execl(f->python, f->python, f->script, plan, "--out", result, "--threads", threads, (char *)NULL);
        fprintf(stderr, "crosscheck: cannot run %s: %s\n", vis(f->python), strerror(errno));
        _exit(EXIT_BAD_INPUT);
    }
    return wait_child(pid);
}

// The last non-empty line of a log (the error a child printed), into buf.
static const char *last_line(const char *path, char *buf, size_t len) {
    char line[4096];
    snprintf(buf, len, "(see %s)", path);
    FILE *fp;
    char err[64];
    if (safe_fopen_read(path, -1, SAFE_NOFOLLOW, &fp, NULL, err, sizeof err) != SAFE_OK) return buf; // never blocks
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
    const posenc_kind *kind = posenc_find(pe);
    if (kind && !kind->resizable && S != cfg_int(c, "data.resolution"))
        die_input("crosscheck: --metric %s with pe.kind=%s: the PyTorch trainer evaluates this encoding at the training "
                  "size only (valid: top1)", metric, pe);
}

// The PyTorch result at path (a keyed file: torch_result.h validates every line) into s.
// 0; -1 with why when the file is bad or its compared metric is not finite.
static int read_torch(const char *path, const char *metric, long steps, cc_side *s, char *why, size_t len) {
    torch_result r;
    s->value = NAN, s->losses = NULL, s->nlosses = 0;
    if (torch_result_read(path, metric, steps, 1, &r, why, len) != 0) return -1;
    s->value = r.value, s->losses = r.losses, s->nlosses = r.nlosses;
    snprintf(s->init, sizeof s->init, "%s", r.init), snprintf(s->embed_init, sizeof s->embed_init, "%s", r.embed_init);
    s->init_diff = r.init_diff, s->content_rms = r.content_rms, s->posenc_rms = r.posenc_rms;
    if (!isfinite(s->value)) {
        snprintf(why, len, "%s: %s is not a finite number (not measured)", path, metric);
        return -1;
    }
    return 0;
}

// The plan's step count (config.total_steps), what step_losses must hold. Dies (exit 1) when
// the plan posbench just wrote cannot be read.
static long plan_steps(const char *plan) {
    tensorfile tf;
    char err[1024];
    if (tf_read(&tf, plan, err, sizeof err) != 0) die_fail("crosscheck: %s", err);
    const tf_entry *e = tf_find(&tf, "config.total_steps");
    if (!e || e->dtype != TF_F64 || e->count != 1) die_fail("crosscheck: %s: no config.total_steps", plan);
    double v = ((const double *)e->data)[0];
    tf_free(&tf);
    if (!(v >= 0 && v <= 1e8)) die_fail("crosscheck: %s: config.total_steps %g out of range", plan, v);
    return (long)v;
}

// Is the cached result at torch_out reusable for this key, init and embed_init? A file without
// a key (older posbench) or of another key, init or embed_init: no (it says why, trained
// again). A keyed file with a bad line is refused: exit 2 naming FILE:LINE.
static int cache_usable(const char *torch_out, const char *plan, const cc_flags *f, const torch_cache_key *key, long steps,
                        const char *embed_init) {
    char why[4600];
    int missing, rc = safe_check_read(torch_out, -1, SAFE_NOFOLLOW, &missing, why, sizeof why); // a FIFO never blocks
    if (missing) return 0;
    if (rc != SAFE_OK) {
        unlink(plan); // large (the data)
        die_code(rc, "crosscheck: the cached PyTorch result %s", why);
    }
    if (!torch_result_has_key(torch_out)) {
        printf("  %s has no cache key (written by an older posbench): trained again\n", vis(torch_out));
        return 0;
    }
    torch_result c;
    if (torch_result_read(torch_out, f->metric, steps, 1, &c, why, sizeof why) != 0) {
        unlink(plan); // large (the data)
        die_input("crosscheck: the cached PyTorch result is not valid: %s (delete the file to train it again)", why);
    }
    const char *diff = torch_cache_key_diff(&c.key, key);
    int ok = 0;
    if (diff)
        printf("  %s was trained with another %s (the cache is keyed by the script, the interpreter and the plan): trained again\n",
               vis(torch_out), diff + 4);
    else if (strcmp(c.init, f->init) || (f->init_torch && strcmp(c.embed_init, embed_init)))
        printf("  %s is not a finished --init %s result (init %s%s%s): trained again\n", vis(torch_out), vis(f->init),
               vis(c.init), c.embed_init[0] ? ", embed_init " : "", vis(c.embed_init));
    else ok = 1;
    torch_result_free(&c);
    return ok;
}

// One double attribute of /init (bench/train/train.c record_init_embedding); NAN when the file,
// the group or the attribute is absent (runs before issue 27, or not measured).
static double init_attr(hid_t file, const char *name) {
    double v = NAN;
    if (H5Lexists(file, "/init", H5P_DEFAULT) <= 0 || H5Aexists_by_name(file, "/init", name, H5P_DEFAULT) <= 0) return v;
    hid_t a = H5Aopen_by_name(file, "/init", name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) return v;
    if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0) v = NAN;
    H5Aclose(a);
    return v;
}

// posbench's /init content_rms and posenc_rms into s (NAN when not recorded).
static void read_init_rms(const char *path, cc_side *s) {
    s->content_rms = s->posenc_rms = NAN;
    char err[64];
    if (safe_check_read(path, RR_MAX_FILE_BYTES, SAFE_NOFOLLOW, NULL, err, sizeof err) != SAFE_OK) return; // never blocks
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) return;
    s->content_rms = init_attr(file, "content_rms"), s->posenc_rms = init_attr(file, "posenc_rms");
    H5Fclose(file);
}

// posbench's run file: /final <metric> and /train/loss. 0, or -1 with why.
static int read_posbench(const char *path, const char *metric, cc_side *s, char *why, size_t len) {
    rr_run r;
    s->value = NAN, s->losses = NULL, s->nlosses = 0;
    s->content_rms = s->posenc_rms = NAN;
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
    if (ok) read_init_rms(path, s);
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

// The first training batch's embedding RMS of each side, mean over seeds (posbench: /init
// content_rms, posenc_rms; PyTorch: the same quantities from its first forward), when recorded.
static void print_init_embedding(const cc_side *pb, const cc_side *th, int n) {
    for (int side = 0; side < 2; side++) {
        const cc_side *s = side ? th : pb;
        double c = 0, p = 0;
        int have = 0;
        for (int k = 0; k < n; k++)
            if (isfinite(s[k].content_rms) && isfinite(s[k].posenc_rms)) c += s[k].content_rms, p += s[k].posenc_rms, have++;
        if (side == 0) printf("\nEmbedding at initialisation (first training batch, RMS per value, mean over seeds):\n");
        if (!have) {
            printf("- %s: not recorded\n", side ? "PyTorch" : "posbench");
            continue;
        }
        c /= have, p /= have;
        printf("- %s: content %.4f, position encoding %.4f (PE/content %.3g; %d seed%s)\n", side ? "PyTorch" : "posbench", c, p,
               c > 0 ? p / c : NAN, have, have == 1 ? "" : "s");
    }
}

// --init torch / timm: no loss parity (different weights); the largest |initial weight − posbench's|
// of each seed shows they differ, and the first losses are listed for reference.
static void print_init_difference(const experiment *e, const int *sel, const cc_side *pb, const cc_side *th, int n,
                                  const char *init) {
    printf("\nFirst training losses: not compared (--init %s: the sides start from different weights, so their "
           "losses are not expected to match). PyTorch's initial weights against posbench's (max |Δw| over every "
           "parameter):\n", init);
    for (int k = 0; k < n; k++)
        printf("- seed %ld: max |Δw| %.4g; first loss posbench %.5f, PyTorch %.5f\n", e->runs[sel[k]].seed, th[k].init_diff,
               pb[k].nlosses ? pb[k].losses[0] : NAN, th[k].nlosses ? th[k].losses[0] : NAN);
}

// --init ours: the first K training losses of both sides, seed by seed, with their largest
// relative difference (equal to rounding when drop path is 0 and there is no CAPE).
static void print_parity(const experiment *e, const int *sel, const cc_side *pb, const cc_side *th, int n, int parity_steps) {
    const config *c0 = &e->runs[sel[0]].cfg;
    const posenc_kind *pe = posenc_find(cfg_str(c0, "pe.kind"));
    int exact = cfg_float(c0, "model.drop_path") == 0 && !(pe && pe->per_image_draws);
    printf("\nFirst %d training losses (posbench / PyTorch, max relative difference)%s:\n", parity_steps,
           exact ? "" : " — drop path or CAPE draws differ between the trainers, so these are not expected to match");
    for (int k = 0; k < n; k++) {
        int K = parity_steps < pb[k].nlosses ? parity_steps : pb[k].nlosses;
        K = K < th[k].nlosses ? K : th[k].nlosses;
        printf("- seed %ld:", e->runs[sel[k]].seed);
        for (int s = 0; s < K; s++) printf(" %.5f/%.5f", pb[k].losses[s], th[k].losses[s]);
        char summary[128];
        crosscheck_parity_summary(pb[k].losses, th[k].losses, K, summary, sizeof summary);
        printf(" (%s)\n", summary);
    }
}

void crosscheck_parity_summary(const double *ours, const double *theirs, int K, char *out, size_t len) {
    if (K <= 0) {
        snprintf(out, len, "no steps to compare");
        return;
    }
    double worst = 0;
    for (int s = 0; s < K; s++) {
        if (!isfinite(ours[s]) || !isfinite(theirs[s])) { // a diverged step has no difference to report
            snprintf(out, len, "not comparable: step %d's loss is %s on %s", s + 1,
                     isnan(isfinite(ours[s]) ? theirs[s] : ours[s]) ? "nan" : "infinite",
                     !isfinite(ours[s]) && !isfinite(theirs[s]) ? "both sides" : isfinite(ours[s]) ? "PyTorch" : "posbench");
            return;
        }
        worst = fmax(worst, fabs(ours[s] - theirs[s]) / fmax(1.0, fabs(theirs[s])));
    }
    snprintf(out, len, "max %.2g", worst);
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
    const char *objective_name = cfg_str(&e.runs[sel[0]].cfg, "objective.name");
    const objective_kind *kind = objective_find(objective_name);
    if (!kind || !kind->crosscheck)
        die_input("crosscheck: stage %s has objective.name=%s, which the PyTorch trainer does not implement", f.stage, objective_name);
    if (!f.metric) f.metric = kind->crosscheck->metrics[0];
    int known = 0;
    char valid[200] = "";
    for (int k = 0; kind->crosscheck->metrics[k]; k++) {
        const char *m = kind->crosscheck->metrics[k];
        size_t n = strlen(m);
        known |= m[n - 1] == '@' ? !strncmp(f.metric, m, n) : !strcmp(f.metric, m);
        snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s%s", k ? ", " : "", m, m[n - 1] == '@' ? "S" : "");
    }
    if (!known)
        die_input("crosscheck: --metric %s: the runs of stage %s have objective.name=%s (valid: %s)", f.metric, f.stage,
                  objective_name, valid);
    if (!strncmp(f.metric, "top1@", 5)) check_size_metric(&e.runs[sel[0]].cfg, f.metric, f.stage);
    struct stat st;
    if (stat(f.script, &st) != 0) die_input("crosscheck: the PyTorch trainer %s: %s (run from the repository root or give --script)", f.script, strerror(errno));

    // --init torch: the patch projection follows the run's model.embed_init (before that key
    // existed every run had trunc-normal 0.02: normal002).
    const config *c0 = &e.runs[sel[0]].cfg;
    const char *embed_init = cfg_index("model.embed_init") >= 0 ? cfg_str(c0, "model.embed_init") : "normal002";
    char timm_why[512];
    if (!strcmp(f.init, "timm") && !crosscheck_timm_matches(c0, timm_why, sizeof timm_why))
        die_input("crosscheck --init timm: stage %s: %s", f.stage, timm_why);
    if (f.init_torch && strcmp(cfg_str(c0, "model.linear_init"), "timm"))
        die_input("crosscheck --init torch: stage %s has model.linear_init=%s; the PyTorch twin (bench/crosscheck/torch_init.py) "
                  "initialises Linear layers by timm's rule only (valid here: model.linear_init=timm, or --init ours)",
                  f.stage, cfg_str(c0, "model.linear_init"));
    cc_side *pb = xcalloc((size_t)n, sizeof *pb, "crosscheck"), *th = xcalloc((size_t)n, sizeof *th, "crosscheck");
    double *a = xcalloc((size_t)n, sizeof *a, "crosscheck"), *b = xcalloc((size_t)n, sizeof *b, "crosscheck");
    int failed = 0;
    for (int k = 0; k < n; k++) {
        int i = sel[k];
        char base[4096], out_dir[4096], cc_dir[4200], plan[4400], torch_out[4400], torch_log[4500], log[4500], h5[4200];
        experiment_run_path(&e, i, f.out, base, sizeof base);
        snprintf(out_dir, sizeof out_dir, "%s", base);
        *strrchr(out_dir, '/') = '\0';
        snprintf(cc_dir, sizeof cc_dir, "%s/crosscheck", out_dir);
        make_dirs(cc_dir);
        // --init torch / timm have files of their own (<run-id>.init-torch.*, .init-timm.*), and the result file says which
        // init (and patch projection rule) started it: a file of another init is never reused.
        char tag[16] = "";
        if (f.init_torch) snprintf(tag, sizeof tag, ".init-%s", f.init);
        snprintf(plan, sizeof plan, "%s/%s%s.plan", cc_dir, e.runs[i].run_id, tag);
        snprintf(torch_out, sizeof torch_out, "%s/%s%s.torch", cc_dir, e.runs[i].run_id, tag);
        snprintf(torch_log, sizeof torch_log, "%s.log", torch_out);
        snprintf(h5, sizeof h5, "%s.h5", base);
        printf("[%d/%d] %s %s\n", k + 1, n, e.runs[i].run_id, vis(e.runs[i].axes));
        fflush(stdout);
        char why[4600];
        // The plan first, every time: its bytes key the cache, its steps check the result, and a
        // configuration the PyTorch trainer cannot do is refused before training.
        snprintf(log, sizeof log, "%s.log", plan);
        unlink(log);
        int rc = child_train(&e, i, &f, out_dir, plan, log);
        if (rc == EXIT_BAD_INPUT) die_input("crosscheck: run %s: %s", e.runs[i].run_id, last_line(log, why, sizeof why));
        if (rc != 0) die_fail("crosscheck: writing the plan of run %s failed (log %s)", e.runs[i].run_id, log);
        long steps = plan_steps(plan);
        torch_cache_key key;
        if (torch_cache_key_compute(f.script, f.python, plan, &key, why, sizeof why) != 0) die_input("crosscheck: %s", why);
        int need_torch = !cache_usable(torch_out, plan, &f, &key, steps, embed_init);
        snprintf(log, sizeof log, "%s.log", base);
        rc = child_train(&e, i, &f, out_dir, NULL, log);
        if (rc == EXIT_BAD_INPUT) die_input("crosscheck: run %s: %s", e.runs[i].run_id, last_line(log, why, sizeof why));
        if (rc != 0 || read_posbench(h5, f.metric, &pb[k], why, sizeof why) != 0) {
            fprintf(stderr, "posbench: crosscheck: posbench run %s failed (exit %d; log %s)\n", e.runs[i].run_id, rc, vis(log));
            unlink(plan);
            failed = 1;
            continue;
        }
        if (need_torch) { // into <result>.new: a failed or bad run never replaces a finished result
            char fresh[4500];
            snprintf(fresh, sizeof fresh, "%s.new", torch_out);
            unlink(fresh);
            rc = run_torch(&f, plan, fresh, torch_log, embed_init);
            unlink(plan); // large (the data); written again when needed
            if (rc == EXIT_BAD_INPUT)
                die_input("crosscheck: the PyTorch trainer refused run %s: %s", e.runs[i].run_id, last_line(torch_log, why, sizeof why));
            if (rc != 0) {
                fprintf(stderr, "posbench: crosscheck: PyTorch run %s failed (exit %d: %s; log %s)\n", e.runs[i].run_id, rc,
                        vis(last_line(torch_log, why, sizeof why)), vis(torch_log));
                failed = 1;
                continue;
            }
            torch_result fr;
            if (torch_result_read(fresh, f.metric, steps, 0, &fr, why, sizeof why) != 0) // left as FILE.new to look at
                die_input("crosscheck: the PyTorch trainer %s wrote a bad result: %s", f.script, why);
            int keyed = fr.has_key;
            torch_result_free(&fr);
            if (keyed) die_input("crosscheck: %s: the trainer wrote cache_* lines (posbench appends them)", fresh);
            if (torch_result_append_key(fresh, &key, why, sizeof why) != 0) die_fail("crosscheck: %s", why);
            int src = safe_rename_over(fresh, torch_out, why, sizeof why); // never over a link or device (core/safe_file.h)
            if (src != SAFE_OK) die_code(src, "crosscheck: %s", why);
        } else {
            unlink(plan);
        }
        if (read_torch(torch_out, f.metric, steps, &th[k], why, sizeof why) != 0) {
            fprintf(stderr, "posbench: crosscheck: PyTorch run %s failed: %s (log %s)\n", e.runs[i].run_id, vis(why), vis(torch_log));
            failed = 1;
        }
    }
    if (failed) die_fail("crosscheck: a training failed (named above)");

    // The table: one row per side, then the verdict and the parity of the first steps.
    char match[1024] = "";
    for (int m = 0; m < f.nmatch; m++)
        snprintf(match + strlen(match), sizeof match - strlen(match), "%s%s=%s", m ? ", " : "", f.match_key[m], f.match_value[m]);
    printf("\n## Crosscheck: %s, stage %s%s%s\n\n", e.name, vis(f.stage), f.nmatch ? ", " : "", vis(match));
    if (!strcmp(f.init, "timm"))
        printf("Initial weights: each side its own (--init timm): posbench's, and PyTorch's from timm's own "
               "VisionTransformer (its init functions, seeded by the run's seed; bench/crosscheck/torch_timm_init.py).\n\n");
    else if (f.init_torch)
        printf("Initial weights: each side its own (--init torch): posbench's, and PyTorch's by timm's rules from its own "
               "generator (bench/crosscheck/torch_init.py; patch projection model.embed_init=%s).\n\n", embed_init);
    else
        printf("Initial weights: shared (--init ours: PyTorch starts from posbench's).\n\n");
    printf("| trainer | n | %s (%%), mean ± 95%% CI | per seed |\n|---|---|---|---|\n", vis(f.metric));
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
    if (f.init_torch) {
        crosscheck_verdict_unpaired(a, n, b, n, f.margin, verdict, sizeof verdict);
        printf("\nposbench − PyTorch (unpaired: the sides start from different weights; Welch): %s\n", verdict);
    } else {
        crosscheck_verdict(a, b, n, f.margin, verdict, sizeof verdict);
        printf("\nposbench − PyTorch: %s\n", verdict);
    }
    print_init_embedding(pb, th, n);
    if (f.init_torch) print_init_difference(&e, sel, pb, th, n, f.init);
    else print_parity(&e, sel, pb, th, n, f.parity_steps);
    for (int k = 0; k < n; k++) free(pb[k].losses), free(th[k].losses);
    free(pb), free(th), free(a), free(b), free(sel);
    for (int m = 0; m < f.nmatch; m++) free((char *)f.match_key[m]);
    experiment_free(&e);
    return 0;
}
