// tests/test_regress.c — the regression benchmarks' file and comparison (bench/perf/regress.h)
// on synthetic result files, so nothing here depends on this machine's speed:
//   - a file written by bench_file_write reads back exactly (%.17g round trip), facts included;
//   - a result compared with itself: 0 regressions; an injected regression of each kind is
//     found and named: step_x_sgemm samples 30% slower (time), peak memory +25% (memory), a
//     probe's loss changed in the last digit on the same machine (exact) and by 0.05 on
//     another (tolerance 0.02); changes inside the thresholds are not (time 3% slower with
//     every sample shifted, probe 0.01 off on another machine), and a 26% slower geometric
//     mean that is not significant (two samples 100x) is "noisy", not a regression;
//   - a faster step and less memory are not regressions; a metric missing from an old
//     baseline is "new", one missing now "not measured", neither fails;
//   - `posbench bench --compare BASE --result NOW`: exit 0 / 1 naming the metric; malformed or
//     missing baseline files exit 2 naming FILE:LINE and what is wrong, among them (issue 29
//     item 7) a file cut mid-line, a time or memory sample <= 0, and a comparison where no
//     metric is measured in both files (a header-only result); `--save` with a flag for its
//     file or in a missing directory exits 2 before measuring.
//   - `posbench bench --history DIR`: files ordered by date, each metric's geometric mean (time)
//     or mean with its t CI against hand computations, a metric missing from a file as a gap,
//     history.md's tables, a PNG and SVG per metric; bad directories and files exit 2.
// Runs from the repository root (build/posbench); files in a temporary directory, removed
// unless a check failed or POSBENCH_TEST_KEEP is set.
#include "testing.h"
#include "../bench/perf/regress.h"
#include <math.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[64];

// A baseline-like result: 40 step samples around 10 with a fixed ±2% pattern, memory, probes.
static void make_result(bench_file *f, double step_scale, double mem, double loss, const char *cpu, int with_new) {
    memset(f, 0, sizeof *f);
    bench_file_fact(f, "cpu_model", cpu);
    bench_file_fact(f, "threads", "2");
    bench_file_fact(f, "openblas", "OpenBLAS 0.3.21 test");
    bench_file_fact(f, "commit", "abc");
    double s[40];
    for (int i = 0; i < 40; i++) s[i] = step_scale * 10.0 * (1.0 + 0.02 * sin(1.7 * i));
    bench_file_add(f, "cfg/step_x_sgemm", "time", 40, s);
    bench_file_add(f, "cfg/arena_mib", "memory", 1, &mem);
    bench_file_add(f, "cfg/step_ms", "info", 40, s);
    bench_file_add(f, "probe/sup/loss", "probe", 1, &loss);
    double top1 = 0.482;
    bench_file_add(f, "probe/sup/top1", "probe", 1, &top1);
    if (with_new) bench_file_add(f, "probe/mp3/loss", "probe", 1, &loss);
}

static regress_options defaults(void) {
    regress_options o = {.rounds = 1, .iters = 1, .time_threshold = 0.05, .memory_threshold = 0.10};
    return o;
}

// Compares now against base; returns the regression count, names and the printed table.
static int compare(const bench_file *base, const bench_file *now, char *names, size_t len, char **table) {
    regress_options o = defaults();
    size_t tl = 0;
    FILE *m = open_memstream(table, &tl);
    int n = bench_compare(base, now, &o, m, names, len);
    fclose(m);
    return n;
}

static void test_roundtrip(void) {
    bench_file a, b;
    char path[128], err[512];
    make_result(&a, 1.0, 196.5, 1.7138854075670242, "CPU X", 0);
    snprintf(path, sizeof path, "%s/a.tsv", g_dir);
    int w = bench_file_write(&a, path, err, sizeof err), r = w == 0 ? bench_file_read(path, &b, err, sizeof err) : -1;
    int same = r == 0 && b.n == a.n && b.nfacts == a.nfacts;
    for (int i = 0; same && i < a.n; i++) {
        same = !strcmp(a.m[i].name, b.m[i].name) && !strcmp(a.m[i].kind, b.m[i].kind) && a.m[i].n == b.m[i].n;
        for (int k = 0; same && k < a.m[i].n; k++) same = a.m[i].v[k] == b.m[i].v[k];
    }
    same = same && !strcmp(bench_file_fact_get(&b, "cpu_model"), "CPU X");
    test_check("results file: written and read back exactly", same, "write %d read %d: %s", w, r, r ? err : "");
    bench_file_free(&a);
    if (r == 0) bench_file_free(&b);
}

