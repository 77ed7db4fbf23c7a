// tests/test_report_family.c — what a report of any folder tells a reader before and beside its
// numbers (bench/report/report_provenance.h, findings.h "Holm"), on the synthetic runs of
// tests/report_runs.c copied into FAMILY/exp beside a second experiment FAMILY/exp2 (its runs
// recorded at scale smoke on two CPU models and a GPU, with DINO's 0/1 dino_collapsed flag):
//   - one family per experiment: `posbench report FAMILY` and `posbench report FAMILY/exp` give
//     exp's findings the same rows, Holm p and family size (24) although FAMILY holds exp2's
//     findings too (the old family, every finding below the folder, would have made it 26);
//   - the generated head: FAMILY's report says in its first line that smoke numbers say nothing
//     about the papers, lists the scales (smoke, not recorded), the CPU models, the commands with
//     --scale smoke, and the verdict counts before the tables; FAMILY/exp's has no smoke line;
//     REPORT.html's rerun command keeps --scale smoke;
//   - a finding's caveats in its row: exp2's finding mixes two CPU models and has 2 runs a side;
//     a throughput measured on a GPU says that sharing the GPU is not recorded;
//   - a mean of a 0/1 flag with decimals: 2 of 3 runs collapsed prints 0.67, not 1;
//   - CPU contention (root cpu_run_s, cpu_wait_s): three runs that waited for a CPU 5%, 30% and
//     60% of their runnable time get the provenance line, the experiment's caveat (counting the
//     runs that do not record it) and a timing finding's row caveat; the other rows none.
#include "testing.h"
#include "report_runs.h"
#include "../bench/report/report.h"
#include "../bench/results/results.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char g_family[400];

// A done run of exp2: stage, id, seed, pe.kind, top1, dino_collapsed (< 0: none), CPU model
// (a GPU run: "cuda", with images_per_s), its wait for a CPU (< 0: not recorded; else with a
// step time).
static void write_exp2_run(const char *stage, const char *id, long seed, const char *pe, double top1, int collapsed, const char *cpu,
                           double wait) {
    char path[700];
    snprintf(path, sizeof path, "%s/exp2/%s", g_family, stage), mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/exp2/%s/%s.h5", g_family, stage, id);
    results *r = results_create(path);
    results_attr_str(r, "/", "experiment", "exp2");
    results_attr_str(r, "/", "stage", stage);
    results_attr_str(r, "/", "run_id", id);
    results_attr_str(r, "/", "status", "done");
    results_attr_str(r, "/", "scale", "smoke");
    int gpu = !strcmp(cpu, "cuda");
    results_attr_str(r, "/", "device", gpu ? "cuda" : "cpu");
    results_attr_str(r, "/", "cpu_model", gpu ? "Intel Xeon" : cpu);
    if (gpu) results_attr_double(r, "/final", "images_per_s", 1000.0 + 10.0 * (double)seed);
    results_attr_str(r, "/", "git_commit", "abc1234");
    results_attr_str(r, "/", "started", "2026-02-01T00:00:00Z");
    results_attr_str(r, "/", "finished", "2026-02-01T01:00:00Z");
    results_attr_int(r, "/", "seed", seed);
    results_attr_int(r, "/config", "train.seed", seed);
    results_attr_str(r, "/config", "pe.kind", pe);
    results_attr_double(r, "/final", "top1", top1);
    if (collapsed >= 0) results_attr_int(r, "/final", "dino_collapsed", collapsed);
    if (wait >= 0) { // ran 10 s, waited wait / (1 - wait) of that
        results_attr_double(r, "/", "cpu_run_s", 10.0);
        results_attr_double(r, "/", "cpu_wait_s", 10.0 * wait / (1.0 - wait));
        results_attr_double(r, "/final", "step_time_ms", 40.0 + (double)seed);
    }
    if (results_close(r) != 0) test_fail("setup", "cannot write %s", path);
}

