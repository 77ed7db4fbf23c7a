// bench/report/report_index.c — `posbench report --index DIR` (contract in report_index.h): each
// source subfolder's runs read and screened as `posbench report` reads them, its findings
// evaluated (findings_report_rows), then the summary and the side-by-side findings tables
// written as DIR/REPORT.md and DIR/REPORT.html.
#include "report_index.h"
#include "caveats.h"
#include "findings.h"
#include "report_formats.h"
#include "report_html.h"
#include "report_table.h"
#include "run_select.h"
#include "stats.h"
#include "../results/results_read.h"
#include "../../core/common.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INDEX_MAX_SOURCES 64
#define INDEX_TIMES "reproduce-times.tsv"

// One source: its name (the subfolder), what was counted and its findings by verdict.
typedef struct {
    char name[128];
    int nruns, nexperiments;
    char experiments[1024]; // "`mp3-main`, `mp3-patch`"
    int count[4];           // by finding_verdict
    char *md;               // its findings tables (Markdown; NULL: no run files)
    const index_time *time; // its measured time (NULL: none recorded)
    double cpu_s;           // the CPU time its done runs recorded (root cpu_run_s), summed
    int cpu_runs, done_runs; // done runs that recorded it, done runs
} index_source;

int report_index_time_parse(const char *line, index_time *t, char *why, size_t len) {
    char copy[512];
    if (strlen(line) >= sizeof copy) {
        snprintf(why, len, "line longer than %zu characters", sizeof copy - 1);
        return -1;
    }
    snprintf(copy, sizeof copy, "%s", line);
    char *field[6] = {0}, *p = copy;
    int n = 0;
    for (char *tok; n < 6 && (tok = strsep(&p, "\t")) != NULL;) field[n++] = tok;
    if (n != 5 || p) {
        snprintf(why, len, "%d tab-separated fields (valid: source, scale, device, seconds, exit)", n + (p ? 1 : 0));
        return -1;
    }
    for (int k = 0; k < 3; k++)
        if (!field[k][0] || strlen(field[k]) >= (k == 0 ? sizeof t->source : sizeof t->scale)) {
            snprintf(why, len, "field %d ('%.40s') is empty or too long (valid: source, scale, device, seconds, exit)", k + 1, field[k]);
            return -1;
        }
    char *end;
    errno = 0;
    long s = strtol(field[3], &end, 10);
    if (end == field[3] || *end || errno || s < 0) {
        snprintf(why, len, "seconds '%.40s' is not a whole number >= 0", field[3]);
        return -1;
    }
    if (strcmp(field[4], "0") && strcmp(field[4], "1") && strcmp(field[4], "2")) {
        snprintf(why, len, "exit '%.40s' (valid: 0, 1, 2)", field[4]);
        return -1;
    }
    snprintf(t->source, sizeof t->source, "%s", field[0]);
    snprintf(t->scale, sizeof t->scale, "%s", field[1]);
    snprintf(t->device, sizeof t->device, "%s", field[2]);
    t->seconds = s, t->exit_status = field[4][0] - '0';
    return 0;
}

// DIR/reproduce-times.tsv into times[*n] (absent: 0 lines). 0, or -1 with FILE:LINE in err.
static int load_times(const char *dir, index_time *times, int *n, char *err, size_t len) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, INDEX_TIMES);
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return 0;
        snprintf(err, len, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char line[600], why[300];
    for (int lineno = 1; fgets(line, sizeof line, f); lineno++) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#') continue;
        index_time t;
        if (report_index_time_parse(line, &t, why, sizeof why) != 0) {
            snprintf(err, len, "%.3900s:%d: %s", path, lineno, why);
            fclose(f);
            return -1;
        }
        int k = 0;
        while (k < *n && strcmp(times[k].source, t.source)) k++;
        if (k == *n && *n == INDEX_MAX_SOURCES) {
            snprintf(err, len, "%s:%d: more than %d sources", path, lineno, INDEX_MAX_SOURCES);
            fclose(f);
            return -1;
        }
        times[k] = t; // a later line for a source replaces an earlier one
        if (k == *n) (*n)++;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, len, "cannot read %s", path);
        return -1;
    }
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

