// tests/test_experiment.c — experiment YAML: every malformed fixture gives its precise
// "file:line:col: message" (written on its first line as "# expect: L:C: message...", an
// optional second line "# scale: S") from experiment_load and exit 2 with the same message
// from `posbench list`; expansion counts ((matrix x zip - exclude) x seeds per stage),
// parents, topological order, run-id stability (key order, spelling) and sensitivity
// (changed values, changed parents), the documented run-id formula, and list's status.
// findings: fixtures in tests/experiments/findings/ load (the list is checked at run time):
// each bad_*.yaml gives its "# expect:" message from exp_tables_write and exit 2 with the same
// message from `posbench run --dry-run`, which creates nothing; good_findings.yaml is parsed
// field by field (findings_parse), copied byte for byte to DIR/experiment.yaml by
// exp_tables_write, and read back from the copy field by field (findings_load).
// Runs from the repository root (fixtures in tests/experiments/).
#include "testing.h"
#include "../bench/results/results.h"
#include "../bench/experiment/exp_tables.h"
#include "../bench/experiment/experiment.h"
#include "../bench/experiment/findings_spec.h"
#include "../bench/run/runner.h"
#include "../core/common.h"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define FIXTURES "tests/experiments"

static experiment E, F; // large: keep them off the stack

static void slurp(const char *path, char *buf, size_t len) {
    buf[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = 0;
    fclose(f);
}

// Runs fn(argc, argv) in a child; returns its exit status, its stdout and stderr in out/err.
static int run_cmd(int (*fn)(int, char **), int argc, char **argv, char *out, size_t outlen, char *err, size_t errlen) {
    char dir[] = "/tmp/posbench-test-exp.XXXXXX", op[64], ep[64];
    if (!mkdtemp(dir)) return -1;
    snprintf(op, sizeof op, "%s/out", dir);
    snprintf(ep, sizeof ep, "%s/err", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(op, O_WRONLY | O_CREAT | O_TRUNC, 0600), e = open(ep, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(o, 1);
        dup2(e, 2);
        int rc = fn(argc, argv);
        fflush(NULL);
        _exit(rc);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    slurp(op, out, outlen);
    slurp(ep, err, errlen);
    unlink(op);
    unlink(ep);
    size_t n = strlen(err); // one line per check: drop the trailing newline
    if (n && err[n - 1] == '\n') err[n - 1] = 0;
    rmdir(dir);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run_list(int argc, char **argv, char *out, size_t outlen, char *err, size_t errlen) {
    return run_cmd(cmd_list, argc, argv, out, outlen, err, errlen);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void test_bad_fixtures(void) {
    DIR *d = opendir(FIXTURES);
    if (!d) {
        test_fail("bad fixtures", "cannot open %s (run from the repository root)", FIXTURES);
        return;
    }
    char *names[256];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 256) {
        size_t len = strlen(de->d_name);
        if (!strncmp(de->d_name, "bad_", 4) && len > 5 && !strcmp(de->d_name + len - 5, ".yaml"))
            names[n++] = xstrdup(de->d_name, "name");
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    test_check("at least 12 malformed experiment files", n >= 12, "%d bad_*.yaml fixtures", n);
    for (int i = 0; i < n; i++) {
        char path[512], text[8192], expect[1024] = "", scale[64] = "", err[4096] = "", want[1600];
        snprintf(path, sizeof path, "%s/%s", FIXTURES, names[i]);
        slurp(path, text, sizeof text);
        sscanf(text, "# expect: %1023[^\n]", expect);
        const char *l2 = strchr(text, '\n');
        if (l2) sscanf(l2 + 1, "# scale: %63s", scale);
        char label[600];
        snprintf(label, sizeof label, "malformed %s", names[i]);
        if (!expect[0]) {
            test_fail(label, "no '# expect: L:C: message' on its first line");
            continue;
        }
        snprintf(want, sizeof want, "%s:%s", path, expect);
        int rc = experiment_load(&E, path, scale[0] ? scale : NULL, err, sizeof err);
        int ok = rc == -1 && !strncmp(err, want, strlen(want));
        experiment_free(&E);
        char out[1 << 14], serr[8192], *argv[4] = {path, "--scale", scale, NULL};
        int code = run_list(scale[0] ? 3 : 1, argv, out, sizeof out, serr, sizeof serr);
        char full[4200];
        snprintf(full, sizeof full, "posbench: error: %s\n", err);
        full[strcspn(full, "\n")] = 0;
        int list_ok = code == 2 && !strcmp(serr, full);
        test_check(label, ok && list_ok, "%s (list: exit %d, %s)%s%s", err, code,
                   list_ok ? "same message" : "stderr differs", ok ? "" : "; expected ", ok ? "" : want);
        free(names[i]);
    }
}

// ---- findings ----------------------------------------------------------------------
#define FINDINGS FIXTURES "/findings"

static void test_bad_findings(void) {
    DIR *d = opendir(FINDINGS);
    if (!d) {
        test_fail("bad findings", "cannot open %s (run from the repository root)", FINDINGS);
        return;
    }
    char *names[64];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 64) {
        size_t len = strlen(de->d_name);
        if (!strncmp(de->d_name, "bad_", 4) && len > 5 && !strcmp(de->d_name + len - 5, ".yaml"))
            names[n++] = xstrdup(de->d_name, "name");
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    test_check("at least 4 malformed findings files", n >= 4, "%d findings/bad_*.yaml fixtures", n);
    char out_dir[] = "/tmp/posbench-test-findings.XXXXXX";
    if (!mkdtemp(out_dir)) {
        test_fail("bad findings", "mkdtemp failed");
        return;
    }
    char run_out[100];
    snprintf(run_out, sizeof run_out, "%s/never", out_dir);
    for (int i = 0; i < n; i++) {
        char path[512], text[8192], expect[1024] = "", err[4096] = "", want[1600], label[600];
        snprintf(path, sizeof path, "%s/%s", FINDINGS, names[i]);
        snprintf(label, sizeof label, "malformed findings %s", names[i]);
        slurp(path, text, sizeof text);
        sscanf(text, "# expect: %1023[^\n]", expect);
        if (!expect[0]) {
            test_fail(label, "no '# expect: L:C: message' on its first line");
            continue;
        }
        snprintf(want, sizeof want, "%s:%s", path, expect);
        int loaded = experiment_load(&E, path, NULL, err, sizeof err) == 0;
        int ok = loaded && exp_tables_write(&E, NULL, err, sizeof err) == -1 && !strncmp(err, want, strlen(want));
        experiment_free(&E);
        char out[1 << 14], serr[8192], full[4200];
        char *argv[] = {path, "--out", run_out, "--dry-run", NULL};
        int code = run_cmd(cmd_run, 4, argv, out, sizeof out, serr, sizeof serr);
        snprintf(full, sizeof full, "posbench: error: %s", err);
        int run_ok = code == 2 && !strcmp(serr, full) && access(run_out, F_OK) != 0;
        test_check(label, ok && run_ok, "%s%s (run --dry-run: exit %d, %s)%s%s", loaded ? "" : "does not load: ", err, code,
                   run_ok ? "same message, nothing created" : serr, ok ? "" : "; expected ", ok ? "" : want);
        free(names[i]);
    }
    rmdir(out_dir);
}

// good_findings.yaml's six findings, field by field (escapes in the YAML undone).
static int good_fields(const findings_list *fl) {
    const finding *f = fl->items;
    int ok = fl->n == 6 && !strcmp(fl->experiment, "findings-test");
    ok = ok && f[0].kind == finding_kind_index("greater") && !strcmp(f[0].claim, "finetuning with a PE beats finetuning without") &&
         !strcmp(f[0].paper, "Table 3:\t84.0 vs 73.4 | abs vs none\n(3 seeds)") && !strcmp(f[0].a.stage, "finetune") &&
         f[0].a.nmatch == 1 && !strcmp(f[0].a.match[0].key, "finetune.pe.kind") && !strcmp(f[0].a.match[0].value, "abs") &&
         !strcmp(f[0].a.metric, "top1") && f[0].b.nmatch == 2 && !strcmp(f[0].b.match[1].key, "data.path") &&
         !strcmp(f[0].b.match[1].value, "/data/a,b=c\\d") && !strcmp(f[0].per, "pretrain.train.lr") && !f[0].x;
    ok = ok && f[1].kind == finding_kind_index("at_least") && f[1].value == 0.5 && !f[1].b.stage && f[1].a.nmatch == 0 && !f[1].per &&
         !strcmp(f[1].paper, "") && f[2].kind == finding_kind_index("at_most") && f[2].value == 0.99;
    ok = ok && f[3].kind == finding_kind_index("peak_inside") && !strcmp(f[3].x, "pretrain.train.lr") && !strcmp(f[3].per, "pe.kind") &&
         f[4].kind == finding_kind_index("increasing") && !strcmp(f[4].x, "train.lr") && f[5].kind == finding_kind_index("decreasing") &&
         !strcmp(f[5].a.metric, "train_time_s");
    return ok;
}

static void test_good_findings(void) {
    char err[4096], dir[] = "/tmp/posbench-test-findings.XXXXXX", copy[100], text[8192], orig[8192];
    if (!mkdtemp(dir)) {
        test_fail("findings", "mkdtemp failed");
        return;
    }
    snprintf(copy, sizeof copy, "%s/experiment.yaml", dir);
    findings_list fl = {0};
    if (experiment_load(&E, FINDINGS "/good_findings.yaml", NULL, err, sizeof err) != 0 || exp_tables_write(&E, dir, err, sizeof err) != 0 ||
        findings_parse(&E, &fl, err, sizeof err) != 0) {
        test_fail("findings: good_findings.yaml checked and written", "%s", err);
        experiment_free(&E);
        return;
    }
    experiment_free(&E);
    test_check("findings parsed from the experiment: every field, escapes undone", good_fields(&fl), "%d findings of %s", fl.n,
               fl.experiment);
    findings_list_free(&fl);
    slurp(copy, text, sizeof text), slurp(FINDINGS "/good_findings.yaml", orig, sizeof orig);
    test_check("experiment.yaml: the experiment file copied byte for byte", !strcmp(text, orig), "%zu bytes", strlen(text));
    int loaded = findings_load(copy, &fl, err, sizeof err) == 0;
    test_check("findings read back from the copy: every field", loaded && good_fields(&fl), "%s", loaded ? fl.experiment : err);
    findings_list_free(&fl);
    unlink(copy);
    rmdir(dir);
}

static int load(experiment *e, const char *file, const char *scale, const char *label) {
    char err[4096], path[512];
    snprintf(path, sizeof path, "%s/%s", FIXTURES, file);
    if (experiment_load(e, path, scale, err, sizeof err) == 0) return 0;
    test_fail(label, "%s", err);
    return -1;
}

static uint64_t fnv(uint64_t h, const char *s) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

// The run id as documented in experiment.h, recomputed here.
static void documented_id(const experiment *e, int i, char out[13]) {
    const exp_run *r = &e->runs[i];
    char line[1024], v[512];
    snprintf(line, sizeof line, "stage=%s\n", r->stage);
    uint64_t h = fnv(1469598103934665603ull, line);
    config defaults;
    config_defaults(&defaults);
    for (int k = 0; k < cfg_key_count; k++) {
        if (!cfg_keys[k].identity) continue;
        char d[512];
        config_value_text(&r->cfg, k, v, sizeof v);
        config_value_text(&defaults, k, d, sizeof d);
        if (!strcmp(cfg_keys[k].key, "model.embed_init")) snprintf(d, sizeof d, "normal002"); // docs/experiments.md: the legacy value
        if (!strcmp(cfg_keys[k].key, "model.trunc_normal")) snprintf(d, sizeof d, "std2");    // likewise
        if (!strcmp(v, d)) continue; // keys at their default (legacy value) are not hashed
        snprintf(line, sizeof line, "%s=%s\n", cfg_keys[k].key, v);
        h = fnv(h, line);
    }
    config_free(&defaults);
    if (r->parent >= 0) {
        snprintf(line, sizeof line, "parent=%s\n", e->runs[r->parent].run_id);
        h = fnv(h, line);
    }
    snprintf(out, 13, "%012llx", (unsigned long long)(h & 0xffffffffffffull));
}

static int find_id(const experiment *e, const char *id) {
    for (int i = 0; i < e->nruns; i++)
        if (!strcmp(e->runs[i].run_id, id)) return i;
    return -1;
}

static void test_sweep(void) {
    if (load(&E, "good_sweep.yaml", NULL, "sweep loads") != 0) return;
    int ok = E.nstages == 1 && !strcmp(E.stage_names[0], "main") && E.nruns == 8 && E.naxes == 2 && E.nseeds == 2;
    test_check("sweep: 2 patch x 2 pe x 2 seeds = 8 runs in stage main", ok, "%d stages, %d axes, %d seeds, %d runs",
               E.nstages, E.naxes, E.nseeds, E.nruns);
    int cfg_ok = 1, distinct = 1;
    for (int i = 0; i < E.nruns; i++) {
        const exp_run *r = &E.runs[i];
        char want[256];
        long patch = i < 4 ? 4 : 7, seed = i % 2;
        const char *pe = (i / 2) % 2 ? "none" : "abs";
        snprintf(want, sizeof want, "model.patch=%ld pe.kind=%s seed=%ld", patch, pe, seed);
        cfg_ok &= !strcmp(r->axes, want) && cfg_int(&r->cfg, "model.patch") == patch && !strcmp(cfg_str(&r->cfg, "pe.kind"), pe) &&
                  cfg_int(&r->cfg, "train.seed") == seed && r->seed == seed && cfg_int(&r->cfg, "model.dim") == 64 &&
                  cfg_int(&r->cfg, "train.epochs") == 2 && r->parent == -1;
        for (int j = 0; j < i; j++) distinct &= strcmp(E.runs[j].run_id, r->run_id) != 0;
    }
    test_check("sweep: run order, axes text and resolved configs", cfg_ok, "first '%s', last '%s'", E.runs[0].axes, E.runs[7].axes);
    test_check("sweep: run ids distinct", distinct, "%s ... %s", E.runs[0].run_id, E.runs[7].run_id);
    char doc[13];
    int formula = 1;
    for (int i = 0; i < E.nruns; i++) {
        documented_id(&E, i, doc);
        formula &= !strcmp(doc, E.runs[i].run_id);
    }
    test_check("sweep: run id = FNV-1a of stage + identity keys (+ parent), as documented", formula, "run 0 %s", E.runs[0].run_id);
    if (load(&F, "good_sweep.yaml", "smoke", "sweep --scale smoke loads") == 0) {
        int changed = F.nruns == 8 && !strcmp(F.scale, "smoke");
        for (int i = 0; i < F.nruns && changed; i++)
            changed &= find_id(&E, F.runs[i].run_id) < 0 && cfg_int(&F.runs[i].cfg, "train.epochs") == 1 &&
                       cfg_int(&F.runs[i].cfg, "data.limit") == 256;
        test_check("sweep: scale smoke overrides base and changes every run id", changed, "%d runs", F.nruns);
        experiment_free(&F);
    }
    if (load(&F, "good_sweep.yaml", "one-seed", "sweep --scale one-seed loads") == 0) {
        int ok1 = F.nruns == 4;
        for (int i = 0; i < F.nruns; i++) ok1 &= F.runs[i].seed == 3 && cfg_int(&F.runs[i].cfg, "train.seed") == 3;
        test_check("sweep: a scale's seeds replace the top-level seeds", ok1, "%d runs, seed %ld", F.nruns, F.runs[0].seed);
        experiment_free(&F);
    }
    test_check("sweep: figures and reference kept", E.figures && E.figures->n == 1 && E.reference && E.reference->kind == YT_SEQ && E.reference->n == 1,
               "figures %d", E.figures ? E.figures->n : -1);
    experiment_free(&E);
}

static void test_stages(void) {
    if (load(&E, "good_stages.yaml", NULL, "stages load") != 0) return;
    int pre = experiment_stage_index(&E, "pretrain"), fine = experiment_stage_index(&E, "finetune");
    test_check("stages: topological order (finetune listed first, init pretrain)",
               pre == 0 && fine == 1 && E.stage_init[1] == 0 && E.stage_init[0] == -1, "order %s, %s", E.stage_names[0], E.stage_names[1]);
    // pretrain: (3 lr x 2 fraction - 1 excluded) x 2 seeds; finetune: (3 x 2 x 2 drop_path x
    // 2 zip - 4 excluded: lr 4e-3 with fraction 0.1 under any drop_path/zip) x 2 seeds.
    test_check("stages: counts (matrix x zip - exclude) x seeds per stage",
               E.stage_runs[0] == (3 * 2 - 1) * 2 && E.stage_runs[1] == (3 * 2 * 2 * 2 - 4) * 2 && E.nruns == 50,
               "pretrain %d (want 10), finetune %d (want 40)", E.stage_runs[0], E.stage_runs[1]);
    int parents = 1, order = 1, excluded = 1, cfg_ok = 1, children[64] = {0};
    for (int i = 0; i < E.nruns; i++) {
        const exp_run *r = &E.runs[i];
        double lr = cfg_float(&r->cfg, "train.lr"), frac = cfg_float(&r->cfg, "data.labeled_fraction");
        if (r->stage_index == pre) {
            order &= r->parent == -1 && i < E.stage_runs[0];
            excluded &= !(lr == 4e-3 && frac == 0.1);
            cfg_ok &= !strcmp(cfg_str(&r->cfg, "pe.kind"), "none") && cfg_float(&r->cfg, "objective.label_smoothing") == 0.0;
            continue;
        }
        order &= r->parent >= 0 && r->parent < i && i >= E.stage_runs[0];
        if (r->parent < 0) continue;
        const exp_run *p = &E.runs[r->parent];
        double plr = cfg_float(&p->cfg, "train.lr");
        excluded &= !(plr == 4e-3 && frac == 0.1);
        parents &= p->stage_index == pre && p->seed == r->seed && cfg_float(&p->cfg, "data.labeled_fraction") == frac;
        for (int a = 0; a < E.naxes; a++)
            if (p->axis_value[a] >= 0) parents &= p->axis_value[a] == r->axis_value[a];
        cfg_ok &= lr == 5e-4 && !strcmp(cfg_str(&r->cfg, "pe.kind"), "abs") && cfg_int(&r->cfg, "model.dim") == 64 &&
                  cfg_float(&r->cfg, "objective.label_smoothing") == 0.1;
        if (r->parent < 64) children[r->parent]++;
    }
    int each4 = 1;
    for (int i = 0; i < E.stage_runs[0]; i++) each4 &= children[i] == 2 * 2;
    test_check("stages: each finetune run's parent has the same pretrain axes and seed", parents, "run 10 parent %d", E.runs[10].parent);
    test_check("stages: every pretrain run is the parent of drop_path x zip = 4 finetune runs", each4, "run 0 has %d", children[0]);
    test_check("stages: parents come before children; stages grouped", order, "pretrain runs 0-%d", E.stage_runs[0] - 1);
    test_check("stages: excluded combination absent from both stages", excluded, "train.lr 4e-3 with data.labeled_fraction 0.1");
    test_check("stages: stage bodies resolved over base", cfg_ok, "pe.kind, train.lr, objective.label_smoothing");

    if (load(&F, "good_stages_reordered.yaml", NULL, "reordered stages load") == 0) {
        int same = F.nruns == E.nruns;
        for (int i = 0; i < F.nruns && same; i++) {
            int j = find_id(&E, F.runs[i].run_id);
            same &= j >= 0 && E.runs[j].stage_index == F.runs[i].stage_index &&
                    (F.runs[i].parent < 0) == (E.runs[j].parent < 0) &&
                    (F.runs[i].parent < 0 || !strcmp(F.runs[F.runs[i].parent].run_id, E.runs[E.runs[j].parent].run_id));
        }
        test_check("run ids: key order, nesting and number spelling do not change them", same, "%d vs %d runs", F.nruns, E.nruns);
        experiment_free(&F);
    }
    if (load(&F, "good_stages.yaml", NULL, "stages load twice") == 0) {
        int same = F.nruns == E.nruns;
        for (int i = 0; i < F.nruns && same; i++) same &= !strcmp(F.runs[i].run_id, E.runs[i].run_id);
        test_check("run ids: loading twice gives the same ids", same, "%s", E.runs[0].run_id);
        experiment_free(&F);
    }
    if (load(&F, "good_stages.yaml", "ftlr", "stages --scale ftlr loads") == 0) {
        int ok = F.nruns == E.nruns;
        for (int i = 0; i < F.nruns && ok; i++)
            ok &= F.runs[i].stage_index == pre ? !strcmp(F.runs[i].run_id, E.runs[i].run_id) : strcmp(F.runs[i].run_id, E.runs[i].run_id) != 0;
        test_check("run ids: a finetune-only change changes finetune ids only", ok, "scale ftlr: finetune.train.lr 6e-4");
        experiment_free(&F);
    }
    if (load(&F, "good_stages.yaml", "ptls", "stages --scale ptls loads") == 0) {
        int ok = F.nruns == E.nruns;
        for (int i = 0; i < F.nruns && ok; i++) ok &= find_id(&E, F.runs[i].run_id) < 0;
        test_check("run ids: a pretrain-only change changes every id", ok, "scale ptls: pretrain label_smoothing; finetune via its parent id");
        experiment_free(&F);
    }
    if (load(&F, "good_stages.yaml", "smoke", "stages --scale smoke loads") == 0) {
        test_check("stages: scale smoke (seeds [0]) halves the runs", F.stage_runs[0] == 5 && F.stage_runs[1] == 20,
                   "%d + %d", F.stage_runs[0], F.stage_runs[1]);
        experiment_free(&F);
    }
    char doc[13];
    int formula = 1;
    for (int i = 0; i < E.nruns; i++) {
        documented_id(&E, i, doc);
        formula &= !strcmp(doc, E.runs[i].run_id);
    }
    test_check("stages: run ids follow the documented formula", formula, "parent id included, e.g. %s", E.runs[E.nruns - 1].run_id);
    experiment_free(&E);
}

static void touch(const char *path) {
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
}

static void test_list(void) {
    char dir[] = "/tmp/posbench-test-list.XXXXXX", sub[512], p[1024], out[1 << 15], err[4096];
    if (!mkdtemp(dir) || load(&E, "good_sweep.yaml", NULL, "list: sweep loads") != 0) return;
    snprintf(sub, sizeof sub, "%s/sweep", dir);
    mkdir(sub, 0700);
    snprintf(sub, sizeof sub, "%s/sweep/main", dir);
    mkdir(sub, 0700);
    // done: an HDF5 file whose root status says so, with a sound /final; an empty .h5 is damaged, never done
    snprintf(p, sizeof p, "%s/%s.h5", sub, E.runs[0].run_id);
    results *res = results_create(p);
    results_attr_str(res, "/", "status", "done");
    results_attr_double(res, "/final", "top1", 0.5);
    results_close(res);
    snprintf(p, sizeof p, "%s/%s.h5.partial", sub, E.runs[1].run_id), touch(p);
    snprintf(p, sizeof p, "%s/%s.ckpt", sub, E.runs[2].run_id), touch(p);
    snprintf(p, sizeof p, "%s/%s.h5", sub, E.runs[3].run_id), touch(p);
    const char *s0 = experiment_run_status(&E, 0, dir), *s1 = experiment_run_status(&E, 1, dir),
               *s2 = experiment_run_status(&E, 2, dir), *s3 = experiment_run_status(&E, 3, dir),
               *s4 = experiment_run_status(&E, 4, dir);
    test_check("list: status done / partial (.h5.partial) / partial (.ckpt) / damaged (empty .h5) / pending",
               !strcmp(s0, "done") && !strcmp(s1, "partial") && !strcmp(s2, "partial") && !strcmp(s3, "damaged") &&
                   !strcmp(s4, "pending"),
               "%s %s %s %s %s", s0, s1, s2, s3, s4);
    char *argv[] = {FIXTURES "/good_sweep.yaml", "--out", dir, NULL};
    int rc = run_list(3, argv, out, sizeof out, err, sizeof err);
    char row[256];
    snprintf(row, sizeof row, "%s  main   -             done     model.patch=4 pe.kind=abs seed=0\n", E.runs[0].run_id);
    test_check("list: table rows and per-stage count", rc == 0 && strstr(out, row) && strstr(out, "main: 8 runs (1 done, 1 damaged, 2 partial, 4 pending)"),
               "exit %d; '%.40s'", rc, strstr(out, "main:") ? strstr(out, "main:") : out);
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s%s", sub, E.runs[i].run_id, i == 0 || i == 3 ? ".h5" : i == 1 ? ".h5.partial" : ".ckpt");
        unlink(p);
    }
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/sweep", dir);
    rmdir(sub);
    rmdir(dir);
    experiment_free(&E);

    char *stages[] = {FIXTURES "/good_stages.yaml", NULL};
    rc = run_list(1, stages, out, sizeof out, err, sizeof err);
    test_check("list: stages show init run ids and counts", rc == 0 && strstr(out, "finetune: 40 runs, init from pretrain") &&
               strstr(out, "total: 50 runs"), "exit %d %s", rc, err);
    char *help[] = {"--help", NULL}, *none[] = {NULL}, *missing[] = {FIXTURES "/no_such.yaml", NULL},
         *flag[] = {FIXTURES "/good_sweep.yaml", "--sclae", "x", NULL};
    rc = run_list(1, help, out, sizeof out, err, sizeof err);
    test_check("list --help exits 0", rc == 0 && strstr(out, "usage: posbench list"), "exit %d", rc);
    rc = run_list(0, none, out, sizeof out, err, sizeof err);
    test_check("list without a file exits 2", rc == 2 && strstr(err, "needs an experiment file"), "exit %d: %s", rc, err);
    rc = run_list(1, missing, out, sizeof out, err, sizeof err);
    test_check("list of a missing file exits 2", rc == 2 && strstr(err, "no_such.yaml: cannot open"), "exit %d: %s", rc, err);
    rc = run_list(3, flag, out, sizeof out, err, sizeof err);
    test_check("list with an unknown flag exits 2, with the flag it is closest to",
               rc == 2 && strstr(err, "unknown flag '--sclae' (did you mean '--scale'?)"), "exit %d: %s", rc, err);
}

static void test_misc(void) {
    if (load(&E, "good_idx.yaml", NULL, "idx data loads") == 0) {
        test_check("data.name=idx: patch not checked against 28 px", E.nruns == 1 && cfg_int(&E.runs[0].cfg, "model.patch") == 5 &&
                   !cfg_bool(&E.runs[0].cfg, "model.cls"), "%d runs", E.nruns);
        experiment_free(&E);
    }
    char err[4096];
    const char *ex = "bench/experiments/example-vit-sweep.yaml";
    int rc = experiment_load(&E, ex, NULL, err, sizeof err);
    int n = E.nruns;
    experiment_free(&E);
    int rc2 = experiment_load(&E, ex, "smoke", err, sizeof err);
    test_check("example-vit-sweep.yaml loads (and with --scale smoke): 8 runs", rc == 0 && rc2 == 0 && n == 8 && E.nruns == 8,
               "%s", rc || rc2 ? err : "ok");
    experiment_free(&E);
    // A scale's matrix: replaces the values of an axis (mp3-speech's Table 6 pretraining lengths).
    const char *sp = "bench/experiments/mp3-speech.yaml";
    long want[3][5] = {{50, 150, 450}, {4, 8}, {1000, 5000, 10000, 25000, 50000}};
    const char *scales[3] = {NULL, "smoke", "paper"};
    int nwant[3] = {3, 2, 5};
    for (int k = 0; k < 3; k++) {
        rc = experiment_load(&E, sp, scales[k], err, sizeof err);
        long got[16];
        int ng = 0;
        for (int i = 0; rc == 0 && i < E.nruns; i++)
            if (!strcmp(E.runs[i].stage, "pt_updates") && ng < 16)
                got[ng++] = cfg_int(&E.runs[i].cfg, "train.steps");
        int same = ng == nwant[k] * (k == 0 ? 3 : k == 1 ? 1 : 3);
        for (int i = 0; same && i < ng; i++) same = got[i] == want[k][i / (k == 1 ? 1 : 3)];
        char label[160];
        snprintf(label, sizeof label, "scale matrix: mp3-speech pt_updates.train.steps at scale %s", scales[k] ? scales[k] : "(none)");
        test_check(label, rc == 0 && same, "%s; %d runs, first %ld", rc ? err : "loaded", ng, ng ? got[0] : -1L);
        experiment_free(&E);
    }
}

int main(void) {
    test_bad_fixtures();
    test_bad_findings();
    test_good_findings();
    test_sweep();
    test_stages();
    test_list();
    test_misc();
    return test_exit_code();
}
