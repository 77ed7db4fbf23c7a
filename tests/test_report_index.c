// tests/test_report_index.c — `posbench report --index DIR` (bench/report/report_index.h) on
// synthetic sources written here with bench/results/results.h:
//   ROOT/idx/alpha/exp-a: stage vit, pe.kind abs (top1 0.80, 0.82, 0.81) and none (0.70, 0.71,
//     0.72), 6 runs; findings: A1 "abs beats none" (greater: holds, Welch p < 0.001) and A2
//     "abs reaches 99%" (at_least 0.99: does not hold, significantly below);
//   ROOT/idx/beta/exp-b: stage vit, 2 runs; finding B1 on a stage without runs: not measured;
//   ROOT/idx/gamma: no run files (listed as not run);
//   ROOT/idx/reproduce-times.tsv: alpha 65 s, beta 3725 s (exit 1), and a later alpha line
//     (70 s) that replaces the first.
// Checks: exit 0; the summary rows (experiments, runs, counts by verdict, wall time, links to
// alpha's REPORT.md / REPORT.html written first by `posbench report`), the total time; each
// claim led by its experiment with the verdict the source's own report gives (the same text);
// REPORT.html has the links as <a href> and the rows coloured by verdict. Refusals (exit 2):
// a times line with a bad field (named FILE:LINE and what is valid), a folder with no source
// holding run files, --index with --format. report_index_time_parse on good and bad lines.
#include "testing.h"
#include "report_runs.h"
#include "../bench/report/report.h"
#include "../bench/report/report_index.h"
#include "../bench/results/results.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char g_idx[400];

// A done run: source/experiment/stage/id.h5 with pe.kind and top1, and the CPU seconds its
// process took when cpu_s >= 0 (root cpu_run_s; < 0: a file from before it was recorded).
static void write_run(const char *source, const char *exp, const char *id, long seed, const char *pe, double top1, double cpu_s) {
    char path[900];
    snprintf(path, sizeof path, "%s/%s", g_idx, source), mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s", g_idx, source, exp), mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s/vit", g_idx, source, exp), mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s/vit/%s.h5", g_idx, source, exp, id);
    results *r = results_create(path);
    results_attr_str(r, "/", "experiment", exp);
    results_attr_str(r, "/", "stage", "vit");
    results_attr_str(r, "/", "run_id", id);
    results_attr_str(r, "/", "status", "done");
    results_attr_str(r, "/", "started", "2026-02-01T00:00:00Z");
    results_attr_str(r, "/", "finished", "2026-02-01T01:00:00Z");
    results_attr_int(r, "/", "seed", seed);
    results_attr_int(r, "/config", "train.seed", seed);
    results_attr_str(r, "/config", "pe.kind", pe);
    results_attr_double(r, "/final", "top1", top1);
    if (cpu_s >= 0.0) results_attr_double(r, "/", "cpu_run_s", cpu_s), results_attr_double(r, "/", "cpu_wait_s", 0.0);
    if (results_close(r) != 0) test_fail("setup", "cannot write %s", path);
}

static int write_text(const char *rel, const char *text) {
    char path[900];
    snprintf(path, sizeof path, "%s/%s", g_idx, rel);
    FILE *f = fopen(path, "w");
    if (!f) return test_fail("setup", "cannot write %s", path), -1;
    fputs(text, f);
    return fclose(f) != 0 ? test_fail("setup", "cannot write %s", path), -1 : 0;
}