// The subfolders of dir (not dot entries, not symlinks), sorted, into names[*n] (malloc'd each).
static int list_sources(const char *dir, char **names, int *n, char *err, size_t len) {
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, len, "cannot read the results folder %s: %s", dir, strerror(errno));
        return -1;
    }
    *n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char path[4400];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        if (*n == INDEX_MAX_SOURCES || strlen(e->d_name) >= sizeof((index_source *)0)->name) {
            snprintf(err, len, "%s: more than %d subfolders, or a name over 127 characters (%s)", dir, INDEX_MAX_SOURCES, e->d_name);
            closedir(d);
            for (int k = 0; k < *n; k++) free(names[k]);
            return -1;
        }
        names[(*n)++] = xstrdup(e->d_name, "index source");
    }
    closedir(d);
    qsort(names, (size_t)*n, sizeof *names, by_name);
    return 0;
}

// Reads source s (DIR/<name>) as `posbench report` does and evaluates its findings. 0 (s->md
// NULL when it has no run files), or -1 with err (a malformed experiment copy).
static int read_source(const char *dir, index_source *s, char *err, size_t len) {
    char sub[4400];
    snprintf(sub, sizeof sub, "%s/%s", dir, s->name);
    rr_set set;
    if (run_select(sub, RR_ATTRS, &set, err, len) != 0) return -1; // the runs report counts (run_select.h)
    report_metrics_from(&set);
    s->nruns = set.nruns;
    for (int k = 0; k < set.nruns; k++) { // the CPU time its runs took, as each run's file recorded it
        const rr_run *r = &set.runs[k];
        if (strcmp(rr_run_status(r), "done")) continue;
        s->done_runs++;
        const rr_attr *cpu = rr_attr_get(&r->root, "cpu_run_s");
        if (cpu && cpu->is_num && isfinite(cpu->num) && cpu->num >= 0.0) s->cpu_s += cpu->num, s->cpu_runs++;
    }
    if (set.nruns == 0) {
        rr_set_free(&set);
        return 0;
    }
    for (int k = 0; k < set.nstages; k++) { // its experiments, in stage order, once each
        const char *x = set.stages[k].experiment;
        int seen = !x[0];
        for (int q = 0; q < k && !seen; q++) seen = !strcmp(set.stages[q].experiment, x);
        if (seen) continue;
        size_t at = strlen(s->experiments);
        snprintf(s->experiments + at, sizeof s->experiments - at, "%s`%s`", s->nexperiments ? ", " : "", x);
        s->nexperiments++;
    }
    if (caveats_load(sub, &set, err, len) != 0) {
        rr_set_free(&set);
        return -1;
    }
    char *own_md = NULL;
    finding_row *rows = NULL;
    int nrows = 0;
    int rc = findings_report_rows(&set, sub, &own_md, &rows, &nrows, err, len);
    caveats_free();
    free(own_md);
    rr_set_free(&set);
    if (rc != 0) return -1;
    char *md = NULL;
    size_t mdn = 0;
    FILE *f = open_memstream(&md, &mdn);
    if (!f) die_fail("report --index: cannot open a memory stream: %s", strerror(errno));
    if (nrows) fputs("| claim | ours | paper | verdict |\n|---|---|---|---|\n", f);
    for (int r = 0; r < nrows; r++) {
        char claim[4096];
        snprintf(claim, sizeof claim, "`%s`: %s", rows[r].experiment, rows[r].claim);
        fputc('|', f);
        rt_md_cell(f, claim), rt_md_cell(f, rows[r].ours), rt_md_cell(f, rows[r].paper),
            rt_md_cell(f, rows[r].verdict);
        fputc('\n', f);
        s->count[rows[r].v]++;
    }
    if (!nrows) fputs("No findings: its experiment files state no claims to check.\n", f);
    if (fclose(f) != 0) die_fail("report --index: cannot build the index: %s", strerror(errno));
    finding_rows_free(rows, nrows);
    s->md = md;
    return 0;
}

