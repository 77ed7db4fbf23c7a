// bench/cli/cmd_export.c — `posbench export DIR [--format csv|json] [--series] [--out FILE]`:
// every run file below DIR that `posbench report` counts as one row (or its series in long form)
// for pandas & co. Tables and formats: bench/results/export.h. Which runs: bench/report/run_select.h
// (unreadable files, damaged done runs, copies and runs of an earlier version of an experiment
// are named on stderr and left out, as report and plot do).
// Exit: 0 written, 1 a write failed, 2 bad input (flags, DIR missing, no run file below it).
#include "cmd_export.h"
#include "../config/config.h"
#include "../results/export.h"
#include "../report/run_select.h"
#include "../results/results_read.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void help(void) {
    printf("usage: posbench export DIR [--format csv|json] [--series] [--varying] [--out FILE]\n"
           "Every run file (*.h5) below DIR that posbench report counts, as one table for pandas, R or a spreadsheet\n"
           "(unreadable files, damaged done runs, copies of a run and runs of an earlier version of the experiment\n"
           "are named on stderr and left out, as report and plot do):\n"
           "  one row per run: run_id, experiment, stage, status, seed, path, every /config key, and every\n"
           "  /final metric under its column name in the report's tables, in the report's unit (\"top1 (%%)\" =\n"
           "  100 x the stored fraction, \"step (ms)\"); boolean keys as true/false\n"
           "  --series          the per-step /train and per-epoch /eval series instead, in long form:\n"
           "                    run_id, series (train/loss, eval/top1, ...), step, epoch, value\n"
           "  --varying         only the /config keys whose value differs between the runs (the fixed columns\n"
           "                    and the metrics stay)\n"
           "  --format F        csv (default; RFC 4180) or json (an array of objects); a non-finite number is an\n"
           "                    empty field / null\n"
           "  --out FILE        write FILE (complete or not at all) instead of standard output\n"
           "Python: python/posbench_results.py's load_runs(DIR) gives the same table as a pandas DataFrame.\n"
           "Parquet is not offered: Debian packages no Parquet library for C (Apache Arrow is not in it).\n");
}

int cmd_export(int argc, char **argv) {
    const char *dir = NULL, *out_path = NULL;
    export_format fmt = EXPORT_CSV;
    int series = 0, varying = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help();
            return 0;
        } else if (!strcmp(a, "--format")) {
            if (!v || (strcmp(v, "csv") && strcmp(v, "json")))
                die_input("export: --format %s (valid: csv, json; parquet: no Parquet library for C is packaged in Debian)",
                          v ? v : "needs a value");
            fmt = !strcmp(v, "json") ? EXPORT_JSON : EXPORT_CSV, i++;
        } else if (!strcmp(a, "--out")) {
            if (!v || !v[0] || v[0] == '-') die_input("export: --out needs a file (got %s)", v ? v : "nothing");
            out_path = v, i++;
        } else if (!strcmp(a, "--series")) {
            series = 1;
        } else if (!strcmp(a, "--varying")) {
            varying = 1;
        } else if (a[0] == '-') {
            const char *valid = "--format csv|json, --series, --varying, --out FILE, --help";
            die_input("export: unknown flag '%s'%s (valid: %s)", a, cfg_flag_hint(a, valid), valid);
        } else if (dir) {
            die_input("export: one results directory only (got '%s' after '%s')", a, dir);
        } else {
            dir = a;
        }
    }
    if (!dir) die_input("export: which results directory? (posbench export DIR)");
    if (series && varying) die_input("export: --varying selects /config columns of the runs table; --series has none (valid: one of them)");
    struct stat st;
    if (stat(dir, &st) != 0) die_input("export: %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) die_input("export: %s is not a directory (posbench export takes a results directory)", dir);
    rr_set set;
    char err[4096];
    // The runs report and plot count, the others named on stderr alike (bench/report/run_select.h).
    if (run_select(dir, series ? RR_ATTRS | RR_SERIES : RR_ATTRS, &set, err, sizeof err) != 0) die_input("export: %s", err);
    if (set.nruns == 0) {
        int read = set.nleft;
        rr_set_free(&set);
        if (read) die_input("export: no run file to export below %s: all %d that were read are left out (see the warnings above)", dir, read);
        die_input("export: no readable run file (*.h5) below %s", dir);
    }
    safe_out file; // --out: written atomically, never through a link or device at the name (core/safe_file.h)
    FILE *out = stdout;
    if (out_path) {
        int src = safe_out_begin(&file, out_path, err, sizeof err);
        if (src != SAFE_OK) {
            rr_set_free(&set);
            die_code(src, "export: --out %s", err);
        }
        out = file.f;
    }
    int rc = series ? export_series(&set, fmt, out) : export_runs(&set, fmt, varying, out);
    int nruns = set.nruns;
    rr_set_free(&set);
    if (out_path) {
        if (rc != 0) {
            safe_out_abort(&file);
            die_fail("export: cannot write %s: %s", out_path, strerror(errno));
        }
        int src = safe_out_commit(&file, err, sizeof err);
        if (src != SAFE_OK) die_code(src, "export: --out %s", err);
        fprintf(stderr, "posbench: export: %d run%s to %s\n", nruns, nruns == 1 ? "" : "s", vis(out_path));
    } else if (rc != 0 || fflush(stdout) != 0) {
        die_fail("export: writing standard output failed: %s", strerror(errno));
    }
    return 0;
}