static void expect(const char *name, const bench_file *base, const bench_file *now, int want_n, const char *want_names,
                   const char *want_text) {
    char names[1024], *table = NULL;
    int n = compare(base, now, names, sizeof names, &table);
    int ok = n == want_n && !strcmp(names, want_names) && (!want_text || strstr(table, want_text));
    test_check(name, ok, "%d regressions [%s], want %d [%s]%s%s", n, names, want_n, want_names, ok ? "" : "; table:\n", ok ? "" : table);
    free(table);
}

// bench_compared_count: what a comparison judges (same name and kind, not info).
static void test_compared_count(void) {
    bench_file base, empty = {0}, info = {0};
    make_result(&base, 1.0, 200, 1.7, "CPU X", 0);
    double v[2] = {1, 2};
    bench_file_add(&info, "cfg/step_ms", "info", 2, v);
    int all = bench_compared_count(&base, &base), none = bench_compared_count(&base, &empty), info_only = bench_compared_count(&base, &info);
    test_check("compare: metrics judged in both files (4 of 5 are not info; none against an empty or info-only file)",
               all == 4 && none == 0 && info_only == 0, "%d, %d, %d", all, none, info_only);
    bench_file_free(&base), bench_file_free(&info);
}

static void test_compare(void) {
    bench_file base, now;
    make_result(&base, 1.0, 200, 1.7138854075670242, "CPU X", 0);
    make_result(&now, 1.0, 200, 1.7138854075670242, "CPU X", 0);
    expect("compare: a result against itself has no regression", &base, &now, 0, "", "cfg/step_x_sgemm");
    bench_file_free(&now);

    make_result(&now, 1.30, 200, 1.7138854075670242, "CPU X", 0);
    expect("compare: a 30% slower step is a regression named by its metric", &base, &now, 1, "cfg/step_x_sgemm", "slower");
    bench_file_free(&now);
    make_result(&now, 1.03, 200, 1.7138854075670242, "CPU X", 0);
    expect("compare: 3% slower (under the 5% threshold, significant) is not", &base, &now, 0, "", NULL);
    bench_file_free(&now);
    make_result(&now, 0.7, 200, 1.7138854075670242, "CPU X", 0);
    expect("compare: a faster step is not a regression", &base, &now, 0, "", "faster");
    bench_file_free(&now);
    make_result(&now, 1.0, 200, 1.7138854075670242, "CPU X", 0);
    now.m[0].v[0] *= 100, now.m[0].v[1] *= 100; // geometric mean 26% up from two wild samples: p about 0.08
    expect("compare: a large but insignificant change is noisy, not a regression", &base, &now, 0, "", "noisy");
    bench_file_free(&now);

    make_result(&now, 1.0, 250, 1.7138854075670242, "CPU X", 0);
    expect("compare: 25% more peak memory is a regression", &base, &now, 1, "cfg/arena_mib", "more");
    bench_file_free(&now);
    make_result(&now, 1.0, 150, 1.7138854075670242, "CPU X", 0);
    expect("compare: less memory is not", &base, &now, 0, "", "less");
    bench_file_free(&now);

    make_result(&now, 1.0, 200, nextafter(1.7138854075670242, 2.0), "CPU X", 0);
    expect("compare: a probe off in the last bit on the same machine is a regression", &base, &now, 1, "probe/sup/loss", "must be exact");
    bench_file_free(&now);
    make_result(&now, 1.0, 200, 1.7138854075670242 + 0.01, "CPU Y", 0);
    expect("compare: a probe 0.01 off on another CPU is within the tolerance", &base, &now, 0, "", "within");
    bench_file_free(&now);
    make_result(&now, 1.0, 200, 1.7138854075670242 - 0.05, "CPU Y", 0);
    expect("compare: a probe 0.05 off on another CPU is a regression (better or worse)", &base, &now, 1, "probe/sup/loss", "changed");
    bench_file_free(&now);

    make_result(&now, 1.3, 250, 1.0, "CPU X", 1);
    expect("compare: every regression named, in file order", &base, &now, 3, "cfg/step_x_sgemm, cfg/arena_mib, probe/sup/loss", NULL);
    bench_file_free(&now);
    make_result(&now, 1.0, 200, 1.7138854075670242, "CPU X", 1);
    expect("compare: a metric the old baseline lacks is new, not a failure", &base, &now, 0, "", "new (not in the baseline)");
    expect("compare: a metric missing now is reported, not a failure", &now, &base, 0, "", "not measured now");
    bench_file_fact(&base, "probes", "skipped"); // --no-probes: the missing probe was not run
    expect("compare: a probe missing from a --no-probes run is not a failure", &now, &base, 0, "", "not measured now");
    snprintf(base.facts[base.nfacts - 1].value, sizeof base.facts[0].value, "run"); // the probes ran
    expect("compare: a probe that ran and gave no finite value is a regression", &now, &base, 1, "probe/mp3/loss", "failed now");
    base.nfacts--;
    bench_file_free(&now);
    bench_file_free(&base);

    // --confirm: a time or memory regression not found again by a re-measurement is dropped
    // (whole names only); the probes, which the re-measurement does not run, stay.
    bench_file retry = {0};
    double two[2] = {1, 2};
    bench_file_add(&retry, "cfg/step_x_sgemm", "time", 2, two);
    bench_file_add(&retry, "cfg/arena_mib", "memory", 1, two);
    char names[256] = "cfg/step_x_sgemm, cfg/arena_mib, probe/sup/loss";
    int left = bench_keep_confirmed(names, sizeof names, &retry, "cfg/arena_mib, cfg/step_x_sgemm_other");
    test_check("compare --confirm: an unconfirmed step dropped, confirmed memory and the probe kept", left == 2 &&
               !strcmp(names, "cfg/arena_mib, probe/sup/loss"), "%d left: %s", left, names);
    bench_file_free(&retry);
}

