// tests/test_run_names.c — the names/ links of bench/run/run_names.h on experiments loaded from
// YAML: names from the axes (zip keys each on their own, a finetune stage's inherited axes) and
// the seed, unsafe characters replaced, over-long names ended by the run id, links that resolve
// to ../<id>.h5, an idempotent rewrite (a right link keeps its inode), stale links removed and
// other files kept. And sweep_yaml (bench/run/sweep.h): the experiment text a sweep's arguments
// give expands to the runs of the equivalent hand-written experiment.
#include "testing.h"
#include "../bench/experiment/experiment.h"
#include "../bench/run/run_names.h"
#include "../bench/run/sweep.h"
#include "../core/common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static experiment E, F; // ~50 KB each: static

static int load_text(experiment *e, const char *dir, const char *file, const char *text, char *err, size_t errlen) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    return experiment_load(e, path, NULL, err, errlen);
}

static const char *name_of(const experiment *e, int i, char *buf, size_t len) {
    run_name(e, i, buf, len);
    return buf;
}

int main(void) {
    char dir[] = "/tmp/posbench-test-names.XXXXXX", err[4096], name[1024];
    if (!mkdtemp(dir)) {
        test_fail("names", "cannot make a temporary directory");
        return test_exit_code();
    }
    char longval[400];
    memset(longval, 'x', 300), longval[300] = 0;
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "name: names\n"
             "stages:\n"
             "  pre: {objective: {name: mp3}, pe: {kind: none}}\n"
             "  fine: {init: pre, pe: {kind: abs}}\n"
             "matrix:\n"
             "  pre.objective.eta: [0.25, 0.5]\n"
             "  data.path: [\"/data/a b\", \".hidden\", \"%s\"]\n"
             "zip:\n"
             "  - {fine.train.lr: [0.001, 0.002], fine.train.epochs: [1, 2]}\n"
             "seeds: [0, 1]\n",
             longval);
    if (load_text(&E, dir, "names.yaml", yaml, err, sizeof err) != 0) {
        test_fail("names: the experiment loads", "%s", err);
        return test_exit_code();
    }
    test_check("names: axes then the seed; '/' and ' ' in a value become '_'", !strcmp(name_of(&E, 0, name, sizeof name), "pre.objective.eta=0.25,data.path=_data_a_b,seed=0"),
               "run 0 (%s): %s", E.runs[0].stage, name);
    int fine = -1, longest = -1;
    for (int i = 0; i < E.nruns; i++) {
        run_name(&E, i, name, sizeof name);
        if (fine < 0 && !strcmp(E.runs[i].stage, "fine")) fine = i;
        if (longest < 0 && strstr(name, "xxxxxxxxxx")) longest = i;
    }
    name_of(&E, fine, name, sizeof name);
    test_check("names: a finetune run has its inherited axes and each zip key",
               strstr(name, "pre.objective.eta=0.25") && strstr(name, "fine.train.lr=0.001") && strstr(name, "fine.train.epochs=1") &&
                   strstr(name, ",seed=0"), "%s", name);

    char out[600], stage_names[700], link[4096], target[64];
    snprintf(out, sizeof out, "%s/out", dir);
    int rc = run_names_write(&E, out, err, sizeof err);
    snprintf(stage_names, sizeof stage_names, "%s/names/pre/names", out);
    int links = 0, resolve_ok = 1, long_ok = 0;
    for (int i = 0; i < E.nruns; i++) {
        char n2[1024], path[1000];
        run_name(&E, i, n2, sizeof n2);
        snprintf(path, sizeof path, "%s/names/%s/names", out, E.runs[i].stage);
        // the file name: the rules' name, or it cut at 200 bytes and ended by ~<run id>
        snprintf(link, sizeof link, "%s/%s", path, n2);
        if (strlen(n2) > 200) {
            snprintf(link, sizeof link, "%s/%.200s~%s", path, n2, E.runs[i].run_id);
            struct stat st;
            if (i == longest) long_ok = lstat(link, &st) == 0 && S_ISLNK(st.st_mode);
        }
        ssize_t n = readlink(link, target, sizeof target - 1);
        char want[64];
        snprintf(want, sizeof want, "../%s.h5", E.runs[i].run_id);
        if (n > 0) target[n] = 0, links++;
        if (n <= 0 || strcmp(target, want)) resolve_ok = 0;
    }
    test_check("names/: one link per run, <stage>/names/<name> -> ../<run-id>.h5", rc == 0 && resolve_ok && links == E.nruns,
               "%d of %d links right%s%s", links, E.nruns, rc ? ": " : "", rc ? err : "");
    test_check("names/: a name over 200 bytes ends in ~<run-id>", long_ok, "run %d", longest);

    // A run file in place: its link resolves.
    char h5[4096];
    snprintf(h5, sizeof h5, "%s/names/pre/%s.h5", out, E.runs[0].run_id);
    FILE *f = fopen(h5, "w");
    if (f) fclose(f);
    run_name(&E, 0, name, sizeof name);
    snprintf(link, sizeof link, "%s/%s", stage_names, name);
    struct stat st1, st2;
    test_check("names/: a link resolves to its run's file once it exists", stat(link, &st1) == 0 && S_ISREG(st1.st_mode), "%s", link);
    // Idempotent: the same link (inode) after a second write; a stale link goes, a file stays.
    lstat(link, &st1);
    char stale[4096], notes[4096];
    snprintf(stale, sizeof stale, "%s/old-name", stage_names);
    snprintf(notes, sizeof notes, "%s/notes.txt", stage_names);
    int made = symlink("../000000000000.h5", stale) == 0;
    f = fopen(notes, "w");
    if (f) fclose(f);
    rc = run_names_write(&E, out, err, sizeof err);
    int same = lstat(link, &st2) == 0 && st1.st_ino == st2.st_ino;
    struct stat st3;
    test_check("names/: rewriting keeps a right link (same inode), removes a stale link, keeps other files",
               rc == 0 && made && same && lstat(stale, &st3) != 0 && access(notes, F_OK) == 0, "inode %s, stale link %s",
               same ? "kept" : "changed", lstat(stale, &st3) != 0 ? "removed" : "still there");
    // A link pointing elsewhere is put right.
    unlink(link);
    made = symlink("../ffffffffffff.h5", link) == 0;
    rc = run_names_write(&E, out, err, sizeof err);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 0) target[n] = 0;
    char want[64];
    snprintf(want, sizeof want, "../%s.h5", E.runs[0].run_id);
    test_check("names/: a wrong link is replaced", rc == 0 && made && n > 0 && !strcmp(target, want), "%s", n > 0 ? target : "none");
    experiment_free(&E);

    // sweep_yaml: the arguments' experiment = a hand-written one, run for run.
    char *args[] = {"model.patch=4,7", "pe.kind=abs,none", "seeds=0..1", "model.dim=64", "model.depth=1..2"};
    char *text = sweep_yaml(args, 5, "sw", "posbench sweep (test)");
    rc = load_text(&E, dir, "sweep.yaml", text, err, sizeof err);
    free(text);
    int rc2 = load_text(&F, dir, "hand.yaml",
                        "name: hand\nbase: {model: {dim: 64}}\nmatrix:\n  model.patch: [4, 7]\n  pe.kind: [abs, none]\n"
                        "  model.depth: [1, 2]\nseeds: [0, 1]\n", err, sizeof err);
    int same_runs = rc == 0 && rc2 == 0 && E.nruns == F.nruns && E.nruns == 16;
    for (int i = 0; same_runs && i < E.nruns; i++) same_runs = !strcmp(E.runs[i].run_id, F.runs[i].run_id);
    test_check("sweep_yaml: key=a,b, key=a..b and seeds=0..1 expand to the hand-written experiment's runs, in order", same_runs,
               "%d vs %d runs%s%s", rc == 0 ? E.nruns : -1, rc2 == 0 ? F.nruns : -1, rc || rc2 ? ": " : "", rc || rc2 ? err : "");
    experiment_free(&E);
    experiment_free(&F);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return test_exit_code();
}
