// bench/run/run_names.c — the names/ folders of readable links to run files (rules in run_names.h).
#include "run_names.h"
#include "../experiment/experiment.h"
#include "../../core/common.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { NAME_MAX_BYTES = 200 };

// Appends text to buf (used bytes in *used) with every unsafe character replaced by '_'.
static void append_safe(char *buf, size_t len, size_t *used, const char *text) {
    for (const char *p = text; *p && *used + 1 < len; p++) {
        unsigned char c = (unsigned char)*p;
        int safe = isalnum(c) || strchr(".,=+-_", c);
        buf[(*used)++] = (char)(safe ? c : '_');
    }
    buf[*used] = 0;
}

void run_name(const experiment *e, int i, char *buf, size_t len) {
    const exp_run *r = &e->runs[i];
    size_t used = 0;
    buf[0] = 0;
    for (int a = 0; a < e->naxes; a++) {
        int v = r->axis_value[a];
        if (v < 0) continue; // not an axis of this run's stage
        const exp_axis *ax = &e->axes[a];
        for (int k = 0; k < ax->nkeys; k++) {
            if (used) append_safe(buf, len, &used, ",");
            append_safe(buf, len, &used, ax->keys[k].name);
            append_safe(buf, len, &used, "=");
            append_safe(buf, len, &used, ax->text[v * ax->nkeys + k]);
        }
    }
    char seed[48];
    snprintf(seed, sizeof seed, "%sseed=%ld", used ? "," : "", r->seed);
    append_safe(buf, len, &used, seed);
    if (buf[0] == '.') buf[0] = '_';
}

// Is names/<name> a link to target already?
static int link_is(const char *path, const char *target) {
    char now[4200];
    ssize_t n = readlink(path, now, sizeof now - 1);
    if (n < 0) return 0;
    now[n] = 0;
    return !strcmp(now, target);
}

// Points names/<name> at target: untouched when it already does, else a new link renamed over it.
static int put_link(const char *dir, const char *name, const char *target, char *err, size_t errlen) {
    char path[5600], tmp[5600];
    int n1 = snprintf(path, sizeof path, "%s/%s", dir, name);
    int n2 = snprintf(tmp, sizeof tmp, "%s/.%s.tmp%ld", dir, name, (long)getpid());
    if (n1 < 0 || n2 < 0 || (size_t)n1 >= sizeof path || (size_t)n2 >= sizeof tmp) {
        snprintf(err, errlen, "the link name %s/%s is too long", dir, name);
        return -1;
    }
    if (link_is(path, target)) return 0;
    unlink(tmp);
    if (symlink(target, tmp) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot make the link %s -> %s: %s", path, target, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

// Removes the symbolic links of dir not named in keep[0..n).
static void remove_stale(const char *dir, char *const *keep, int n) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        int wanted = ent->d_name[0] == '.'; // ., .., and another writer's link on its way in

        for (int k = 0; k < n && !wanted; k++) wanted = keep[k] && !strcmp(keep[k], ent->d_name);
        if (wanted) continue;
        char path[4800];
        struct stat st;
        int w = snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        if (w > 0 && (size_t)w < sizeof path && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) unlink(path);
    }
    closedir(d);
}

int run_names_write(const experiment *e, const char *out_dir, char *err, size_t errlen) {
    char **names = xcalloc((size_t)e->nruns + 1, sizeof *names, "run names");
    for (int i = 0; i < e->nruns; i++) {
        char name[1024];
        run_name(e, i, name, sizeof name);
        int clash = strlen(name) > NAME_MAX_BYTES;
        for (int j = 0; j < i && !clash; j++)
            clash = e->runs[j].stage_index == e->runs[i].stage_index && names[j] && !strncmp(names[j], name, strlen(name)) &&
                    (names[j][strlen(name)] == 0 || names[j][strlen(name)] == '~');
        if (clash) snprintf(name + (strlen(name) > NAME_MAX_BYTES ? NAME_MAX_BYTES : strlen(name)), 16, "~%s", e->runs[i].run_id);
        names[i] = xstrdup(name, "run name");
    }
    int rc = 0;
    for (int s = 0; s < e->nstages && rc == 0; s++) {
        char dir[4400], base[4096];
        int first = -1, n = 0;
        for (int i = 0; i < e->nruns; i++)
            if (e->runs[i].stage_index == s) first = first < 0 ? i : first, n++;
        if (first < 0) continue;
        experiment_run_path(e, first, out_dir, base, sizeof base); // <out>/<name>/<stage>/<id>
        *strrchr(base, '/') = 0;
        snprintf(dir, sizeof dir, "%s/names", base);
        make_dirs(dir);
        for (int i = first; i < first + n && rc == 0; i++) {
            char target[64];
            snprintf(target, sizeof target, "../%s.h5", e->runs[i].run_id);
            rc = put_link(dir, names[i], target, err, errlen);
        }
        if (rc == 0) remove_stale(dir, names + first, n);
    }
    for (int i = 0; i < e->nruns; i++) free(names[i]);
    free(names);
    return rc;
}