// Runs posbench with args; returns its exit status, output in *out.
static int run_cli(const char *args, char *out, size_t len) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "build/posbench bench %s 2>&1", args);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, len - 1, p) : 0;
    out[n] = '\0';
    int rc = p ? pclose(p) : -1;
    return rc >= 0 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void write_text(const char *name, const char *text) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

static void test_cli(void) {
    if (access("build/posbench", X_OK) != 0) {
        test_skip("posbench bench --compare", "build/posbench not built (run from the repository root after make)");
        return;
    }
    bench_file base, slow;
    char path[128], err[512], out[16384], args[512];
    make_result(&base, 1.0, 200, 1.7, "CPU X", 0);
    make_result(&slow, 1.3, 200, 1.7, "CPU X", 0);
    snprintf(path, sizeof path, "%s/base.tsv", g_dir);
    bench_file_write(&base, path, err, sizeof err);
    snprintf(path, sizeof path, "%s/slow.tsv", g_dir);
    bench_file_write(&slow, path, err, sizeof err);
    bench_file_free(&base), bench_file_free(&slow);
    snprintf(args, sizeof args, "--compare %s/base.tsv --result %s/base.tsv", g_dir, g_dir);
    int rc = run_cli(args, out, sizeof out);
    test_check("bench --compare: the same file exits 0", rc == 0 && strstr(out, "no regression"), "exit %d", rc);
    snprintf(args, sizeof args, "--compare %s/base.tsv --result %s/slow.tsv", g_dir, g_dir);
    rc = run_cli(args, out, sizeof out);
    test_check("bench --compare: an injected slower result exits 1 naming the step", rc == 1 &&
               strstr(out, "REGRESSION: 1 metric regressed: cfg/step_x_sgemm"), "exit %d: %.*s", rc, (int)strcspn(strstr(out, "REGRESSION:") ? strstr(out, "REGRESSION:") : out, "\n"), strstr(out, "REGRESSION:") ? strstr(out, "REGRESSION:") : out);
    snprintf(args, sizeof args, "--compare %s/slow.tsv --result %s/base.tsv --time-threshold 0.5", g_dir, g_dir);
    rc = run_cli(args, out, sizeof out);
    test_check("bench --compare: --time-threshold", rc == 0, "exit %d", rc);
    // A real measurement against a baseline step 10^4 times faster: slower in the measurement
    // and in its confirmation, so still a regression (a few seconds: 2 rounds of 2 steps, twice).
    write_text("fast.tsv", "posbench-bench\t1\nmetric\tvit-d64-L2-p4-28px-ci/step_x_sgemm\ttime\t0.001\t0.0011\t0.0012\n");
    snprintf(args, sizeof args, "--config vit-d64-L2-p4-28px-ci --rounds 2 --iters 2 --no-probes --threads 1 --confirm 1 --compare %s/fast.tsv", g_dir);
    rc = run_cli(args, out, sizeof out);
    test_check("bench --compare --confirm 1: a regression seen again in the confirmation exits 1", rc == 1 &&
               strstr(out, "confirmation 1 of 1: measuring again") && !strstr(out, "not confirmed") &&
               strstr(out, "REGRESSION: 1 metric regressed: vit-d64-L2-p4-28px-ci/step_x_sgemm"), "exit %d: %.600s", rc,
               strstr(out, "confirmation") ? strstr(out, "confirmation") : out);

    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"", "bad.tsv:0: empty file"},
        {"posbench-bench\t2\n", "bad.tsv:1: not a posbench bench results file"},
        {"posbench-bench\t1\nmetric\ta/b\ttime\t1\n", "bad.tsv:2: metric a/b: a time metric needs at least 2 samples"},
        {"posbench-bench\t1\n# c\n\nmetric\ta\tspeed\t1\n", "bad.tsv:4: metric a: kind 'speed' is not valid (valid: time, memory, probe, info)"},
        {"posbench-bench\t1\nmetric\ta\tmemory\t12x\n", "bad.tsv:2: metric a: value 1 '12x' is not a finite number"},
        {"posbench-bench\t1\nmetric\ta\tmemory\tnan\n", "bad.tsv:2: metric a: value 1 'nan' is not a finite number"},
        {"posbench-bench\t1\nmetric\ta\tmemory\t1\nmetric\ta\tmemory\t2\n", "bad.tsv:3: metric a appears twice"},
        {"posbench-bench\t1\nmachine\tcpu\n", "bad.tsv:2: a machine line is"},
        {"posbench-bench\t1\nmetrics\ta\tmemory\t1\n", "bad.tsv:2: unknown line type 'metrics'"},
        {"posbench-bench\t1\nmetric\ta\tmemory\n", "bad.tsv:2: a metric line is"},
        // issue 29 item 7: a file cut mid-line, non-positive times and memory sizes
        {"posbench-bench\t1\nmetric\tcfg/arena_mib\tmemory\t200\nmetric\tcfg/step_x_sgemm\ttime\t10\t1",
         "bad.tsv:3: the last line has no end (the file was cut"},
        {"posbench-bench", "bad.tsv:1: the last line has no end"},
        {"posbench-bench\t1\nmetric\ta\ttime\t1\t-1\n", "bad.tsv:2: metric a: time sample 2 is -1 (a time must be > 0)"},
        {"posbench-bench\t1\nmetric\ta\ttime\t0\t1\n", "bad.tsv:2: metric a: time sample 1 is 0 (a time must be > 0)"},
        {"posbench-bench\t1\nmetric\ta\tmemory\t-5\n", "bad.tsv:2: metric a: memory sample 1 is -5 (a memory size must be > 0)"},
    };
    int wrong = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_text("bad.tsv", bad[i].text);
        snprintf(args, sizeof args, "--compare %s/bad.tsv --result %s/base.tsv", g_dir, g_dir);
        rc = run_cli(args, out, sizeof out);
        if (rc != 2 || !strstr(out, bad[i].needle)) wrong++, test_fail("bench --compare malformed baseline", "case %zu: exit %d: %s", i, rc, out);
        snprintf(args, sizeof args, "--compare %s/base.tsv --result %s/bad.tsv", g_dir, g_dir);
        rc = run_cli(args, out, sizeof out);
        if (rc != 2 || !strstr(out, bad[i].needle)) wrong++, test_fail("bench --compare malformed result", "case %zu: exit %d: %s", i, rc, out);
    }
    test_check("bench --compare: malformed baseline and result files exit 2 naming FILE:LINE", wrong == 0, "%zu files, %d wrong",
               sizeof bad / sizeof bad[0], wrong);
    // Nothing measured in both files is not "no regression" (issue 29 item 7): a result holding
    // only its header, a baseline of info metrics only, and results with no metric in common.
    write_text("header.tsv", "posbench-bench\t1\n# written by posbench bench --save\nmachine\tcpu_model\tX\n");
    write_text("info.tsv", "posbench-bench\t1\nmetric\tcfg/step_ms\tinfo\t1\t2\n");
    write_text("other.tsv", "posbench-bench\t1\nmetric\tother/arena_mib\tmemory\t3\n");
    static const struct {
        const char *base, *result, *needle;
    } none[] = {
        {"base.tsv", "header.tsv", "nothing compared: no time, memory or probe metric is in both the baseline"},
        {"base.tsv", "other.tsv", "and the result "},
        {"header.tsv", "base.tsv", "header.tsv: no time, memory or probe metric in it (0 metrics)"},
        {"info.tsv", "base.tsv", "info.tsv: no time, memory or probe metric in it (1 metric)"},
    };
    wrong = 0;
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        snprintf(args, sizeof args, "--compare %s/%s --result %s/%s", g_dir, none[i].base, g_dir, none[i].result);
        rc = run_cli(args, out, sizeof out);
        if (rc != 2 || !strstr(out, none[i].needle) || !strstr(out, none[i].base) || strstr(out, "no regression"))
            wrong++, test_fail("bench --compare with nothing in common", "case %zu: exit %d: %s", i, rc, out);
    }
    test_check("bench --compare: nothing measured in both files (a header-only result, info only, no common metric) exits 2 "
               "naming the file", wrong == 0, "%zu cases, %d wrong", sizeof none / sizeof none[0], wrong);
    // --save: a flag where the file should be, a missing directory, a directory: exit 2 before
    // anything is measured (no "posbench bench:" measuring line, no step timings).
    static const struct {
        const char *args, *needle;
    } save[] = {
        {"--save --threads 1 --no-probes", "--save needs a file"},
        {"--save", "--save needs a file"},
        {"--save %s/nodir/x.tsv --no-probes --rounds 1 --iters 1", "nodir: No such file or directory (create it first; nothing was measured)"},
        {"--save %s --no-probes --rounds 1 --iters 1", "is a directory, not a regular file"},
        {"--save %s/base.tsv/x.tsv --no-probes --rounds 1 --iters 1", "base.tsv is not a directory"},
    };
    wrong = 0;
    for (size_t i = 0; i < sizeof save / sizeof save[0]; i++) {
        snprintf(args, sizeof args, save[i].args, g_dir);
        rc = run_cli(args, out, sizeof out);
        if (rc != 2 || !strstr(out, save[i].needle) || strstr(out, "posbench bench:") || strstr(out, "median"))
            wrong++, test_fail("bench --save checked before measuring", "case %zu (%s): exit %d: %s", i, args, rc, out);
    }
    test_check("bench --save: a flag for the file, a missing directory, a directory exit 2 before measuring", wrong == 0,
               "%zu cases, %d wrong", sizeof save / sizeof save[0], wrong);
    snprintf(args, sizeof args, "--compare %s/none.tsv --result %s/base.tsv", g_dir, g_dir);
    rc = run_cli(args, out, sizeof out);
    test_check("bench --compare: a missing baseline exits 2 naming it", rc == 2 && strstr(out, "none.tsv: cannot open"), "exit %d: %.*s", rc, (int)strcspn(out, "\n"), out);
    snprintf(args, sizeof args, "--result %s/base.tsv", g_dir);
    rc = run_cli(args, out, sizeof out);
    test_check("bench --result without --compare exits 2", rc == 2 && strstr(out, "--result FILE needs --compare"), "exit %d: %s", rc, out);
}