// "1 h 02 min", "3 min 05 s", "42 s".
static void duration_text(long s, char *out, size_t len) {
    if (s >= 3600) snprintf(out, len, "%ld h %02ld min", s / 3600, s % 3600 / 60);
    else if (s >= 60) snprintf(out, len, "%ld min %02ld s", s / 60, s % 60);
    else snprintf(out, len, "%ld s", s);
}

// Does DIR/<source>/<file> exist?
static int has_file(const char *dir, const char *source, const char *file) {
    char path[4600];
    snprintf(path, sizeof path, "%s/%s/%s", dir, source, file);
    return access(path, R_OK) == 0;
}

static void write_markdown(FILE *f, const char *dir, index_source *src, int n, int ntimes) {
    int total[4] = {0}, with_runs = 0;
    long seconds = 0;
    double cpu_s = 0.0;
    int cpu_runs = 0;
    for (int k = 0; k < n; k++) {
        cpu_s += src[k].cpu_s, cpu_runs += src[k].cpu_runs;
        for (int v = 0; v < 4; v++) total[v] += src[k].count[v];
        with_runs += src[k].md != NULL;
        if (src[k].time) seconds += src[k].time->seconds;
    }
    int nf = total[0] + total[1] + total[2] + total[3];
    fprintf(f, "# Every source's verdicts\n\n"
               "Index of `%s`: %d source%s with run files, %d finding%s: %d hold%s, %d %s not hold, %d inconclusive, %d not "
               "measured. Each source's own report (linked) has its tables, figures and caveats; the verdicts below are "
               "the same evaluation over the same runs (`posbench report --index %s` wrote this page).\n\n",
            dir, with_runs, with_runs == 1 ? "" : "s", nf, nf == 1 ? "" : "s", total[FINDING_HOLDS],
            total[FINDING_HOLDS] == 1 ? "s" : "", total[FINDING_FAILS], total[FINDING_FAILS] == 1 ? "does" : "do",
            total[FINDING_INCONCLUSIVE], total[FINDING_NOT_MEASURED], dir);
    fprintf(f, "| source | experiments | runs | holds | does not hold | inconclusive | not measured | wall time | CPU time of its runs | report |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < n; k++) {
        const index_source *s = &src[k];
        char when[160] = "—", dur[48];
        if (s->time) {
            duration_text(s->time->seconds, dur, sizeof dur);
            snprintf(when, sizeof when, "%s (%s, %s%s)", dur, s->time->scale, s->time->device,
                     s->time->exit_status ? s->time->exit_status == 2 ? ", refused" : ", a run failed" : "");
        }
        if (!s->md) {
            fprintf(f, "| %s | — | 0 | — | — | — | — | %s | — | not run (no run files) |\n", s->name, when);
            continue;
        }
        char report[600] = "";
        if (has_file(dir, s->name, "REPORT.md")) snprintf(report, sizeof report, "[REPORT.md](%s/REPORT.md)", s->name);
        if (has_file(dir, s->name, "REPORT.html")) {
            size_t at = strlen(report);
            snprintf(report + at, sizeof report - at, "%s[REPORT.html](%s/REPORT.html)", at ? ", " : "", s->name);
        }
        if (!report[0]) snprintf(report, sizeof report, "none yet (`posbench report %s/%s`)", dir, s->name);
        char cpu[160] = "—";
        if (s->cpu_runs) {
            duration_text(lround(s->cpu_s), dur, sizeof dur);
            if (s->cpu_runs == s->done_runs) snprintf(cpu, sizeof cpu, "%s", dur);
            else snprintf(cpu, sizeof cpu, "%s (%d of %d done runs recorded it)", dur, s->cpu_runs, s->done_runs);
        }
        fprintf(f, "| %s | %s | %d | %d | %d | %d | %d | %s | %s | %s |\n", s->name, s->experiments, s->nruns,
                s->count[FINDING_HOLDS], s->count[FINDING_FAILS], s->count[FINDING_INCONCLUSIVE],
                s->count[FINDING_NOT_MEASURED], when, cpu, report);
    }
    if (ntimes) {
        char dur[48];
        duration_text(seconds, dur, sizeof dur);
        fprintf(f, "\nWall time: each source's reproduce step as `make reproduce-all` measured it (%s); %s in all.\n",
                INDEX_TIMES, dur);
    }
    if (cpu_runs) {
        char dur[48];
        duration_text(lround(cpu_s), dur, sizeof dur);
        fprintf(f, "%sCPU time of its runs: the CPU time each done run's process spent, training and evaluating, as its "
                   "file records it (the scheduler's account, root `cpu_run_s`, kept across resumes), summed; %s in all "
                   "over %d run%s. It does not grow with a machine's load, unlike the wall time: on N cores, with N "
                   "runs at a time (`JOBS=N`), the wall time is at least this divided by N.\n",
                ntimes ? "" : "\n", dur, cpu_runs, cpu_runs == 1 ? "" : "s");
    }
    fputc('\n', f);
    for (int k = 0; k < n; k++)
        if (src[k].md) fprintf(f, "## %s\n\n%s\n", src[k].name, src[k].md);
}

