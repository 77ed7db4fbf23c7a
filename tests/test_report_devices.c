// tests/test_report_devices.c — the report says which device trained an experiment's runs when
// any was not the CPU (bench/report/caveats.c): step times and memory are that device's, and a
// configuration trains to other numbers on another device. Synthetic run files, one stage.
#include "testing.h"
#include "report_runs.h"
#include "../bench/report/report.h"
#include "../bench/results/results.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void write_run(const char *dir, const char *id, const char *device, long seed) {
    char path[600];
    snprintf(path, sizeof path, "%s/exp/vit/%s.h5", dir, id);
    results *r = results_create(path);
    results_attr_str(r, "/", "experiment", "exp");
    results_attr_str(r, "/", "stage", "vit");
    results_attr_str(r, "/", "run_id", id);
    results_attr_str(r, "/", "status", "done");
    results_attr_str(r, "/", "started", "2026-11-26T00:00:00Z");
    results_attr_int(r, "/", "seed", seed);
    if (device) results_attr_str(r, "/", "device", device);
    results_attr_int(r, "/config", "train.seed", seed);
    results_attr_str(r, "/config", "pe.kind", "abs");
    results_attr_double(r, "/final", "top1", 0.5 + 0.01 * (double)seed);
    if (results_close(r) != 0) test_fail("write a run file", "%s", path);
}

// The report of dir (cmd_report writes dir/REPORT.md; capture, tests/report_runs.c, keeps its
// stdout out of the test's lines); NULL when it failed.
static char *report_of(const char *dir) {
    char *argv[] = {(char *)dir}, *out = NULL, *err = NULL;
    int rc = capture(cmd_report, 1, argv, &out, &err);
    free(out), free(err);
    if (rc != 0) return NULL;
    char path[600];
    snprintf(path, sizeof path, "%s/REPORT.md", dir);
    return slurp(path);
}

static void case_devices(const char *root, const char *name, const char *devices[3], const char *want, int want_caveat) {
    char dir[400], cmd[600];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/exp/vit'", dir);
    if (system(cmd) != 0) {
        test_fail(name, "cannot make %s", dir);
        return;
    }
    for (int s = 0; s < 3; s++) {
        char id[32];
        snprintf(id, sizeof id, "run%d", s);
        write_run(dir, id, devices[s], s);
    }
    char *text = report_of(dir);
    const char *line = text ? strstr(text, "- trained on ") : NULL;
    int ok = text && (want_caveat ? line && strstr(line, want) == line : line == NULL);
    char shown[300] = "";
    if (line) snprintf(shown, sizeof shown, "%.*s", (int)(strchr(line, '\n') ? strchr(line, '\n') - line : 200), line);
    test_check(name, ok, "%s", text ? (line ? shown : "no device caveat") : "report failed");
    free(text);
}

int main(void) {
    char *root = g_root; // capture's stdout/stderr files live there too
    snprintf(g_root, sizeof g_root, "/tmp/posbench-devices.XXXXXX");
    if (!mkdtemp(g_root)) {
        test_fail("temporary directory", "mkdtemp failed");
        return test_exit_code();
    }
    const char *cpu[3] = {"cpu", "cpu-guarded", NULL}; // a file without the attribute is the CPU's
    const char *gpu[3] = {"cuda", "cuda", "cuda"};
    const char *mixed[3] = {"cuda", "cpu", "cuda"};
    case_devices(root, "report: no device caveat when every run trained on the CPU", cpu, "", 0);
    case_devices(root, "report: runs on cuda are named with their count", gpu,
                 "- trained on cuda (3 runs): step times, images/s and memory are each device's", 1);
    case_devices(root, "report: seeds mixing devices are named as such", mixed,
                 "- trained on cuda (2 runs) and cpu (1 run): step times", 1);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (test_exit_code() == 0 && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return test_exit_code();
}
