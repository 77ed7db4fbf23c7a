// bench/report/gnuplot.c — running gnuplot on plots/<kind>.gp (what and how: gnuplot.h).
#include "gnuplot.h"
#include "../../core/common.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void gp_var(gp_vars *v, const char *name, const char *fmt, ...) {
    if (v->n == GP_MAX_VARS) die_fail("plot: too many gnuplot variables");
    char value[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    size_t n = strlen(name) + strlen(value) + 2;
    v->text[v->n] = xmalloc(n, "gnuplot variable");
    snprintf(v->text[v->n++], n, "%s=%s", name, value);
}

// A gnuplot single-quoted string ('' stands for ').
void gp_var_str(gp_vars *v, const char *name, const char *s) {
    char q[2048];
    size_t o = 0;
    q[o++] = '\'';
    for (const char *p = s; *p && o < sizeof q - 3; p++) {
        if (*p == '\'') q[o++] = '\'';
        q[o++] = *p;
    }
    q[o++] = '\'', q[o] = '\0';
    gp_var(v, name, "%s", q);
}

void gp_vars_free(gp_vars *v) {
    for (int i = 0; i < v->n; i++) free(v->text[i]);
    v->n = 0;
}

void gp_sanitize(char *s) {
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '.' || *s == '-' || *s == '_')) *s = '_';
}

int gp_make_dir(const char *path) {
    if (mkdir(path, 0777) == 0 || errno == EEXIST) return 0;
    fprintf(stderr, "posbench: error: cannot create %s: %s\n", path, strerror(errno));
    return -1;
}

static int find_gnuplot(char *out, size_t len) {
    const char *path = getenv("PATH");
    if (!path) return -1;
    char *copy = xstrdup(path, "PATH"), *save = NULL;
    int found = -1;
    for (char *d = strtok_r(copy, ":", &save); d && found; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, len, "%s/gnuplot", d[0] ? d : ".");
        if (access(out, X_OK) == 0) found = 0;
    }
    free(copy);
    return found;
}

static int find_plots(char *out, size_t len) {
    char probe[PATH_MAX + 32];
    const char *env = getenv("POSBENCH_PLOTS");
    if (env && env[0]) {
        snprintf(out, len, "%s", env);
        snprintf(probe, sizeof probe, "%s/metric_vs_axis.gp", out);
        if (access(probe, R_OK) == 0) return 0;
    }
    char exe[PATH_MAX - 16];
    if (self_exe_path(exe, sizeof exe) == 0) {
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        snprintf(out, len, "%s/../plots", exe);
        snprintf(probe, sizeof probe, "%s/metric_vs_axis.gp", out);
        if (access(probe, R_OK) == 0) return 0;
    }
    snprintf(out, len, "plots");
    snprintf(probe, sizeof probe, "%s/metric_vs_axis.gp", out);
    return access(probe, R_OK) == 0 ? 0 : -1;
}

int gp_find(gp_tools *t, char *err, size_t errlen) {
    if (find_gnuplot(t->gnuplot, sizeof t->gnuplot) != 0) {
        snprintf(err, errlen, "gnuplot not found in PATH: install the Debian package gnuplot-nox (make deps)");
        return -1;
    }
    if (find_plots(t->plots, sizeof t->plots) != 0) {
        snprintf(err, errlen, "cannot find the gnuplot scripts (plots/metric_vs_axis.gp) in ../plots beside the executable or in "
                              "./plots (or set POSBENCH_PLOTS)");
        return -1;
    }
    return 0;
}

int gp_render(const gp_tools *t, const char *kind, const char *dir, const char *base, gp_vars *v) {
    char script[PATH_MAX + 64], png[PATH_MAX + 8], svg[PATH_MAX + 8], pdf[PATH_MAX + 8];
    snprintf(script, sizeof script, "%s/%s.gp", t->plots, kind);
    snprintf(png, sizeof png, "%s/%s.png", dir, base);
    snprintf(svg, sizeof svg, "%s/%s.svg", dir, base);
    snprintf(pdf, sizeof pdf, "%s/%s.pdf", dir, base);
    gp_var_str(v, "script", script), gp_var_str(v, "png_out", png), gp_var_str(v, "svg_out", svg), gp_var_str(v, "pdf_out", pdf);
    static const char *tail = "term='png'; out=png_out; load script; unset output; reset; "
                              "term='svg'; out=svg_out; load script; unset output; reset; "
                              "term='pdf'; out=pdf_out; load script; unset output";
    size_t len = strlen(tail) + 1;
    for (int i = 0; i < v->n; i++) len += strlen(v->text[i]) + 2;
    char *e = xcalloc(len, 1, "gnuplot command");
    for (int i = 0; i < v->n; i++) strcat(strcat(e, v->text[i]), "; ");
    strcat(e, tail);
    int fd[2];
    if (pipe(fd) != 0) die_fail("plot: pipe: %s", strerror(errno));
    fflush(stdout), fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) die_fail("plot: fork: %s", strerror(errno));
    if (pid == 0) { // gnuplot's stdout and stderr both come back through the pipe
        close(fd[0]), dup2(fd[1], 1), dup2(fd[1], 2), close(fd[1]);
        execl(t->gnuplot, "gnuplot", "-e", e, (char *)NULL);
        fprintf(stderr, "cannot run %s: %s\n", t->gnuplot, strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    free(e);
    FILE *rf = fdopen(fd[0], "r");
    if (!rf) die_fail("plot: fdopen: %s", strerror(errno));
    char msg[8192], drain[1024];
    size_t used = fread(msg, 1, sizeof msg - 1, rf);
    while (fread(drain, 1, sizeof drain, rf) > 0) {}
    fclose(rf);
    msg[used] = '\0';
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    struct stat a, b, c;
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && stat(png, &a) == 0 && a.st_size > 0 && stat(svg, &b) == 0 &&
             b.st_size > 0 && stat(pdf, &c) == 0 && c.st_size > 0;
    if (!ok) {
        fprintf(stderr, "posbench: error: gnuplot failed on %s making %s (%s %d)%s\n%s", script, base,
                WIFEXITED(status) ? "exit status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                used ? "; its output:" : "", msg);
        return EXIT_RUN_FAILED;
    }
    if (used) fprintf(stderr, "posbench: gnuplot (%s): %s%s", base, msg, msg[used - 1] == '\n' ? "" : "\n");
    printf("figure %s/%s.png, .svg, .pdf\n", dir, base);
    return 0;
}