static int setup(void) {
    snprintf(g_root, sizeof g_root, "/tmp/posbench-index.XXXXXX");
    if (!mkdtemp(g_root)) return test_fail("setup", "mkdtemp failed"), -1;
    snprintf(g_idx, sizeof g_idx, "%s/idx", g_root);
    mkdir(g_idx, 0777);
    static const double abs_top1[3] = {0.80, 0.82, 0.81}, none_top1[3] = {0.70, 0.71, 0.72};
    for (int s = 0; s < 3; s++) {
        char id[32];
        snprintf(id, sizeof id, "a%d", s), write_run("alpha", "exp-a", id, s, "abs", abs_top1[s], 600.25);
        snprintf(id, sizeof id, "n%d", s), write_run("alpha", "exp-a", id, s, "none", none_top1[s], 600.25);
    }
    write_run("beta", "exp-b", "b0", 0, "abs", 0.5, 30.0), write_run("beta", "exp-b", "b1", 1, "abs", 0.6, -1.0);
    char gamma[500];
    snprintf(gamma, sizeof gamma, "%s/gamma", g_idx), mkdir(gamma, 0777);
    return write_text("alpha/exp-a/experiment.yaml",
                      "name: exp-a\nfindings:\n"
                      "  - {claim: A1 abs beats none, kind: greater, a: {stage: vit, match: {pe.kind: abs}, metric: top1}, b: {stage: vit, match: {pe.kind: none}, metric: top1}}\n"
                      "  - {claim: A2 abs reaches 99%, kind: at_least, a: {stage: vit, match: {pe.kind: abs}, metric: top1}, value: 0.99}\n") ||
                   write_text("beta/exp-b/experiment.yaml",
                              "name: exp-b\nfindings:\n"
                              "  - {claim: B1 the finetuned model reaches 90%, kind: at_least, a: {stage: finetune, metric: top1}, value: 0.9}\n") ||
                   write_text("reproduce-times.tsv", "# source\tscale\tdevice\tseconds\texit\nalpha\tsmoke\tcpu\t65\t0\n"
                                                     "beta\tsmoke\tcpu\t3725\t1\nalpha\tsmoke\tcpu\t70\t0\n")
               ? -1
               : 0;
}

static void has(const char *name, const char *text, const char *needle) {
    if (text && strstr(text, needle)) test_pass(name, "has '%.80s'", needle);
    else test_fail(name, "'%s' not in: %.1500s", needle, text ? text : "(no file)");
}

static void index_page(void) {
    char alpha[500];
    snprintf(alpha, sizeof alpha, "%s/alpha", g_idx);
    char *rargv[] = {alpha, "--format", "html"}, *out = NULL, *err = NULL;
    int rc = capture(cmd_report, 3, rargv, &out, &err);
    test_check("report --index setup: posbench report of source alpha", rc == 0, "exit %d: %.300s", rc, err ? err : "");
    free(out), free(err);
    char alpha_md[600];
    snprintf(alpha_md, sizeof alpha_md, "%s/REPORT.md", alpha);
    char *own = slurp(alpha_md);

    char *argv[] = {"--index", g_idx};
    rc = capture(cmd_report, 2, argv, &out, &err);
    test_check("report --index: exit 0 over two sources with runs and one without", rc == 0, "exit %d: %.500s", rc, err ? err : "");
    char path[600];
    snprintf(path, sizeof path, "%s/REPORT.md", g_idx);
    char *md = slurp(path);
    test_check("report --index: stdout is REPORT.md", md && out && !strcmp(md, out), "%s", md && out && !strcmp(md, out) ? "equal" : "differ");
    has("report --index: the head counts sources and verdicts", md,
        "2 sources with run files, 3 findings: 1 holds, 1 does not hold, 0 inconclusive, 1 not measured");
    has("report --index: alpha's summary row (runs, verdicts, the later time line, its runs' CPU time, links)", md,
        "| alpha | `exp-a` | 6 | 1 | 1 | 0 | 0 | 1 min 10 s (smoke, cpu) | 1 h 00 min | [REPORT.md](alpha/REPORT.md), [REPORT.html](alpha/REPORT.html) |");
    has("report --index: beta's summary row (not measured, a failed run in its time, a run without its CPU time, no report yet)", md,
        "| beta | `exp-b` | 2 | 0 | 0 | 0 | 1 | 1 h 02 min (smoke, cpu, a run failed) | 30 s (1 of 2 done runs recorded it) | none yet");
    has("report --index: a folder without run files is listed as not run", md, "| gamma | — | 0 | — | — | — | — | — | — | not run (no run files) |");
    has("report --index: the total wall time", md, "1 h 03 min in all");
    has("report --index: the total CPU time of the runs, and what it bounds", md,
        "summed; 1 h 00 min in all over 7 runs. It does not grow with a machine's load");
    has("report --index: alpha's findings, each claim led by its experiment", md, "## alpha\n\n| claim | ours | paper | verdict |");
    has("report --index: A1 holds", md, "| `exp-a`: A1 abs beats none | 81.00 vs 71.00 (n = 3 vs 3");
    has("report --index: A1's verdict", md, "experiment `exp-a`) |  | holds |");
    // the verdict cells are the source report's own
    has("report --index: A2 does not hold (significant against)", md, "| does not hold (significant against) |");
    has("report --index: B1 not measured, with the reason", md,
        "| `exp-b`: B1 the finetuned model reaches 90% | — (claim ≥ 90.00) |  | not measured (no runs of finetune) |");
    char *a1 = md ? strstr(md, "A1 abs beats none |") : NULL, *a1_own = own ? strstr(own, "| A1 abs beats none |") : NULL;
    if (a1_own) a1_own += 2;
    if (a1 && a1_own) {
        const char *eol = strchr(a1, '\n'), *eol_own = strchr(a1_own, '\n');
        size_t n = eol ? (size_t)(eol - a1) : strlen(a1), n_own = eol_own ? (size_t)(eol_own - a1_own) : strlen(a1_own);
        test_check("report --index: A1's ours, paper and verdict cells equal alpha's own report's", n == n_own && !memcmp(a1, a1_own, n),
                   "index '%.*s' vs own '%.*s'", (int)n, a1, (int)n_own, a1_own);
    } else {
        test_fail("report --index: A1's ours, paper and verdict cells equal alpha's own report's", "A1 missing");
    }
    snprintf(path, sizeof path, "%s/REPORT.html", g_idx);
    char *html = slurp(path);
    has("report --index: REPORT.html links each source's report", html, "<a href=\"alpha/REPORT.html\">REPORT.html</a>");
    has("report --index: REPORT.html colours a row that holds", html, "<tr class=\"verdict-holds\">");
    has("report --index: REPORT.html colours a row not measured", html, "<tr class=\"verdict-not-measured\">");
    free(md), free(html), free(own), free(out), free(err);
}

