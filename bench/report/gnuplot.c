// bench/report/gnuplot.c — running gnuplot on plots/<kind>.gp (what and how: gnuplot.h).
#include "gnuplot.h"
#include "../../core/visible_text.h"
#include "../../core/safe_file.h"
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

// A file name gnuplot opens: the exact bytes, as a double-quoted string in which every byte
// other than printable ASCII, and '"', '\\', '`' and '@' (command and macro substitution), is an
// octal escape "\ooo" that gnuplot turns back into that byte (a path cannot be shown visibly
// here: the file must be found).
void gp_var_path(gp_vars *v, const char *name, const char *path) {
    if (v->n == GP_MAX_VARS) die_fail("plot: too many gnuplot variables");
    size_t n = strlen(name) + 4 * strlen(path) + 4, o = 0;
    char *text = xmalloc(n, "gnuplot variable");
    o += (size_t)snprintf(text, n, "%s=\"", name);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f || strchr("\"\\`@", *p)) o += (size_t)snprintf(text + o, n - o, "\\%03o", *p);
        else text[o++] = (char)*p;
    }
    text[o++] = '"', text[o] = '\0';
    v->text[v->n++] = text;
}

// A gnuplot single-quoted string ('' stands for ').
void gp_var_str(gp_vars *v, const char *name, const char *s) {
    char *shown = visible_dup(s, NULL); // one line: a newline would end gnuplot's command
    size_t len = 2 * strlen(shown) + 3, o = 0;
    char *q = xmalloc(len, "gnuplot string");
    q[o++] = '\'';
    for (const char *p = shown; *p; p++) {
        if (*p == '\'') q[o++] = '\'';
        q[o++] = *p;
    }
    q[o++] = '\'', q[o] = '\0';
    gp_var(v, name, "%s", q);
    free(q), free(shown);
}

void gp_data_string(FILE *f, const char *s) {
    fputc('"', f);
    visible_text(f, s, "\"");
    fputc('"', f);
}

void gp_comment(FILE *f, const char *fmt, ...) {
    char *text = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0) die_fail("out of memory writing a data file");
    fputs("# ", f), visible_text(f, text, NULL), fputc('\n', f);
    free(text);
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
    error_msg("cannot create %s: %s", path, strerror(errno));
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

// The three formats of a figure: extension, and how a complete file of that format ends.
static const char *const figure_ext[3] = {"png", "svg", "pdf"};

int gp_output_complete(const char *path, const char *ext) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char tail[64];
    size_t n = 0;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        long from = size > (long)sizeof tail ? size - (long)sizeof tail : 0;
        if (size > 0 && fseek(f, from, SEEK_SET) == 0) n = fread(tail, 1, sizeof tail, f);
    }
    fclose(f);
    if (n == 0) return 0;
    if (!strcmp(ext, "png")) { // the IEND chunk: length 0, "IEND", its CRC
        static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
        return n >= 12 && memcmp(tail + n - 12, iend, 12) == 0;
    }
    const char *mark = !strcmp(ext, "svg") ? "</svg>" : !strcmp(ext, "pdf") ? "%%EOF" : NULL;
    if (!mark) return 0;
    size_t m = strlen(mark);
    for (size_t i = n >= m ? n - m + 1 : 0; i-- > 0;) // the last occurrence, then only blanks after it
        if (memcmp(tail + i, mark, m) == 0) {
            for (size_t k = i + m; k < n; k++)
                if (!isspace((unsigned char)tail[k])) return 0;
            return 1;
        }
    return 0;
}

// gnuplot's output, line by line, each escaped (it quotes file names and our -e text as they are).
static void print_output_lines(char *text) {
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        visible_text(stderr, line, NULL), fputc('\n', stderr);
    }
}

// gnuplot writes the three formats to temporary names beside the figure's; they replace the
// figure's files only once gnuplot has exited 0 and each is complete (gnuplot exits 0 when a
// write fails, e.g. on a full disk), so a failed plot never leaves a cut figure nor replaces a
// good one.
int gp_render(const gp_tools *t, const char *kind, const char *dir, const char *base, gp_vars *v) {
    char script[PATH_MAX + 64], final[3][PATH_MAX + 8], partial[3][PATH_MAX + 48];
    snprintf(script, sizeof script, "%s/%s.gp", t->plots, kind);
    for (int k = 0; k < 3; k++) {
        snprintf(final[k], sizeof final[k], "%s/%s.%s", dir, base, figure_ext[k]);
        snprintf(partial[k], sizeof partial[k], "%s/.%s.%s.%ld.partial", dir, base, figure_ext[k], (long)getpid());
        unlink(partial[k]); // gnuplot opens it by name: whatever sits there (a link) goes first, its target untouched
    }
    gp_var_path(v, "script", script), gp_var_path(v, "png_out", partial[0]), gp_var_path(v, "svg_out", partial[1]),
        gp_var_path(v, "pdf_out", partial[2]);
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
        fprintf(stderr, "cannot run %s: %s\n", vis(t->gnuplot), strerror(errno));
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
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0, incomplete = -1;
    for (int k = 0; ok && k < 3; k++)
        if (!gp_output_complete(partial[k], figure_ext[k])) ok = 0, incomplete = k;
    int refused = 0;
    for (int k = 0; ok && k < 3; k++) { // never over a link or device at the figure's name (core/safe_file.h)
        char err[3 * PATH_MAX];
        int rc = safe_rename_over(partial[k], final[k], err, sizeof err);
        if (rc != SAFE_OK) error_msg("cannot write %s", err), ok = 0, refused = rc == SAFE_REFUSED;
    }
    for (int k = 0; k < 3; k++) unlink(partial[k]); // what is left of a failed one (renamed ones are gone)
    if (!ok && incomplete >= 0) {
        error_msg("gnuplot wrote an incomplete %s for %s (a full disk, or a write that failed)%s%s; "
                "the figure's files are left as they were", final[incomplete], base, used ? "; its output: " : "", msg);
        return EXIT_RUN_FAILED;
    }
    if (refused) return EXIT_BAD_INPUT;
    if (!ok) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return EXIT_RUN_FAILED; // a rename failed: said above
        fprintf(stderr, "posbench: error: gnuplot failed on %s making %s (%s %d)%s\n", vis(script), base,
                WIFEXITED(status) ? "exit status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                used ? "; its output:" : "");
        print_output_lines(msg);
        return EXIT_RUN_FAILED;
    }
    if (used) fprintf(stderr, "posbench: gnuplot (%s): ", base), print_output_lines(msg);
    printf("figure %s/%s.png, .svg, .pdf\n", vis(dir), base);
    return 0;
}
