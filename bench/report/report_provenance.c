// bench/report/report_provenance.c — the block REPORT.md opens with (report_provenance.h): the
// scale, commits, devices and CPU models, dates and commands of the counted runs, and the verdicts.
#include "report_provenance.h"
#include "caveats.h"
#include "../text/markdown_text.h"
#include "../../core/visible_text.h"
#include "../../core/common.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void report_shell_word(FILE *out, const char *w) {
    if (w[0] && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%") == strlen(w)) {
        fputs(w, out);
        return;
    }
    int plain = 1; // printable UTF-8 only: '...'; else bash's $'...' with \xNN, one line whatever the bytes
    for (const unsigned char *p = (const unsigned char *)w; *p && plain; p += plain) {
        plain = text_char_length(p);
        if (plain == 1 && (*p < 0x20 || *p == 0x7f)) plain = 0;
    }
    if (!plain) {
        fputs("$'", out);
        for (const unsigned char *p = (const unsigned char *)w; *p;) {
            int n = text_char_length(p);
            if (*p == '\'' || *p == '\\') fputc('\\', out), fputc(*p, out), p++;
            else if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) fprintf(out, "\\x%02x", *p), p++;
            else fwrite(p, 1, (size_t)n, out), p += n;
        }
        fputc('\'', out);
        return;
    }
    fputc('\'', out);
    for (const char *p = w; *p; p++) {
        if (*p == '\'') fputs("'\\''", out);
        else fputc(*p, out);
    }
    fputc('\'', out);
}

// Distinct values (with counts) of a text of each run, in order of first appearance.
typedef struct {
    char **values;
    int *counts, n;
} tally;

static void tally_add(tally *t, const char *v) {
    for (int k = 0; k < t->n; k++)
        if (!strcmp(t->values[k], v)) {
            t->counts[k]++;
            return;
        }
    char **vs = realloc(t->values, (size_t)(t->n + 1) * sizeof *vs);
    int *cs = vs ? realloc(t->counts, (size_t)(t->n + 1) * sizeof *cs) : NULL;
    if (!vs || !cs) die_fail("out of memory building the report");
    t->values = vs, t->counts = cs;
    t->values[t->n] = xstrdup(v, "report"), t->counts[t->n++] = 1;
}

static void tally_free(tally *t) {
    for (int k = 0; k < t->n; k++) free(t->values[k]);
    free(t->values), free(t->counts);
}

static void tally_print(FILE *out, const tally *t) {
    for (int k = 0; k < t->n; k++)
        fputs(k ? ", `" : "`", out), md_code(out, t->values[k]), fprintf(out, "` (%d run%s)", t->counts[k], t->counts[k] == 1 ? "" : "s");
}

// The scale of run r (root attr scale; older files do not record it).
static const char *run_scale(const rr_run *r) { return rr_attr_text(&r->root, "scale", "not recorded"); }

int report_run_commands(const rr_set *set, const char *dir, char **text, int *untracked) {
    size_t n = 0;
    *text = NULL;
    FILE *out = open_memstream(text, &n);
    if (!out) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    int lines = 0;
    *untracked = 0;
    for (int s = 0; s < set->nstages; s++) {
        const char *exp = set->stages[s].experiment;
        int first = 1;
        for (int q = 0; q < s && first; q++) first = strcmp(set->stages[q].experiment, exp) != 0;
        if (!first) continue;
        if (!exp[0]) {
            *untracked += set->stages[s].nruns;
            continue;
        }
        size_t len = strlen(dir) + strlen(exp) + 32;
        char *copy = xmalloc(len, "path"), *outdir = xstrdup(dir, "path");
        snprintf(copy, len, "%s/%s/experiment.yaml", dir, exp);
        if (access(copy, R_OK) != 0) { // DIR is the experiment's own folder: --out is its parent
            snprintf(copy, len, "%s/experiment.yaml", dir);
            char *slash = strrchr(outdir, '/');
            if (slash) *slash = '\0';
            else snprintf(outdir, strlen(dir) + 1, ".");
        }
        if (access(copy, R_OK) == 0) {
            tally scales = {0};
            for (int q = s; q < set->nstages; q++) // every scale the experiment's runs were run at
                if (!strcmp(set->stages[q].experiment, exp))
                    for (int i = 0; i < set->stages[q].nruns; i++) tally_add(&scales, run_scale(&set->runs[set->stages[q].runs[i]]));
            for (int k = 0; k < scales.n; k++, lines++) {
                fputs("posbench run ", out), report_shell_word(out, copy);
                const char *sc = scales.values[k];
                if (strcmp(sc, "small") && strcmp(sc, "not recorded")) fputs(" --scale ", out), report_shell_word(out, sc);
                fputs(" --out ", out), report_shell_word(out, outdir);
                if (!strcmp(sc, "not recorded")) fputs("  # the scale of these runs is not recorded: add --scale if it was not small", out);
                fputc('\n', out);
            }
            tally_free(&scales);
        }
        free(copy), free(outdir);
    }
    if (fclose(out) != 0) die_fail("report: cannot build the commands: %s", strerror(errno));
    return lines;
}

static const char *verdict_plural(finding_verdict v, int n) {
    if (v == FINDING_HOLDS) return n == 1 ? "holds" : "hold";
    if (v == FINDING_FAILS) return n == 1 ? "does not hold" : "do not hold";
    return v == FINDING_INCONCLUSIVE ? "inconclusive" : "not measured";
}