static void refusals(void) {
    char bad[500], empty[500];
    snprintf(bad, sizeof bad, "%s/reproduce-times.tsv", g_idx);
    FILE *f = fopen(bad, "a");
    if (!f || fputs("beta\tsmoke\tcpu\tsoon\t0\n", f) < 0 || fclose(f) != 0) test_fail("setup", "cannot append to %s", bad);
    char *argv[] = {"--index", g_idx};
    expect_status("report --index: a bad times line is refused naming FILE:LINE", cmd_report, 2, argv, 2,
                  "reproduce-times.tsv:5: seconds 'soon' is not a whole number >= 0");
    snprintf(empty, sizeof empty, "%s/empty", g_root);
    mkdir(empty, 0777);
    snprintf(bad, sizeof bad, "%s/empty/nothing", g_root);
    mkdir(bad, 0777);
    char *argv2[] = {"--index", empty};
    expect_status("report --index: a folder with no source holding run files is refused", cmd_report, 2, argv2, 2,
                  "no subfolder of");
    char *argv3[] = {"--index", g_idx, "--format", "csv"};
    expect_status("report --index: --format is refused with --index", cmd_report, 4, argv3, 2, "are for one source's report");
}

static void time_lines(void) {
    index_time t;
    char why[300] = "parsed";
    test_check("report --index times: a good line parses", report_index_time_parse("ssl\tsmall\tcuda\t5400\t2", &t, why, sizeof why) == 0 &&
                   !strcmp(t.source, "ssl") && !strcmp(t.scale, "small") && !strcmp(t.device, "cuda") && t.seconds == 5400 &&
                   t.exit_status == 2, "%s", why);
    static const struct { const char *line, *why; } bad[] = {
        {"ssl\tsmall\tcuda\t5400", "4 tab-separated fields"},
        {"ssl\tsmall\tcuda\t5400\t0\textra", "6 tab-separated fields"},
        {"ssl\tsmall\tcuda\t-3\t0", "seconds '-3' is not a whole number >= 0"},
        {"ssl\tsmall\tcuda\t12\t7", "exit '7' (valid: 0, 1, 2)"},
        {"\tsmall\tcuda\t12\t0", "field 1 ('') is empty"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char name[200];
        snprintf(name, sizeof name, "report --index times: refused with \"%s\"", bad[k].why);
        int rc = report_index_time_parse(bad[k].line, &t, why, sizeof why);
        test_check(name, rc == -1 && strstr(why, bad[k].why), "rc %d, why '%s'", rc, why);
    }
}

int main(void) {
    if (setup() != 0) return 1;
    time_lines();
    index_page();
    refusals();
    if (test_exit_code() == 0 && !getenv("POSBENCH_TEST_KEEP")) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
        if (system(cmd) != 0) fprintf(stderr, "test_report_index: could not remove %s\n", g_root);
    } else {
        printf("test_report_index: files kept in %s\n", g_root);
    }
    return test_exit_code();
}
