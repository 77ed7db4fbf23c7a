// tests/test_report.c — `posbench report` and its findings on the synthetic run files of
// tests/report_runs.h (three stages, /train and /eval series, reference.tsv, experiment.yaml with
// findings). The report's rows are compared exactly with cells computed here from the
// documented format (report.h); every finding kind is checked both ways (holds / does not
// hold), `per` pairing, each "not measured" reason, and exact Findings rows (findings.h). Exit
// codes: bad DIR, empty DIR, bad flags, bad reference.tsv or findings → 2. `posbench plot` on
// the same files: tests/test_plot.c. Its files are removed unless a check failed or
// POSBENCH_TEST_KEEP is set.
#include "testing.h"
#include "report_runs.h"
#include "../bench/report/report.h"
#include "../bench/report/significance.h"
#include "../bench/results/results.h"
#include "../bench/results/results_read.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


// ---- expected cells -----------------------------------------------------------------
static void cell(char *out, size_t len, const double *x, int n, double scale, const char *fmt, int mean_only) {
    if (n == 0) {
        snprintf(out, len, "—");
        return;
    }
    double sum = 0, ss = 0;
    for (int i = 0; i < n; i++) sum += x[i];
    double mean = sum / n;
    for (int i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    double sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
    char m[64], s[64];
    snprintf(m, sizeof m, fmt, mean * scale);
    if (n > 1) snprintf(s, sizeof s, fmt, sd * scale);
    else snprintf(s, sizeof s, "—");
    if (mean_only) snprintf(out, len, "%s", m);
    else snprintf(out, len, "%s ± %s", m, s);
}

static void append(char *row, size_t len, const char *c) { snprintf(row + strlen(row), len - strlen(row), " %s |", c); }

static void expected_ft_row(int d, int p, char *row, size_t len) {
    double t1[3], t5[3], pos[3], loss[3], tt[3], ips[3], mem[3], par[3], fl[3];
    int n = 0;
    for (int s = 0; s < 3; s++) {
        if (ft_diverged(d, p, s)) continue;
        double top1 = ft_top1(d, p, s);
        t1[n] = top1, t5[n] = top1 + 0.15, pos[n] = 0.3 + 0.01 * s + 0.02 * d, loss[n] = 1.2 - top1 + 0.001 * s;
        tt[n] = ft_time(d, s), ips[n] = 6000.0 / ft_time(d, s), mem[n] = (double)ft_mem(d, s);
        par[n] = dims[d] * 1000 + 7, fl[n] = dims[d] * 0.37e9;
        n++;
    }
    char c[160];
    snprintf(row, len, "| %d | %s | %d | 60 (40 + 20) | 3840 (2560 + 1280) |", dims[d], pes[p], n); // budget: init + own
    cell(c, sizeof c, t1, n, 100, "%.2f", 0), append(row, len, c);
    append(row, len, d == 0 && p == 0 ? "85.2" : d == 1 && p == 1 ? "70.1" : "");
    cell(c, sizeof c, t5, n, 100, "%.2f", 0), append(row, len, c);
    cell(c, sizeof c, pos, n, 100, "%.2f", 0), append(row, len, c);
    cell(c, sizeof c, loss, n, 1, "%.4f", 0), append(row, len, c);
    cell(c, sizeof c, par, n, 1e-6, "%.3f", 1), append(row, len, c);
    cell(c, sizeof c, fl, n, 1e-9, "%.3f", 1), append(row, len, c);
    cell(c, sizeof c, tt, n, 1, "%.1f", 0), append(row, len, c);
    cell(c, sizeof c, ips, n, 1, "%.1f", 0), append(row, len, c);
    cell(c, sizeof c, mem, n, 1.0 / 1048576, "%.1f", 0), append(row, len, c);
    append(row, len, n == 3 ? "3 done" : "2 done, 1 diverged");
}

static void expected_pt_row(int e, char *row, size_t len) {
    double t1[2], loss[2], tt[2], ips[2], mem[2], par[2] = {64007, 64007}, fl[2] = {1.5e9, 1.5e9};
    for (int s = 0; s < 2; s++)
        t1[s] = 0.4 + 0.1 * e + 0.01 * s, loss[s] = 2.0 - 0.1 * e - 0.01 * s, tt[s] = 50.0 + s, ips[s] = 1000.0 + 10 * s,
        mem[s] = 300 * 1048576.0 + s;
    char c[160];
    snprintf(row, len, "| %s | 2 | — | — |", e ? "0.5" : "0"); // no steps nor budget attributes: not known
    cell(c, sizeof c, t1, 2, 100, "%.2f", 0), append(row, len, c);
    cell(c, sizeof c, loss, 2, 1, "%.4f", 0), append(row, len, c);
    cell(c, sizeof c, par, 2, 1e-6, "%.3f", 1), append(row, len, c);
    cell(c, sizeof c, fl, 2, 1e-9, "%.3f", 1), append(row, len, c);
    cell(c, sizeof c, tt, 2, 1, "%.1f", 0), append(row, len, c);
    cell(c, sizeof c, ips, 2, 1, "%.1f", 0), append(row, len, c);
    cell(c, sizeof c, mem, 2, 1.0 / 1048576, "%.1f", 0), append(row, len, c);
}

// ---- checks -------------------------------------------------------------------------
static void test_reader(void) {
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/exp/pretrain/p%011x.h5", g_dir, 10u);
    rr_run r;
    int rc = rr_read(path, RR_SERIES | RR_ARRAYS, &r, err, sizeof err);
    if (rc != 0) {
        test_fail("rr_read", "%s", err);
        return;
    }
    const rr_attr *eta = rr_attr_get(&r.config, "objective.eta"), *kind = rr_attr_get(&r.config, "data.name");
    const rr_column *loss = rr_column_get(&r.train, "loss");
    const rr_array *rel = rr_array_get(&r.attention, "relmap");
    int ok = eta && eta->type == 'd' && !strcmp(eta->text, "0.5") && eta->num == 0.5 && kind && kind->type == 's' &&
             !strcmp(kind->text, "fashion-mnist") && !strcmp(rr_run_status(&r), "done") && rr_run_seed(&r) == 0 &&
             r.train.ncols == 6 && !strcmp(r.train.cols[5].name, "step_time_ms") && loss && loss->n == 20 &&
             fabs(loss->v[3] - (2.3 * exp(-0.3) + 0.05)) < 1e-12 && r.eval.ncols == 5 && r.eval.cols[0].n == 2 && rel &&
             rel->ndim == 4 && rel->dims[2] == 5 && rel->numel == 100 && fabs(rel->data[12] - 1.0f) < 1e-6;
    test_check("rr_read attrs, series, arrays", ok, "config %d attrs, train %d cols, attention %d arrays", r.config.n,
               r.train.ncols, r.attention.n);
    // A key the file lacks (written before the key existed) reads as its default, typed as
    // the trainer writes it; the attributes stay in name order.
    const rr_attr *scale = rr_attr_get(&r.config, "pe.cape_scale"), *sizes = rr_attr_get(&r.config, "data.resolutions");
    const rr_attr *res = rr_attr_get(&r.config, "data.resolution");
    int sorted = 1;
    for (int i = 1; i < r.config.n; i++) sorted &= strcmp(r.config.items[i - 1].name, r.config.items[i].name) < 0;
    ok = scale && scale->type == 'd' && !strcmp(scale->text, "1.4") && sizes && sizes->type == 's' && !strcmp(sizes->text, "") &&
         res && res->type == 'i' && !strcmp(res->text, "0") && res->num == 0 && sorted;
    test_check("rr_read: keys absent from /config read as their defaults", ok, "pe.cape_scale '%s', data.resolutions '%s', data.resolution '%s', %s",
               scale ? scale->text : "(none)", sizes ? sizes->text : "(none)", res ? res->text : "(none)", sorted ? "sorted" : "NOT sorted");
    rr_free(&r);
    // The same for a parent's keys a finetune run records as "<stage>.<key>": a file whose
    // pretrain.* copy lacks a key reads it as the default (else runs from before and after a key
    // was added would be split by the parent's copy of it).
    snprintf(path, sizeof path, "%s/exp/mp3/m%011x.h5", g_dir, 0u);
    rc = rr_read(path, RR_ATTRS, &r, err, sizeof err);
    const rr_attr *pdim = rc == 0 ? rr_attr_get(&r.config, "pretrain.model.dim") : NULL;
    const rr_attr *peta = rc == 0 ? rr_attr_get(&r.config, "pretrain.objective.eta") : NULL;
    test_check("rr_read: a parent's keys absent from /config read as their defaults", pdim && !strcmp(pdim->text, "128") &&
               peta && peta->num == 0.0, "pretrain.model.dim '%s'", pdim ? pdim->text : "(none)");
    if (rc == 0) rr_free(&r);
    snprintf(path, sizeof path, "%s/exp/pretrain/zzzz.h5.partial", g_dir);
    rc = rr_read(path, RR_ATTRS, &r, err, sizeof err);
    test_check("rr_read error names the file", rc == -1 && strstr(err, path) != NULL, "%s", err);
}

static void test_report(void) {
    char *out = NULL, *err = NULL;
    char *argv[] = {g_dir};
    int rc = capture(cmd_report, 1, argv, &out, &err);
    test_check("report exit status", rc == 0, "rc %d; stderr: %s", rc, err ? err : "");
    char *pt = strstr(out, "## stage `pretrain`"), *ft = strstr(out, "## stage `finetune`");
    test_check("report stage order by start time", pt && ft && pt < ft, "pretrain %s before finetune", pt && ft && pt < ft ? "is" : "is not");
    const char *ft_head = "| model.dim | pe.kind | n | updates | images seen | top1 (%) | paper (other data) top1 | top5 (%) | pos_top1 (%) | loss | params (M) | "
                          "GFLOP/step | train_time (s) | images/s | peak_mem (MiB) | status |\n";
    const char *pt_head = "| objective.eta | n | updates | images seen | top1 (%) | loss | params (M) | GFLOP/step | train_time (s) | images/s | peak_mem (MiB) |\n";
    char *h = ft ? strstr(ft, ft_head) : NULL;
    test_check("report finetune header", h != NULL, "%s", h ? "as documented" : out);
    if (h) { // rows in order: 64 abs, 64 none, 128 abs, 128 none (numeric sort of model.dim)
        char *line = strchr(strchr(h, '\n') + 1, '\n') + 1;
        int bad = 0;
        for (int d = 0; d < 2; d++)
            for (int p = 0; p < 2; p++) {
                char want[1024];
                expected_ft_row(d, p, want, sizeof want);
                size_t n = strcspn(line, "\n");
                if (strlen(want) != n || strncmp(line, want, n)) {
                    test_fail("report finetune row", "dim %d pe %s:\n  got  %.*s\n  want %s", dims[d], pes[p], (int)n, line, want);
                    bad = 1;
                }
                line += n + 1;
            }
        test_check("report finetune rows exact", !bad, "4 configurations, mean ± std over done seeds, diverged counted");
    }
    h = pt ? strstr(pt, pt_head) : NULL;
    test_check("report pretrain header", h != NULL, "%s", h ? "as documented (no status column)" : out);
    if (h) {
        char *line = strchr(strchr(h, '\n') + 1, '\n') + 1;
        int bad = 0;
        for (int e = 0; e < 2; e++) {
            char want[1024];
            expected_pt_row(e, want, sizeof want);
            size_t n = strcspn(line, "\n");
            if (strlen(want) != n || strncmp(line, want, n)) {
                test_fail("report pretrain row", "eta %d:\n  got  %.*s\n  want %s", e, (int)n, line, want);
                bad = 1;
            }
            line += n + 1;
        }
        test_check("report pretrain rows exact", !bad, "2 configurations");
    }
    test_check("report reference source", strstr(out, "`paper` columns: MP3 Table 2\n") != NULL, "source listed under the table");
    char path[512];
    snprintf(path, sizeof path, "%s/REPORT.md", g_dir);
    char *md = slurp(path);
    test_check("REPORT.md equals stdout", md && !strcmp(md, out), "%zu bytes", md ? strlen(md) : 0);
    // Written under a temporary name of its own (core/safe_file.h: .REPORT.md.<pid>.XXXXXX), renamed.
    int left = 0;
    DIR *d = opendir(g_dir);
    for (struct dirent *e; d && (e = readdir(d));) left += !strncmp(e->d_name, ".REPORT.md.", 11);
    if (d) closedir(d);
    test_check("REPORT.md written atomically", d && left == 0, "%d temporary file(s) left behind", left);
    free(md), free(out), free(err);
}

// ---- findings -----------------------------------------------------------------------
// Mean top1 of finetune over done runs with pe p (d = -1: both widths).
static double ft_mean(int p, int d) {
    double sum = 0;
    int n = 0;
    for (int dd = 0; dd < 2; dd++)
        for (int s = 0; s < 3; s++)
            if ((d < 0 || dd == d) && !ft_diverged(dd, p, s)) sum += ft_top1(dd, p, s), n++;
    return sum / n;
}

// Mean top1 of mp3 over done runs (e, p = -1: all values).
static double mp3_mean(int e, int p) {
    double sum = 0;
    int n = 0;
    for (int ee = 0; ee < 4; ee++)
        for (int pp = 0; pp < 2; pp++)
            for (int s = 0; s < 2; s++)
                if ((e < 0 || ee == e) && (p < 0 || pp == p) && !mp3_failed(ee, pp)) sum += mp3_top1(ee, pp, s), n++;
    return n ? sum / n : NAN;
}

static void pct(char *out, size_t len, double v) {
    if (isnan(v)) snprintf(out, len, "—");
    else snprintf(out, len, "%.2f", 100 * v);
}

// "0: 70.20, 0.25: 78.20, 0.5: 74.20, 0.75: 72.20": mp3 top1 along eta for pe p.
static void mp3_curve(char *out, size_t len, int p) {
    static const char *labels[4] = {"0", "0.25", "0.5", "0.75"};
    out[0] = '\0';
    for (int e = 0; e < 4; e++) {
        char v[32];
        pct(v, sizeof v, mp3_mean(e, p));
        snprintf(out + strlen(out), len - strlen(out), "%s%s: %s", e ? ", " : "", labels[e], v);
    }
}

// The row of the Findings table whose claim cell is `claim` (Markdown-escaped), or NULL.
static char *finding_row(const char *out, const char *claim, char *row, size_t len) {
    char want[400];
    size_t n = 0;
    n += (size_t)snprintf(want, sizeof want, "| ");
    for (const char *p = claim; *p && n + 3 < sizeof want; p++) {
        if (*p == '|') want[n++] = '\\';
        want[n++] = *p;
    }
    snprintf(want + n, sizeof want - n, " | ");
    const char *section = strstr(out, "## Findings (experiment `exp`)");
    const char *hit = section ? strstr(section, want) : NULL;
    if (!hit || (hit != out && hit[-1] != '\n')) return NULL;
    snprintf(row, len, "%.*s", (int)strcspn(hit, "\n"), hit);
    return row;
}

// Removes the ours cell's Holm suffix ("; claim p = 0.012, against p = 0.988; Holm p = 0.048
// (claim; 24 comparisons, experiment `exp`)"): the rows below are computed finding by finding;
// test_findings_rules checks the suffix.
static void strip_holm(char *row) {
    char *h = strstr(row, "; claim p ");
    char *end = h ? strstr(h, "`)") : NULL;
    if (end) memmove(h, end + 2, strlen(end + 2) + 1);
}

// Removes the verdict cell's " [caveats: ...]" (checked on their own below).
static void strip_caveats(char *row) {
    char *c = strstr(row, " [caveats: ");
    char *end = c ? strstr(c, "] |") : NULL;
    if (end) memmove(c, end + 1, strlen(end + 1) + 1);
}

static void check_row(const char *out, const char *claim, const char *want) {
    char row[16384], label[300];
    snprintf(label, sizeof label, "findings row exact: %.12s", claim);
    int found = finding_row(out, claim, row, sizeof row) != NULL;
    if (found) strip_holm(row), strip_caveats(row);
    int ok = found && !strcmp(row, want);
    if (ok) test_pass(label, "as computed from the fixture");
    else test_fail(label, "got '%s', want '%s'", found ? row : "(no row)", want);
}

// The case whose claim starts with prefix.
static const finding_case *case_by(const char *prefix) {
    for (int i = 0; i < NCASES; i++)
        if (!strncmp(cases[i].claim, prefix, strlen(prefix))) return &cases[i];
    return &cases[0];
}

// A difference as findings_rules.c shows it: sign, then |v| in percent with 2 decimals.
static void signed_pct(char *out, size_t len, double v) { snprintf(out, len, "%s%.2f", v < 0 ? "-" : "+", 100 * fabs(v)); }

// "Δ +8.00, 90% CI [+5.61, +10.39], p = 0.001" for test t (p for the claim): the 90% interval
// whose bound on the claim's side is the one-sided test's 95% bound.
static void stat_cell(char *out, size_t len, const char *label, const sig_test *t, double p) {
    char e[32], lo[32], hi[32], pt[32];
    signed_pct(e, sizeof e, t->effect), signed_pct(lo, sizeof lo, t->lo90), signed_pct(hi, sizeof hi, t->hi90);
    if (p < 0.001) snprintf(pt, sizeof pt, "p < 0.001");
    else if (p > 0.999) snprintf(pt, sizeof pt, "p > 0.999");
    else snprintf(pt, sizeof pt, "p = %.3f", p);
    snprintf(out, len, "%s %s, 90%% CI [%s, %s], %s", label, e, lo, hi, pt);
}

// Finetune top1 (or pos_top1 when pos) of the done runs with pe p and width d (-1: both).
static int ft_values(int p, int d, int pos, double *v) {
    int n = 0;
    for (int dd = 0; dd < 2; dd++)
        for (int s = 0; s < 3; s++)
            if ((d < 0 || dd == d) && !ft_diverged(dd, p, s)) v[n++] = pos ? 0.3 + 0.01 * s + 0.02 * dd : ft_top1(dd, p, s);
    return n;
}

// "79.35 vs 71.35 (n = 3 vs 3, Δ ..., p = ...)": a greater cell for finetune pe abs vs none at width d.
static void ft_greater_cell(char *out, size_t len, int d) {
    double a[6], b[6];
    int na = ft_values(0, d, 0, a), nb = ft_values(1, d, 0, b);
    sig_test t = sig_welch(a, na, b, nb);
    char ma[32], mb[32], st[256];
    pct(ma, sizeof ma, ft_mean(0, d)), pct(mb, sizeof mb, ft_mean(1, d));
    stat_cell(st, sizeof st, "Δ", &t, t.p);
    snprintf(out, len, "%s vs %s (n = %d vs %d, %s)", ma, mb, na, nb, st);
}

// The mp3 top1 of pe p at eta index e, both seeds (0 when the configuration failed).
static int mp3_values(int e, int p, double *v) {
    if (mp3_failed(e, p)) return 0;
    v[0] = mp3_top1(e, p, 0), v[1] = mp3_top1(e, p, 1);
    return 2;
}

static void test_findings(void) {
    char *out = NULL, *err = NULL;
    int rc = capture(cmd_report, 1, (char *[]){g_dir}, &out, &err);
    test_check("report with findings exit status", rc == 0, "rc %d; stderr: %s", rc, err ? err : "");
    const char *head = "## Findings (experiment `exp`)\n\n| claim | ours | paper | verdict |\n|---|---|---|---|\n";
    char *sec = out ? strstr(out, head) : NULL, *ft = out ? strstr(out, "## stage `finetune`") : NULL;
    test_check("findings section after the stage tables", sec && ft && sec > ft, "%s", sec ? "header as documented" : "no section");
    // the seeds an inconclusive verdict says it needs, from the fixture's values (80% power rule
    // of significance.h, checked against mpmath by test_stats)
    const double pre0[2] = {0.40, 0.41};
    double pm, pv, na_v[6], nb_v[6];
    sig_mean_var(pre0, 2, &pm, &pv);
    int n_one = sig_n_one_sample(pm - 0.40, pv);
    int na = 0, nb = 0;
    for (int s = 0; s < 3; s++) {
        if (!ft_diverged(1, 1, s)) na_v[na++] = 0.3 + 0.01 * s + 0.02;
        nb_v[nb++] = 0.3 + 0.01 * s;
    }
    sig_test g6 = sig_welch(na_v, na, nb_v, nb);
    int n_g6 = sig_n_welch(g6.effect, g6.va, g6.vb);
    test_check("findings fixture: the inconclusive cases are inconclusive by construction", g6.p > 0.05 && g6.effect > 0 && n_one > 2 && n_g6 > 3,
               "G6 p %.3f, seeds needed %d and %d", g6.p, n_one, n_g6);
    int wrong = 0;
    for (int i = 0; i < NCASES; i++) {
        char row[16384], want_end[1200], verdict[1100];
        const char *nat = strstr(cases[i].verdict, "needs N ");
        if (nat) snprintf(verdict, sizeof verdict, "%.*sneeds %d %s", (int)(nat - cases[i].verdict), cases[i].verdict,
                          strstr(cases[i].claim, "G6") == cases[i].claim ? n_g6 : n_one, nat + 8);
        else snprintf(verdict, sizeof verdict, "%s", cases[i].verdict);
        snprintf(want_end, sizeof want_end, " | %s |", verdict);
        int ok = out && finding_row(out, cases[i].claim, row, sizeof row);
        if (ok) strip_caveats(row);
        ok = ok && strlen(row) >= strlen(want_end) && !strcmp(row + strlen(row) - strlen(want_end), want_end);
        if (!ok) test_fail("finding verdict", "%s: want '%s', row: %s", cases[i].claim, verdict, ok || !out ? "" : row), wrong++;
    }
    test_check("findings: every kind both ways (holds, significant against, opposite direction), inconclusive, 1 seed, per, not measured",
               wrong == 0, "%d findings, %d wrong verdicts", NCASES, wrong);
    int rows = 0;
    for (const char *p = sec; p && (p = strstr(p, "\n| ")); p++) rows++;
    test_check("findings: one row per finding", rows == NCASES + 1, "%d rows (header included), want %d", rows, NCASES + 1);
    if (!out) return;

    char a[512], b[512], c[32], d[32], want[4096], curve_abs[256], curve_none[256], st[256], st2[256];
    ft_greater_cell(a, sizeof a, 0), ft_greater_cell(b, sizeof b, 1);
    snprintf(want, sizeof want, "| G5 finetune \\| abs beats none per model.dim | 64: %s; 128: %s | Table 3: 84.0 vs 73.4 | holds |", a, b);
    check_row(out, case_by("G5")->claim, want);
    { // G4: finetune (both widths) vs mp3 (every eta), per pe.kind
        double fa[6], ma[8], fb[6], mb[8];
        int nfa = ft_values(0, -1, 0, fa), nfb = ft_values(1, -1, 0, fb), nma = 0, nmb = 0;
        for (int e = 0; e < 4; e++) nma += mp3_values(e, 0, ma + nma), nmb += mp3_values(e, 1, mb + nmb);
        sig_test t1 = sig_welch(fa, nfa, ma, nma), t2 = sig_welch(fb, nfb, mb, nmb);
        pct(c, sizeof c, ft_mean(0, -1)), pct(d, sizeof d, mp3_mean(-1, 0));
        stat_cell(st, sizeof st, "Δ", &t1, t1.p), stat_cell(st2, sizeof st2, "Δ", &t2, t2.p);
        snprintf(a, sizeof a, "abs: %s vs %s (n = %d vs %d, %s)", c, d, nfa, nma, st);
        pct(c, sizeof c, ft_mean(1, -1)), pct(d, sizeof d, mp3_mean(-1, 1));
        (void)t1, (void)t2, (void)nfb, (void)nmb;
        // configurations are not pooled: finetune abs at width 64 against mp3 abs at eta 0 is one part
        double f64[3], m0[2];
        int nf64 = ft_values(0, 0, 0, f64);
        mp3_values(0, 0, m0);
        sig_test t0 = sig_welch(f64, nf64, m0, 2);
        char c0[32], d0[32], row[16384];
        pct(c0, sizeof c0, ft_mean(0, 0)), pct(d0, sizeof d0, mp3_mean(0, 0));
        stat_cell(st, sizeof st, "Δ", &t0, t0.p);
        snprintf(want, sizeof want, "| %s | abs: configurations not pooled: model.dim=64 vs objective.eta=0, pretrain.objective.eta=0: %s vs %s (n = %d vs 2, %s); ",
                 case_by("G4")->claim, c0, d0, nf64, st);
        int found = finding_row(out, case_by("G4")->claim, row, sizeof row) != NULL;
        test_check("findings row G4: per configuration, the first pair's Welch test", found && !strncmp(row, want, strlen(want)), "got '%.600s', want '%s'",
                   found ? row : "(no row)", want);
    }
    sig_test l1 = sig_one_sample(pre0, 2, 0.40);
    stat_cell(st, sizeof st, "Δ", &l1, l1.p);
    snprintf(want, sizeof want, "| %s | 40.50 (n = 2, %s) (claim ≥ 40.00) |  | inconclusive (seeds not planned: its experiment file states no `effect:` for this finding) |", case_by("L1")->claim, st);
    (void)n_one;
    check_row(out, case_by("L1")->claim, want);
    // peak_inside: the highest inner mean (0.25) against each end, Welch per pair
    double v0[2], v1[2], v3[2];
    mp3_values(0, 0, v0), mp3_values(1, 0, v1), mp3_values(3, 0, v3);
    sig_test pe0 = sig_welch(v1, 2, v0, 2), pe3 = sig_welch(v1, 2, v3, 2);
    stat_cell(st, sizeof st, "Δ", &pe0, pe0.p), stat_cell(st2, sizeof st2, "Δ", &pe3, pe3.p);
    mp3_curve(curve_abs, sizeof curve_abs, 0), mp3_curve(curve_none, sizeof curve_none, 1);
    char peak_abs[1024];
    snprintf(peak_abs, sizeof peak_abs, "%s (peak 0.25 vs 0: n = 2 vs 2, %s; vs 0.75: n = 2 vs 2, %s)", curve_abs, st, st2);
    snprintf(want, sizeof want, "| %s | %s |  | holds |", case_by("P1")->claim, peak_abs);
    check_row(out, case_by("P1")->claim, want);
    double w0[2], w1[2], w2[2];
    mp3_values(0, 1, w0), mp3_values(1, 1, w1), mp3_values(2, 1, w2);
    sig_test qe0 = sig_welch(w1, 2, w0, 2), qe2 = sig_welch(w1, 2, w2, 2); // none: 0.75 failed, so 0.5 is the last end
    stat_cell(st, sizeof st, "Δ", &qe0, qe0.p), stat_cell(st2, sizeof st2, "Δ", &qe2, qe2.p);
    snprintf(want, sizeof want, "| %s | abs: (%s); none: (%s (peak 0.25 vs 0: n = 2 vs 2, %s; vs 0.5: n = 2 vs 2, %s)) |  | %s |",
             case_by("P3")->claim, peak_abs, curve_none, st, st2, case_by("P3")->verdict);
    check_row(out, case_by("P3")->claim, want);
    { // decreasing on a timed metric: per pe.kind (configurations are not pooled), the OLS slope of
      // the runs' /final step times (each run's median step: runs, not steps, are the replicates)
      // on eta, shown times the eta range
        char cells[2][600];
        for (int p = 0; p < 2; p++) {
            double x[128], y[128];
            int n = 0;
            snprintf(cells[p], sizeof cells[p], "pe.kind=%s: (", pes[p]);
            for (int e = 0; e < 4; e++) {
                if (mp3_failed(e, p)) continue;
                double sum = 0;
                int k = 0;
                for (int s2 = 0; s2 < 2; s2++) x[n] = etas[e], y[n] = mp3_step_ms(e, s2), sum += y[n++], k++;
                snprintf(cells[p] + strlen(cells[p]), sizeof cells[p] - strlen(cells[p]), "%s%g: %.1f", e ? ", " : "", etas[e], sum / k);
            }
            sig_test sl = sig_slope(x, y, n);
            double range = p == 0 ? 0.75 : 0.5;
            snprintf(cells[p] + strlen(cells[p]), sizeof cells[p] - strlen(cells[p]),
                     " (n = %d runs; each run's median step time, fitted change over the range %s%.1f, 90%% CI [%s%.1f, %s%.1f], %s))", n,
                     sl.effect < 0 ? "-" : "+", fabs(sl.effect) * range, sl.lo90 < 0 ? "-" : "+", fabs(sl.lo90) * range,
                     sl.hi90 < 0 ? "-" : "+", fabs(sl.hi90) * range, 1 - sl.p < 0.001 ? "p < 0.001" : "p = ?");
        }
        snprintf(want, sizeof want, "| %s | configurations not pooled: %s; %s |  | holds |", case_by("D1")->claim, cells[0], cells[1]);
        check_row(out, case_by("D1")->claim, want);
    }
    pct(a, sizeof a, mp3_mean(-1, -1));
    snprintf(want, sizeof want, "| %s | %s vs — |  | %s |", case_by("N1")->claim, a, case_by("N1")->verdict);
    check_row(out, case_by("N1")->claim, want);
    snprintf(want, sizeof want, "| %s | unpaired: abs (only in a); unpaired: none (only in b) |  | %s |", case_by("N8")->claim, case_by("N8")->verdict);
    check_row(out, case_by("N8")->claim, want);
    char s1[512] = "";
    for (int s = 0; s < 3; s++) {
        pct(c, sizeof c, ft_top1(0, 0, s)), pct(d, sizeof d, ft_top1(0, 1, s));
        snprintf(s1 + strlen(s1), sizeof s1 - strlen(s1), "%s%d: %s vs %s (n = 1 vs 1)", s ? "; " : "", s, c, d);
    }
    snprintf(want, sizeof want, "| %s | %s |  | %s |", case_by("S1")->claim, s1, case_by("S1")->verdict);
    check_row(out, case_by("S1")->claim, want);
    char path[512];
    snprintf(path, sizeof path, "%s/REPORT.md", g_dir);
    char *md = slurp(path);
    test_check("REPORT.md has the findings too", md && !strcmp(md, out), "%zu bytes", md ? strlen(md) : 0);
    free(md), free(out), free(err);
}


static void test_bad_input(void) {
    char missing[300], empty[300], bad[300], path[400];
    snprintf(missing, sizeof missing, "%s/no-such-dir", g_root);
    snprintf(empty, sizeof empty, "%s/empty", g_root);
    snprintf(bad, sizeof bad, "%s/badref", g_root);
    mkdir(empty, 0777), mkdir(bad, 0777);
    expect_status("report missing DIR exits 2", cmd_report, 1, (char *[]){missing}, 2, missing);
    expect_status("report empty DIR exits 2", cmd_report, 1, (char *[]){empty}, 2, "no finished runs");
    expect_status("report no DIR exits 2", cmd_report, 0, (char *[]){NULL}, 2, "needs a results directory");
    expect_status("report bad flag exits 2", cmd_report, 2, (char *[]){g_dir, "--bogus"}, 2, "--bogus");
    // one good run plus a junk .h5: the junk is left out and named; a bad reference.tsv is an error
    char src[512];
    snprintf(src, sizeof src, "%s/exp/pretrain/p%011x.h5", g_dir, 0u);
    snprintf(path, sizeof path, "%s/run.h5", bad);
    char *data = NULL;
    FILE *in = fopen(src, "rb"), *out = fopen(path, "wb");
    if (in && out) {
        data = malloc(1 << 20);
        size_t n = fread(data, 1, 1 << 20, in);
        fwrite(data, 1, n, out);
    }
    if (in) fclose(in);
    if (out) fclose(out);
    free(data);
    snprintf(path, sizeof path, "%s/junk.h5", bad);
    if ((out = fopen(path, "w"))) fputs("junk", out), fclose(out);
    char *o = NULL, *e = NULL;
    int rc = capture(cmd_report, 1, (char *[]){bad}, &o, &e);
    test_check("report leaves out an unreadable file", rc == 0 && o && strstr(o, "junk.h5") && e && strstr(e, "junk.h5"), "exit %d", rc);
    free(o), free(e);
    // malformed findings in an experiment.yaml (below DIR): exit 2 naming file:line:col
    static const struct {
        const char *text, *needle;
    } bad_findings[] = {
        {"name: exp\nfindings: {claim: c}\n", "experiment.yaml:2:11: findings: expected a list of mappings"},
        {"findings: []\n", "experiment.yaml:1:1: an experiment file needs a name"},
        {"name: exp\nfindings:\n  - {claim: c, kind: bigger, a: {stage: pretrain, metric: top1}, value: 0.5}\n",
         "experiment.yaml:3:22: findings: kind 'bigger' is not valid"},
        {"name: exp\nfindings:\n  - {claim: c, kind: at_least, a: {stage: pretrain, metric: top1}, value: high}\n",
         "experiment.yaml:3:75: findings: value must be a number, got 'high'"},
        {"name: exp\nfindings:\n  - {claim: c, kind: at_least, a: {stage: pretrain, match: objective.eta, metric: top1}, value: 0.5}\n",
         "experiment.yaml:3:60: findings: a: match: expected a mapping of config key: value"},
    };
    char sub[320];
    snprintf(sub, sizeof sub, "%.300s/sub", bad);
    mkdir(sub, 0777);
    snprintf(path, sizeof path, "%s/experiment.yaml", sub);
    for (int i = 0; i < (int)(sizeof bad_findings / sizeof bad_findings[0]); i++) {
        if ((out = fopen(path, "w"))) fputs(bad_findings[i].text, out), fclose(out);
        char name[120], needle[500];
        snprintf(name, sizeof name, "report malformed findings %d exits 2", i + 1);
        snprintf(needle, sizeof needle, "%s/%s", sub, bad_findings[i].needle);
        expect_status(name, cmd_report, 1, (char *[]){bad}, 2, needle);
    }
    unlink(path);
    snprintf(path, sizeof path, "%s/reference.tsv", bad);
    if ((out = fopen(path, "w"))) fputs("pretrain\tobjective.eta=0\ttop1\n", out), fclose(out);
    expect_status("report malformed reference.tsv exits 2", cmd_report, 1, (char *[]){bad}, 2, "reference.tsv:1:");
}

int main(void) {
    if (report_runs_setup() != 0) return 1;
    test_reader();
    test_report();
    test_findings();
    test_bad_input();
    report_runs_cleanup();
    return test_exit_code();
}