static int setup(void) {
    snprintf(g_family, sizeof g_family, "%s/family", g_root);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/exp2' && cp -r '%s/exp' '%s/'", g_family, g_dir, g_family);
    if (system(cmd) != 0) return test_fail("setup", "cannot copy %s/exp", g_dir), -1;
    static const double a[2] = {0.80, 0.82}, b[2] = {0.70, 0.71};
    for (int s = 0; s < 2; s++) {
        char id[32];
        snprintf(id, sizeof id, "a%d", s), write_exp2_run("vit", id, s, "abs", a[s], -1, s ? "AMD EPYC" : "Intel Xeon", -1);
        snprintf(id, sizeof id, "b%d", s), write_exp2_run("vit", id, s, "none", b[s], -1, "Intel Xeon", -1);
    }
    for (int s = 0; s < 3; s++) { // 2 of 3 runs collapsed
        char id[32];
        snprintf(id, sizeof id, "d%d", s), write_exp2_run("dino", id, s, "abs", 0.5, s > 0, "Intel Xeon", -1);
        snprintf(id, sizeof id, "g%d", s), write_exp2_run("gpu", id, s, "abs", 0.5, -1, "cuda", -1);
        static const double wait[3] = {0.05, 0.30, 0.60};
        snprintf(id, sizeof id, "t%d", s), write_exp2_run("timed", id, s, "abs", 0.5, -1, "Intel Xeon", wait[s]);
    }
    char path[700];
    snprintf(path, sizeof path, "%s/exp2/experiment.yaml", g_family);
    FILE *f = fopen(path, "w");
    if (!f) return test_fail("setup", "cannot write %s", path), -1;
    fputs("name: exp2\nfindings:\n"
          "  - {claim: X1 abs beats none, kind: greater, a: {stage: vit, match: {pe.kind: abs}, metric: top1}, b: {stage: vit, match: {pe.kind: none}, metric: top1}}\n"
          "  - {claim: X2 abs reaches 90%, kind: at_least, a: {stage: vit, match: {pe.kind: abs}, metric: top1}, value: 0.9}\n"
          "  - {claim: X3 the GPU reaches 900 images/s, kind: at_least, a: {stage: gpu, metric: images_per_s}, value: 900}\n"
          "  - {claim: X4 a step takes at most 50 ms, kind: at_most, a: {stage: timed, metric: step_time_ms}, value: 50}\n",
          f);
    if (fclose(f) != 0) return test_fail("setup", "cannot write %s", path), -1;
    return 0;
}

// REPORT.md of dir after `posbench report dir` (NULL when it failed).
static char *report_of(const char *dir) {
    char *argv[] = {(char *)dir}, *out = NULL, *err = NULL;
    int rc = capture(cmd_report, 1, argv, &out, &err);
    if (rc != 0) test_fail("report", "%s: exit %d: %s", dir, rc, err ? err : "");
    free(out), free(err);
    if (rc != 0) return NULL;
    char path[700];
    snprintf(path, sizeof path, "%s/REPORT.md", dir);
    return slurp(path);
}

// The findings row of claim (the line starting "| claim |") into row; 0 when absent.
static int row_of(const char *md, const char *claim, char *row, size_t len) {
    char want[300] = "\n| ";
    for (const char *p = claim; *p && strlen(want) < sizeof want - 8; p++) // '|' is escaped in a cell
        snprintf(want + strlen(want), sizeof want - strlen(want), *p == '|' ? "\\|" : "%c", *p);
    snprintf(want + strlen(want), sizeof want - strlen(want), " |");
    const char *hit = md ? strstr(md, want) : NULL;
    if (!hit) return 0;
    snprintf(row, len, "%.*s", (int)strcspn(hit + 1, "\n"), hit + 1);
    return 1;
}

static void test_same_p(const char *parent, const char *child) {
    int same = 1, checked = 0;
    char detail[600] = "";
    for (int i = 0; i < NCASES; i++) {
        char rp[16384], rc[16384];
        if (!row_of(parent, cases[i].claim, rp, sizeof rp) || !row_of(child, cases[i].claim, rc, sizeof rc)) {
            same = 0, snprintf(detail, sizeof detail, "no row for %s", cases[i].claim);
            break;
        }
        checked++;
        if (strcmp(rp, rc)) {
            same = 0, snprintf(detail, sizeof detail, "%s: '%.250s' vs '%.250s'", cases[i].claim, strstr(rp, "Holm p") ? strstr(rp, "Holm p") : rp,
                               strstr(rc, "Holm p") ? strstr(rc, "Holm p") : rc);
            break;
        }
    }
    test_check("one family per experiment: exp's rows (Holm p, family size) are the same from the parent folder and from exp's own",
               same && checked == NCASES && strstr(parent, "(claim; 24 comparisons, experiment `exp`)") &&
                   strstr(parent, "comparisons, experiment `exp2`)") && !strstr(parent, "26 comparisons"),
               "%d rows compared; %s", checked, detail);
}