char *report_head_markdown(const rr_set *set, const char *dir, const finding_row *rows, int nrows) {
    char *md = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&md, &n);
    if (!out) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    tally scales = {0}, commits = {0}, devices = {0};
    const char *first = NULL, *last = NULL;
    for (int r = 0; r < set->nruns; r++) {
        const rr_run *run = &set->runs[r];
        tally_add(&scales, run_scale(run));
        tally_add(&commits, rr_attr_text(&run->root, "git_commit", "not recorded"));
        const char *dev = rr_attr_text(&run->root, "device", "cpu");
        char d[600];
        if (!strncmp(dev, "cpu", 3)) snprintf(d, sizeof d, "cpu, %s", rr_attr_text(&run->root, "cpu_model", "CPU model not recorded"));
        else snprintf(d, sizeof d, "%s", dev);
        tally_add(&devices, d);
        const char *st = rr_attr_text(&run->root, "started", ""), *fin = rr_attr_text(&run->root, "finished", st);
        if (st[0] && (!first || strcmp(st, first) < 0)) first = st;
        if (fin[0] && (!last || strcmp(fin, last) > 0)) last = fin;
    }
    int smoke = 0;
    for (int k = 0; k < scales.n; k++) smoke |= !strcmp(scales.values[k], "smoke");
    fprintf(out, "# posbench report%s\n\n", smoke ? " — smoke scale: its numbers say nothing about the papers (a check that the "
                                                    "pipeline runs: a few updates on a few images)"
                                                  : "");
    fputs("`", out), md_code(out, dir);
    fprintf(out, "`: %d run%s in %d stage%s.\n\n## Provenance\n\n", set->nruns, set->nruns == 1 ? "" : "s", set->nstages,
            set->nstages == 1 ? "" : "s");
    fputs("- scale: ", out), tally_print(out, &scales);
    fputs(" (`posbench run --scale`; small: the experiments' base config)\n- commits the runs were trained with: ", out);
    tally_print(out, &commits);
    fputs("\n- devices and CPU models: ", out), tally_print(out, &devices);
    fputs("\n- dates: ", out), md_text(out, first ? first : "not recorded"), fputs(" to ", out);
    md_text(out, last ? last : "not recorded"), fputs(" (the first run's start, the last run's end)\n", out);
    int *all = xmalloc(((size_t)set->nruns + 1) * sizeof *all, "provenance");
    for (int r = 0; r < set->nruns; r++) all[r] = r;
    char wait[600];
    caveats_cpu_wait_text(set, all, set->nruns, wait, sizeof wait);
    free(all);
    fputs("- CPU contention: ", out), md_text(out, wait[0] ? wait : "not recorded by these run files");
    fputs(" (the scheduler's account, root cpu_run_s and cpu_wait_s)\n", out);
    char *cmds;
    int untracked, ncmd = report_run_commands(set, dir, &cmds, &untracked);
    fputs("\nThe commands that made this report (the experiment files are the copies `posbench run` kept):\n\n", out);
    for (char *line = cmds; ncmd > 0 && line && *line;) { // one list item per line
        char *nl = strchr(line, '\n');
        int n = nl ? (int)(nl - line) : (int)strlen(line);
        char *one = xmalloc((size_t)n + 1, "command");
        memcpy(one, line, (size_t)n), one[n] = '\0';
        fputs("- `", out), md_code(out, one), fputs("`\n", out);
        free(one);
        line = nl ? nl + 1 : NULL;
    }
    if (untracked) fprintf(out, "- %d run%s without an experiment (`posbench train`): each file's /config holds its settings\n", untracked,
                           untracked == 1 ? "" : "s");
    char *word = NULL;
    size_t wlen = 0;
    FILE *wf = open_memstream(&word, &wlen);
    if (!wf) die_fail("report: cannot open a memory stream");
    report_shell_word(wf, dir);
    if (fclose(wf) != 0) die_fail("report: cannot build the provenance");
    fputs("- `posbench report ", out), md_code(out, word), fputs("`\n", out);
    free(word);
    free(cmds);
    int count[4] = {0};
    for (int i = 0; i < nrows; i++) count[rows[i].v]++;
    static const finding_verdict order[4] = {FINDING_HOLDS, FINDING_FAILS, FINDING_INCONCLUSIVE, FINDING_NOT_MEASURED};
    fputs("\nVerdicts: ", out);
    if (nrows == 0) fputs("no findings.\n", out);
    else {
        for (int k = 0, shown = 0; k < 4; k++) // the verdicts that occur, in this order
            if (count[order[k]]) fprintf(out, "%s%d %s", shown++ ? ", " : "", count[order[k]], verdict_plural(order[k], count[order[k]]));
        fprintf(out, " (%d finding%s; their rows below say why).\n\n", nrows, nrows == 1 ? "" : "s");
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < nrows; i++)
                if (rows[i].v == order[k]) {
                    fprintf(out, "- %s: ", verdict_plural(order[k], 1));
                    md_cell(out, rows[i].claim); // one line (bench/text/markdown_text.h)
                    fputs(" (experiment `", out), md_code(out, rows[i].experiment), fputs("`)\n", out);
                }
    }
    fputc('\n', out);
    tally_free(&scales), tally_free(&commits), tally_free(&devices);
    if (fclose(out) != 0) die_fail("report: cannot build the provenance block: %s", strerror(errno));
    return md;
}
