// tests/test_gnuplot_output.c — a figure's files are replaced only by complete ones
// (bench/report/gnuplot.c): gp_output_complete tells a whole PNG (IEND chunk), SVG (</svg>) and
// PDF (%%EOF) from an empty, missing or cut one; and gp_render on a full disk (a 64 KiB tmpfs,
// where gnuplot itself exits 0) exits 1 naming the incomplete file, leaves no temporary file
// and keeps the figure drawn before. The full-disk part SKIPs without gnuplot or without the
// right to mount a tmpfs.
#include "testing.h"
#include "../bench/report/gnuplot.h"
#include "../core/common.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) die_fail("test: cannot write %s", path);
}

static void check_complete(const char *dir) {
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 1, 2, 3, 4,
                                        0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    char path[512];
    struct {
        const char *name, *ext;
        const void *bytes;
        size_t n; // 0: the text's length
        int want;
    } cases[] = {
        {"whole PNG", "png", png, sizeof png, 1},
        {"PNG cut before its IEND CRC", "png", png, sizeof png - 3, 0},
        {"empty PNG", "png", "", 0, 0}, // strlen("") = 0: an empty file
        {"whole SVG", "svg", "<svg>\n<g/>\n</svg>\n\n", 0, 1},
        {"SVG cut inside its last element", "svg", "<svg>\n<g/>\n</sv", 0, 0},
        {"SVG with text after </svg>", "svg", "<svg></svg>\n<g/>", 0, 0},
        {"whole PDF", "pdf", "%PDF-1.5\n...\nstartxref\n123\n%%EOF\n", 0, 1},
        {"PDF cut before %%EOF", "pdf", "%PDF-1.5\n...\nstartxref\n123\n%%EO", 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(path, sizeof path, "%s/f%zu.%s", dir, k, cases[k].ext);
        write_file(path, cases[k].bytes, cases[k].n ? cases[k].n : strlen(cases[k].bytes));
        char name[160];
        snprintf(name, sizeof name, "gp_output_complete: %s -> %d", cases[k].name, cases[k].want);
        int got = gp_output_complete(path, cases[k].ext);
        test_check(name, got == cases[k].want, "got %d", got);
    }
    snprintf(path, sizeof path, "%s/missing.png", dir);
    test_check("gp_output_complete: a missing file is not complete", gp_output_complete(path, "png") == 0, "%s", path);
}

// Files in dir whose name starts with '.' and ends with ".partial".
static int partial_files(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        n += e->d_name[0] == '.' && len > 8 && !strcmp(e->d_name + len - 8, ".partial");
    }
    if (d) closedir(d);
    return n;
}

static void check_full_disk(const char *tmp) {
    gp_tools t;
    char err[512], mnt[512], cmd[1200], plots[512], path[600];
    if (gp_find(&t, err, sizeof err) != 0) {
        test_skip("plot on a full disk", "no gnuplot");
        return;
    }
    // A script of our own that draws a large figure: the tmpfs fills during the PNG.
    snprintf(plots, sizeof plots, "%s/plots", tmp);
    snprintf(mnt, sizeof mnt, "%s/full", tmp);
    if (mkdir(plots, 0755) != 0 || mkdir(mnt, 0755) != 0) die_fail("test: mkdir in %s", tmp);
    snprintf(t.plots, sizeof t.plots, "%s", plots);
    snprintf(path, sizeof path, "%s/big.gp", plots);
    const char *gp = "if (term eq 'svg') { set terminal svg size 2000,2000 } else { if (term eq 'pdf') { set terminal pdfcairo } "
                     "else { set terminal png size 2000,2000 } }\nset output out\nset samples 20000\n"
                     "plot for [i=1:20] sin(i*x)*cos(x*x/i) title sprintf('curve %d', i)\n";
    write_file(path, gp, strlen(gp));
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=64k posbench-test '%s' 2>/dev/null", mnt);
    if (system(cmd) != 0) {
        test_skip("plot on a full disk", "cannot mount a tmpfs here (needs root)");
        return;
    }
    // The figure drawn before: small complete files the failed render must leave as they were.
    static const char old_svg[] = "<svg>old</svg>\n";
    snprintf(path, sizeof path, "%s/fig.svg", mnt);
    write_file(path, old_svg, sizeof old_svg - 1);
    gp_vars v = {0};
    int rc = gp_render(&t, "big", mnt, "fig", &v);
    gp_vars_free(&v);
    char back[64] = "";
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(back, 1, sizeof back - 1, f) : 0;
    if (f) fclose(f);
    back[n] = 0;
    int partials = partial_files(mnt);
    test_check("plot on a full disk: exit 1, no temporary file left, the earlier figure untouched",
               rc == EXIT_RUN_FAILED && partials == 0 && !strcmp(back, old_svg), "exit %d, %d partial files, fig.svg '%s'", rc,
               partials, back);
    snprintf(cmd, sizeof cmd, "umount '%s'", mnt);
    if (system(cmd) != 0) fprintf(stderr, "test: could not unmount %s\n", mnt);
}

int main(void) {
    char tmp[] = "/tmp/posbench-gnuplot-output.XXXXXX";
    if (!mkdtemp(tmp)) die_fail("test: mkdtemp");
    check_complete(tmp);
    check_full_disk(tmp);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0) fprintf(stderr, "test: could not remove %s\n", tmp);
    return test_exit_code();
}