static void test_head(const char *parent, const char *child) {
    test_check("smoke: the first line says its numbers say nothing about the papers",
               parent && !strncmp(parent, "# posbench report — smoke scale: its numbers say nothing about the papers", 72), "%.200s",
               parent ? parent : "");
    test_check("not smoke: a plain title", child && !strncmp(child, "# posbench report\n", 18), "%.100s", child ? child : "");
    const char *prov = parent ? strstr(parent, "\n## Provenance\n") : NULL, *tables = parent ? strstr(parent, "\n## ") : NULL;
    test_check("the provenance block comes before every table", prov && prov == tables, "%s", prov ? "first section" : "no block");
    test_check("provenance: scales with counts (smoke recorded, older files not recorded)",
               parent && strstr(parent, "- scale: ") && strstr(parent, "`smoke` (13 runs)") && strstr(parent, "`not recorded` ("), "%.600s",
               prov ? prov : "");
    test_check("provenance: devices and CPU models", parent && strstr(parent, "`cpu, Intel Xeon` (9 runs)") && strstr(parent, "`cuda` (3 runs)") && strstr(parent, "`cpu, AMD EPYC` (1 run)"),
               "%.600s", prov ? prov : "");
    char want[900];
    snprintf(want, sizeof want, "- `posbench run %s/exp2/experiment.yaml --scale smoke --out %s`", g_family, g_family);
    test_check("provenance: the exact command with --scale", parent && strstr(parent, want), "want '%s'", want);
    test_check("provenance: dates and commits", parent && strstr(parent, "- dates: 2026-01-01T00:00:00Z to 2026-02-01T01:00:00Z") &&
                                                    strstr(parent, "`abc1234` (13 runs)"),
               "%.600s", prov ? prov : "");
    snprintf(want, sizeof want, "(%d findings; their rows below say why).", NCASES + 4);
    const char *verdicts = parent ? strstr(parent, "\nVerdicts: ") : NULL, *first_table = parent ? strstr(parent, "\n## Stage") : NULL;
    test_check("verdict summary: counts and the list, before the tables",
               verdicts && (!first_table || verdicts < first_table) && strstr(verdicts, want) &&
                   strstr(verdicts, "\n- holds: X1 abs beats none (experiment `exp2`)"),
               "%.400s", verdicts ? verdicts : "");
    char path[700];
    snprintf(path, sizeof path, "%s/REPORT.html", g_family);
    char *html = slurp(path);
    snprintf(want, sizeof want, "posbench run %s/exp2/experiment.yaml --scale smoke --out %s\n", g_family, g_family);
    test_check("REPORT.html: the rerun command keeps --scale", html && strstr(html, want), "want '%s'", want);
    free(html);
}

static void test_rows(const char *parent) {
    char row[16384];
    int ok = row_of(parent, "X1 abs beats none", row, sizeof row);
    test_check("caveats in the row: fewer than 3 seeds and a CPU-model mix",
               ok && strstr(row, "| holds [caveats: 2 runs on a side (fewer than 3 seeds); a device mix: Intel Xeon (3 runs), AMD EPYC (1 run)] |"), "%s",
               ok ? row : "(no row)");
    ok = row_of(parent, "X3 the GPU reaches 900 images/s", row, sizeof row);
    test_check("caveats in the row: a rate measured on a GPU (sharing not recorded), 3 runs: no seeds caveat",
               ok && strstr(row, "[caveats: a GPU timing: the run files do not record whether other processes shared the GPU] |") &&
                   !strstr(row, "fewer than 3"),
               "%s", ok ? row : "(no row)");
    const char *contention = "3 runs waited for a CPU 5% to 60% of their runnable time while they trained (median 30%): their timings "
                             "up to 2.50x as long as on an otherwise idle machine";
    ok = row_of(parent, "X4 a step takes at most 50 ms", row, sizeof row);
    test_check("caveats in the row: a timing whose runs waited for a CPU", ok && strstr(row, "a timing under CPU contention: ") &&
               strstr(row, contention), "%s", ok ? row : "(no row)");
    ok = row_of(parent, "X1 abs beats none", row, sizeof row);
    test_check("no contention caveat in a row that is not a timing", ok && !strstr(row, "contention"), "%s", ok ? row : "(no row)");
    char want[700];
    snprintf(want, sizeof want, "- timings under CPU contention: %s; 10 runs do not record it;", contention);
    test_check("the experiment's caveat: its runs' wait for a CPU, the runs without a record counted", parent && strstr(parent, want),
               "want '%s'", want);
    snprintf(want, sizeof want, "- CPU contention: %s; 39 runs do not record it (", contention);
    test_check("provenance: the wait for a CPU over every run", parent && strstr(parent, want), "want '%s'", want);
    const char *dino = parent ? strstr(parent, "stage `dino`") : NULL;
    test_check("a 0/1 flag's mean with decimals: 2 of 3 collapsed is 0.67, not 1", dino && strstr(dino, "| 0.67 |\n"), "%.500s",
               dino ? dino : "(no dino table)");
}

int main(void) {
    results_process_init();
    if (report_runs_setup() != 0 || setup() != 0) return 1;
    char child[500];
    snprintf(child, sizeof child, "%s/exp", g_family);
    char *parent_md = report_of(g_family), *child_md = report_of(child);
    if (parent_md && child_md) {
        test_same_p(parent_md, child_md);
        test_head(parent_md, child_md);
        test_rows(parent_md);
    }
    free(parent_md), free(child_md);
    report_runs_cleanup();
    return test_exit_code();
}