int report_index(const char *dir) {
    char err[4400];
    char *names[INDEX_MAX_SOURCES];
    int n = 0, ntimes = 0;
    static index_time times[INDEX_MAX_SOURCES];
    if (list_sources(dir, names, &n, err, sizeof err) != 0 || load_times(dir, times, &ntimes, err, sizeof err) != 0) {
        error_msg("report --index: %s", err);
        if (n) for (int k = 0; k < n; k++) free(names[k]);
        return EXIT_BAD_INPUT;
    }
    index_source *src = xcalloc((size_t)n + 1, sizeof *src, "index sources");
    int with_runs = 0, rc = 0;
    for (int k = 0; k < n && rc == 0; k++) {
        snprintf(src[k].name, sizeof src[k].name, "%s", names[k]);
        for (int t = 0; t < ntimes; t++)
            if (!strcmp(times[t].source, names[k])) src[k].time = &times[t];
        if (read_source(dir, &src[k], err, sizeof err) != 0) {
            error_msg("report --index: source %s: %s", names[k], err);
            rc = EXIT_BAD_INPUT;
        }
        with_runs += src[k].md != NULL;
    }
    if (rc == 0 && !with_runs) {
        error_msg("report --index: no subfolder of %s holds run files (a source is a folder such as "
                        "results/mp3 that make reproduce-<source> or posbench run --out wrote)", dir);
        rc = EXIT_BAD_INPUT;
    }
    if (rc == 0) {
        char *md = NULL;
        size_t mdn = 0;
        FILE *f = open_memstream(&md, &mdn);
        if (!f) die_fail("report --index: cannot open a memory stream: %s", strerror(errno));
        write_markdown(f, dir, src, n, ntimes);
        if (fclose(f) != 0) die_fail("report --index: cannot build the index: %s", strerror(errno));
        fwrite(md, 1, mdn, stdout);
        fflush(stdout);
        char path[4200];
        snprintf(path, sizeof path, "%s/REPORT.md", dir);
        if (report_write_file(path, md, mdn) != 0 || report_html_write_page(dir, md, "posbench index") != 0) rc = EXIT_RUN_FAILED;
        free(md);
    }
    for (int k = 0; k < n; k++) free(names[k]), free(src[k].md);
    free(src);
    return rc;
}