// Reads a whole small file into buf ("" when missing).
static void read_text(const char *path, char *buf, size_t len) {
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
}

// posbench bench --history: three files written out of date order, one with an extra metric,
// a non-.tsv file beside them; values and CIs checked against hand computations.
static void test_history(void) {
    if (access("build/posbench", X_OK) != 0) {
        test_skip("posbench bench --history", "build/posbench not built (run from the repository root after make)");
        return;
    }
    char hdir[128], path[256], err[512], out[16384], args[512];
    snprintf(hdir, sizeof hdir, "%s/hist", g_dir);
    if (mkdir(hdir, 0777) != 0) {
        test_fail("bench --history", "cannot create %s", hdir);
        return;
    }
    static const struct {
        const char *file, *commit, *date;
        double scale;
    } files[3] = {{"a.tsv", "c3", "2026-11-03T00:00:00Z", 1.2}, {"b.tsv", "c1", "2026-11-01T00:00:00Z", 1.0},
                  {"c.tsv", "c2", "2026-11-02T00:00:00Z", 1.1}};
    for (int i = 0; i < 3; i++) {
        bench_file f;
        make_result(&f, files[i].scale, 200 + 10 * i, 1.7, "CPU X", i == 2);
        f.nfacts = 0;
        bench_file_fact(&f, "commit", files[i].commit);
        bench_file_fact(&f, "date", files[i].date);
        snprintf(path, sizeof path, "%s/%s", hdir, files[i].file);
        if (bench_file_write(&f, path, err, sizeof err) != 0) test_fail("bench --history", "%s", err);
        bench_file_free(&f);
    }
    snprintf(path, sizeof path, "%s/notes.txt", hdir);
    FILE *t = fopen(path, "w");
    if (t) fputs("not a results file\n", t), fclose(t);
    snprintf(args, sizeof args, "--history %s --out %s/h", hdir, g_dir);
    int rc = run_cli(args, out, sizeof out);
    test_check("bench --history: exit 0 on three files (a .txt beside them ignored)", rc == 0 && strstr(out, "history of 3 files"),
               "exit %d: %s", rc, out);

    // The step's rows: oldest first (c1, c2, c3), value = the geometric mean of the samples,
    // CI = exp(mean log ± t_{0.975,39} s/sqrt(40)); t_{0.975,39} = 2.0226909 (tables).
    char dat[4096];
    snprintf(path, sizeof path, "%s/h/figures/data/cfg_step_x_sgemm.dat", g_dir);
    read_text(path, dat, sizeof dat);
    double scales[3] = {1.0, 1.1, 1.2};
    int good = 0;
    const char *line = strchr(dat, '\n');
    for (int i = 0; i < 3 && line; i++, line = strchr(line + 1, '\n')) {
        int idx;
        double v, lo, hi;
        char label[64];
        if (sscanf(line + 1, "%d %lf %lf %lf \"%63[^\"]\"", &idx, &v, &lo, &hi, label) != 5) break;
        double sl = 0, sl2 = 0;
        for (int k = 0; k < 40; k++) {
            double x = log(scales[i] * 10.0 * (1.0 + 0.02 * sin(1.7 * k)));
            sl += x, sl2 += x * x;
        }
        double m = sl / 40, sd = sqrt((sl2 - 40 * m * m) / 39), half = 2.0226909 * sd / sqrt(40.0);
        char want[16];
        snprintf(want, sizeof want, "%d c%d", i + 1, i + 1);
        good += idx == i + 1 && !strcmp(label, want) && fabs(v - exp(m)) < 1e-12 * exp(m) && fabs(lo - exp(m - half)) < 1e-6 * exp(m) &&
                fabs(hi - exp(m + half)) < 1e-6 * exp(m);
    }
    test_check("bench --history: a time metric's rows by date, geometric mean and t CI on the logs", good == 3,
               "%d of 3 rows right:\n%s", good, dat);
    snprintf(path, sizeof path, "%s/h/figures/data/probe_mp3_loss.dat", g_dir);
    read_text(path, dat, sizeof dat);
    int rows = 0;
    for (const char *q = dat; (q = strchr(q, '\n')); q++) rows++;
    test_check("bench --history: a metric in one file only has one row (at its file's index)", rows == 2 && strstr(dat, "\n2 1.7 1.7 1.7 \"2 c2\""),
               "%d lines:\n%s", rows, dat);
    char md[65536];
    snprintf(path, sizeof path, "%s/h/history.md", g_dir);
    read_text(path, md, sizeof md);
    const char *p1 = strstr(md, "| 1 | b.tsv | c1 |"), *p2 = strstr(md, "| 2 | c.tsv | c2 |"), *p3 = strstr(md, "| 3 | a.tsv | c3 |");
    test_check("bench --history: history.md lists the files by date with a table per metric",
               p1 && p2 && p3 && p1 < p2 && p2 < p3 && strstr(md, "## cfg/step_x_sgemm (time)") &&
                   strstr(md, "| 1 | c1 | (not measured) |") && strstr(md, "| 2 | c2 | 220 |  | 1 | 1.0476 |") &&
                   strstr(md, "| 3 | c3 | 200 |  | 1 | 0.9091 |"),
               "%.*s", (int)(strlen(md) < 3000 ? strlen(md) : 3000), md);
    int figs = 0;
    static const char *names[] = {"cfg_step_x_sgemm", "cfg_arena_mib", "cfg_step_ms", "probe_sup_loss", "probe_sup_top1", "probe_mp3_loss"};
    for (int i = 0; i < 6; i++)
        for (int e = 0; e < 2; e++) {
            struct stat st;
            snprintf(path, sizeof path, "%s/h/figures/%s.%s", g_dir, names[i], e ? "svg" : "png");
            figs += stat(path, &st) == 0 && st.st_size > 0;
        }
    test_check("bench --history: a PNG and an SVG per metric", figs == 12, "%d of 12", figs);

    // Bad input: exit 2 naming what is wrong.
    snprintf(path, sizeof path, "%s/d.tsv", hdir);
    t = fopen(path, "w");
    if (t) fputs("posbench-bench\t1\nmetric\ta\tmemory\tx\n", t), fclose(t);
    rc = run_cli(args, out, sizeof out);
    test_check("bench --history: a malformed file exits 2 naming FILE:LINE", rc == 2 && strstr(out, "d.tsv:2: metric a: value 1 'x'"),
               "exit %d: %s", rc, out);
    snprintf(args, sizeof args, "--history %s/h/figures", g_dir);
    rc = run_cli(args, out, sizeof out);
    test_check("bench --history: a directory without *.tsv exits 2", rc == 2 && strstr(out, "no *.tsv results files"), "exit %d: %s", rc, out);
    snprintf(args, sizeof args, "--history %s/none", g_dir);
    rc = run_cli(args, out, sizeof out);
    test_check("bench --history: a missing directory exits 2 naming it", rc == 2 && strstr(out, "none: cannot open the directory"), "exit %d: %s", rc, out);
    rc = run_cli("--out x", out, sizeof out);
    test_check("bench --out without --history exits 2", rc == 2 && strstr(out, "--out DIR goes with --history"), "exit %d: %s", rc, out);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/posbench-regress.XXXXXX");
    if (!mkdtemp(g_dir)) {
        test_fail("setup", "cannot create a temporary directory");
        return 1;
    }
    test_roundtrip();
    test_compare();
    test_compared_count();
    test_cli();
    test_history();
    int rc = test_exit_code();
    if (rc == 0 && !getenv("POSBENCH_TEST_KEEP")) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    } else {
        printf("# files kept in %s\n", g_dir);
    }
    return rc;
}
