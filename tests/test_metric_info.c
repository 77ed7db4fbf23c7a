// tests/test_metric_info.c — the metric registry (objectives/metric.h, bench/results/run_metrics.h)
// and the report reading units from the files:
//   - metric_info_match: exact names, '*' prefixes ("top1_rate80"), per-size names ("top1@40");
//   - every objective lists the two metrics its evaluations name (metric_names) in its table;
//   - a run file's /final metric_info round-trips through rr_read and run_metrics_parse;
//   - the report's header, scale and format come from the file's table: a file that declares
//     top1 in "pts" at scale 10 with 1 decimal is shown so; a file without the attribute (an
//     old one) falls back to the built-in tables ("top1 (%)", 100, "%.2f").
#include "testing.h"
#include "../bench/report/stats.h"
#include "../bench/results/results.h"
#include "../bench/results/run_metrics.h"
#include "../objectives/objective.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_match(void) {
    static const metric_info t[] = {{"top1", "%", 100, 1, 1, NULL, 2, 0, 0, METRIC_SAMPLED},
                                    {"top1_rate*", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
                                    {"top1_rate80", "", 1, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
                                    {NULL}};
    test_check("metric_info_match exact", metric_info_match(t, "top1") == &t[0], "top1 not found");
    test_check("metric_info_match per size", metric_info_match(t, "top1@40") == &t[0], "top1@40 not top1");
    test_check("metric_info_match prefix", metric_info_match(t, "top1_rate125") == &t[1], "top1_rate125 not top1_rate*");
    test_check("metric_info_match exact before prefix", metric_info_match(t, "top1_rate80") == &t[2], "top1_rate80");
    test_check("metric_info_match unknown", metric_info_match(t, "top5") == NULL && metric_info_match(t, "top") == NULL, "matched");
}

#define CHECK_NAMES(name)                                                                                               \
    test_check("objective " #name " lists its metrics",                                                                 \
               metric_info_match(objective_##name.metrics, objective_##name.metric_names[0]) &&                         \
                   metric_info_match(objective_##name.metrics, objective_##name.metric_names[1]),                       \
               "%s or %s missing from its metric table", objective_##name.metric_names[0], objective_##name.metric_names[1]);

static void write_run(const char *path, const char *info) {
    results *r = results_create(path);
    results_attr_str(r, "/", "status", "done");
    results_attr_str(r, "/", "stage", "s");
    results_attr_double(r, "/final", "top1", 0.5);
    if (info) results_attr_str(r, "/final", "metric_info", info);
    results_close(r);
}

static void test_file_units(void) {
    char dir[] = "/tmp/posbench-metric-XXXXXX";
    if (!mkdtemp(dir)) {
        test_fail("metric_info files", "mkdtemp failed");
        return;
    }
    char path[400], err[512];
    // a file written by the trainer: the whole table round-trips
    snprintf(path, sizeof path, "%s/a.h5", dir);
    results *r = results_create(path);
    results_attr_double(r, "/final", "top1", 0.5);
    run_metrics_write(r, objective_supervised.metrics);
    results_close(r);
    rr_run run;
    int ok = rr_read(path, RR_ATTRS, &run, err, sizeof err) == 0;
    const rr_attr *a = ok ? rr_attr_get(&run.final, "metric_info") : NULL;
    metric_info *t = a && a->type == 's' ? run_metrics_parse(a->text, err, sizeof err) : NULL;
    const metric_info *m = t ? metric_info_match(t, "flops_per_step") : NULL, *top1 = t ? metric_info_match(t, "top1") : NULL;
    test_check("metric_info round trip", m && !strcmp(m->header, "GFLOP/step") && m->scale == 1e-9 && m->nature == METRIC_EXACT &&
               top1 && top1->higher_is_better == 1 && top1->needs_labels == 1 && !strcmp(top1->unit, "%"),
               "%s", ok ? (a ? "table differs" : "no /final metric_info") : err);
    free(t);
    if (ok) rr_free(&run);
    test_check("metric_info malformed", run_metrics_parse("top1\t%\tx", err, sizeof err) == NULL && strstr(err, "line 1"),
               "accepted");

    // the report reads the file's table ...
    char sub[300];
    snprintf(sub, sizeof sub, "%s/new", dir);
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/r.h5", sub);
    write_run(path, "top1\tpts\t10\t1\t1\t\t1\t0\t0\t0");
    rr_set set;
    if (rr_scan(sub, RR_ATTRS, &set, err, sizeof err) != 0) {
        test_fail("report units from the file", "%s", err);
        return;
    }
    report_metrics_from(&set);
    metric_fmt f = report_metric_format("top1");
    char text[64];
    report_metric_text("top1", 0.5, text, sizeof text);
    test_check("report units from the file", !strcmp(f.header, "top1 (pts)") && f.scale == 10 && !strcmp(text, "5.0"),
               "header '%s' scale %g text '%s'", f.header, f.scale, text);
    rr_set_free(&set);
    // ... and an old file's from the built-in tables
    snprintf(sub, sizeof sub, "%s/old", dir);
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/r.h5", sub);
    write_run(path, NULL);
    if (rr_scan(sub, RR_ATTRS, &set, err, sizeof err) != 0) {
        test_fail("report units of an old file", "%s", err);
        return;
    }
    report_metrics_from(&set);
    f = report_metric_format("top1");
    report_metric_text("top1", 0.5, text, sizeof text);
    test_check("report units of an old file", !strcmp(f.header, "top1 (%)") && f.scale == 100 && !strcmp(text, "50.00"),
               "header '%s' scale %g text '%s'", f.header, f.scale, text);
    test_check("metric nature from the tables", report_metric_nature("params").nature == METRIC_EXACT &&
               report_metric_nature("step_time_ms").nature == METRIC_TIMED && report_metric_nature("top1").nature == METRIC_SAMPLED,
               "natures differ");
    rr_set_free(&set);
    report_metrics_from(NULL);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void) {
    results_process_init();
    test_match();
    OBJECTIVE_KINDS(CHECK_NAMES)
    test_file_units();
    return test_exit_code();
}
