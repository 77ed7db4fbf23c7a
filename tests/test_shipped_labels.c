// tests/test_shipped_labels.c — every experiment file of the reproduce targets (bench/experiments/
// mp3-*, cape-*, gmlp-*, gvp-*, ssl-*) names its stages and swept keys for people (`labels:`,
// bench/experiment/figure_labels.h), as docs/report.md says: every stage has a title, and every
// key a figure can put in a legend or on an axis has a name: each axis key, unqualified (a
// stage-qualified key "gmlp.model.arch" appears as "model.arch"), and, in a stage that starts
// from another, each of the parent's axis keys as its copy ("pretrain.objective.eta").
#include "testing.h"
#include "../bench/experiment/experiment.h"
#include "../bench/experiment/figure_labels.h"
#include "../bench/experiment/yaml_tree.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHIPPED "bench/experiments"

static experiment E;

static int reproduced(const char *name) {
    const char *prefixes[] = {"mp3-", "cape-", "gmlp-", "gvp-", "ssl-"};
    size_t n = strlen(name);
    if (n < 6 || strcmp(name + n - 5, ".yaml") != 0) return 0;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i]))) return 1;
    return 0;
}

// The key as a legend shows it: without its stage qualifier.
static const char *unqualified(const experiment *e, const exp_axis_key *k) {
    if (k->stage < 0) return k->name;
    size_t n = strlen(e->stage_names[k->stage]);
    return !strncmp(k->name, e->stage_names[k->stage], n) && k->name[n] == '.' ? k->name + n + 1 : k->name;
}

static void check_file(const char *file) {
    char path[512], err[4096], name[700], missing[2048] = "";
    snprintf(path, sizeof path, "%s/%.200s", SHIPPED, file);
    if (experiment_load(&E, path, NULL, err, sizeof err) != 0) {
        snprintf(name, sizeof name, "labels: %.200s loads", file);
        test_check(name, 0, "%s", err);
        return;
    }
    figure_labels l;
    int rc = figure_labels_read(path, ytree_get(E.tree, "labels", NULL), &l, err, sizeof err);
    int stages_named = 0, keys_named = 0, keys = 0;
    for (int s = 0; rc == 0 && s < E.nstages; s++) {
        if (strcmp(figure_labels_stage(&l, E.stage_names[s]), E.stage_names[s]) != 0) stages_named++;
        else snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " stage %s;", E.stage_names[s]);
    }
    for (int a = 0; rc == 0 && a < E.naxes; a++)
        for (int k = 0; k < E.axes[a].nkeys; k++) {
            const exp_axis_key *key = &E.axes[a].keys[k];
            const char *shown = unqualified(&E, key);
            keys++;
            if (figure_labels_key(&l, shown)) keys_named++;
            else snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " key %s;", shown);
            for (int s = 0; s < E.nstages; s++) { // a child stage's legends show the parent's copy
                int parent = E.stage_init[s];
                if (parent < 0 || !(key->stage < 0 || key->stage == parent)) continue;
                char copy[400];
                snprintf(copy, sizeof copy, "%s.%s", E.stage_names[parent], shown);
                keys++;
                if (figure_labels_key(&l, copy)) keys_named++;
                else snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " key %s (in stage %s);", copy,
                              E.stage_names[s]);
            }
        }
    snprintf(name, sizeof name, "labels: %.200s names its stages and the keys its figures show", file);
    test_check(name, rc == 0 && stages_named == E.nstages && keys_named == keys, "%s%d of %d stages, %d of %d keys;%s",
               rc == 0 ? "" : err, stages_named, E.nstages, keys_named, keys, missing[0] ? missing : " none missing");
    experiment_free(&E);
}

int main(void) {
    DIR *d = opendir(SHIPPED);
    if (!d) {
        test_check("labels: " SHIPPED " can be listed", 0, "opendir failed");
        return test_exit_code();
    }
    char names[64][256];
    int n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) && n < 64)
        if (reproduced(ent->d_name)) snprintf(names[n++], sizeof names[0], "%s", ent->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    test_check("labels: the reproduce targets' experiment files are found", n >= 15, "%d files", n);
    for (int i = 0; i < n; i++) check_file(names[i]);
    return test_exit_code();
}
