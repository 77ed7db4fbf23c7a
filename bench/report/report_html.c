// bench/report/report_html.c — REPORT.html: REPORT.md's Markdown as HTML, the figures posbench plot
// drew as images, the commands and commits (page contents in report_html.h).
#include "report_html.h"
#include "report_provenance.h"
#include "report_formats.h"
#include "../version.h"
#include "../../core/visible_text.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <sys/stat.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void html_escape(FILE *out, const char *text, size_t n) {
    for (size_t i = 0; i < n && text[i];) {
        const unsigned char *p = (const unsigned char *)text + i;
        int len = text_char_length(p);
        if (len == 0 || i + (size_t)len > n || (len == 1 && ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f))) {
            fprintf(out, "\\x%02x", *p), i++; // a control or a byte that is not UTF-8: visible (core/visible_text.h)
            continue;
        }
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fwrite(p, 1, (size_t)len, out);
        }
        i += (size_t)len;
    }
}

static void esc(FILE *out, const char *text) { html_escape(out, text, strlen(text)); }

// A Markdown link "[text](target)" at s (n bytes left) whose target is a relative path to a page
// (ending .md or .html; no ':', space or quote, not starting with '/': the index's links to each
// source's report) as <a href>; returns 1 and advances *at past it, or 0 (written as text).
static int link_at(FILE *out, const char *s, size_t n, size_t *at) {
    const char *close = memchr(s, ']', n);
    if (!close || (size_t)(close - s) + 1 >= n || close[1] != '(') return 0;
    const char *target = close + 2, *end = memchr(target, ')', n - (size_t)(target - s));
    if (!end || end == target || *target == '/') return 0;
    size_t tn = (size_t)(end - target);
    int page = (tn > 3 && !memcmp(end - 3, ".md", 3)) || (tn > 5 && !memcmp(end - 5, ".html", 5));
    if (!page) return 0;
    for (const char *c = target; c < end; c++)
        if (*c == ':' || *c == ' ' || *c == '"' || *c == '\'' || *c == '<' || *c == '>') return 0;
    fputs("<a href=\"", out), html_escape(out, target, (size_t)(end - target)), fputs("\">", out);
    html_escape(out, s + 1, (size_t)(close - s - 1)), fputs("</a>", out);
    *at += (size_t)(end - s) + 1;
    return 1;
}

// Inline Markdown of the report: `code`, **bold**, links to pages (link_at); everything else
// escaped text. A 90% CI ("90% CI [+0.80, +4.70]") is marked when mark_ci.
static void inline_md(FILE *out, const char *s, size_t n, int mark_ci) {
    int bold = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '`') {
            const char *end = memchr(s + i + 1, '`', n - i - 1);
            if (end) {
                fputs("<code>", out), html_escape(out, s + i + 1, (size_t)(end - s - i - 1)), fputs("</code>", out);
                i = (size_t)(end - s) + 1;
                continue;
            }
        }
        if (s[i] == '*' && i + 1 < n && s[i + 1] == '*') {
            fputs(bold ? "</strong>" : "<strong>", out), bold = !bold, i += 2;
            continue;
        }
        if (s[i] == '[' && link_at(out, s + i, n - i, &i)) continue;
        if (mark_ci && !strncmp(s + i, "90% CI [", 8) && i + 8 < n) {
            const char *end = memchr(s + i, ']', n - i);
            if (end) {
                fputs("<span class=\"ci\">", out), html_escape(out, s + i, (size_t)(end - s - i) + 1), fputs("</span>", out);
                i = (size_t)(end - s) + 1;
                continue;
            }
        }
        size_t len = (size_t)text_char_length((const unsigned char *)s + i); // a whole character (html_escape checks it)
        if (len == 0 || i + len > n) len = 1;
        html_escape(out, s + i, len), i += len;
    }
    if (bold) fputs("</strong>", out);
}

// The cells of a Markdown table line "| a | b \| c |" (unescaped, trimmed), into cells[max].
static int split_row(const char *line, size_t n, char **cells, int max) {
    int nc = 0;
    size_t i = 1; // after the leading '|'
    while (i < n && nc < max) {
        char *cell = xmalloc(n + 1, "cell");
        size_t k = 0;
        while (i < n && line[i] != '|') {
            if (line[i] == '\\' && i + 1 < n && line[i + 1] == '|') i++;
            cell[k++] = line[i++];
        }
        if (i >= n) { // text after the last '|': not a cell
            free(cell);
            break;
        }
        i++;
        while (k > 0 && cell[k - 1] == ' ') k--;
        cell[k] = '\0';
        size_t lead = strspn(cell, " ");
        memmove(cell, cell + lead, k - lead + 1);
        cells[nc++] = cell;
    }
    return nc;
}

static const char *verdict_class(const char *verdict) {
    if (!strncmp(verdict, "holds", 5)) return "holds";
    if (!strncmp(verdict, "does not hold", 13)) return "fails";
    if (!strncmp(verdict, "inconclusive", 12)) return "inconclusive";
    return "not-measured";
}

enum { MAX_CELLS = 256 };

// A table starting at lines[0] (header), lines[1] (separator), then rows; returns lines used.
static int table(FILE *out, char **lines, size_t *lens, int nlines) {
    char *head[MAX_CELLS], *sep[MAX_CELLS], *cells[MAX_CELLS];
    int nh = split_row(lines[0], lens[0], head, MAX_CELLS), ns = split_row(lines[1], lens[1], sep, MAX_CELLS);
    int findings = nh == 4 && !strcmp(head[0], "claim") && !strcmp(head[1], "ours") && !strcmp(head[3], "verdict");
    fprintf(out, "<div class=\"scroll\"><table%s>\n<thead><tr>", findings ? " class=\"findings\"" : "");
    for (int c = 0; c < nh; c++) {
        int right = c < ns && sep[c][0] && sep[c][strlen(sep[c]) - 1] == ':';
        fprintf(out, "<th%s>", right ? " class=\"num\"" : "");
        inline_md(out, head[c], strlen(head[c]), 0);
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    int used = 2;
    for (; used < nlines && lens[used] > 0 && lines[used][0] == '|'; used++) {
        int nc = split_row(lines[used], lens[used], cells, MAX_CELLS);
        if (findings && nc == 4) fprintf(out, "<tr class=\"verdict-%s\">", verdict_class(cells[3]));
        else fputs("<tr>", out);
        for (int c = 0; c < nc; c++) {
            int right = c < ns && sep[c][0] && sep[c][strlen(sep[c]) - 1] == ':';
            fprintf(out, "<td%s>", right ? " class=\"num\"" : "");
            inline_md(out, cells[c], strlen(cells[c]), findings && c == 1);
            fputs("</td>", out);
            free(cells[c]);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div>\n", out);
    for (int c = 0; c < nh; c++) free(head[c]);
    for (int c = 0; c < ns; c++) free(sep[c]);
    return used;
}

static int is_separator(const char *line, size_t n) {
    if (n < 4 || line[0] != '|') return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr("|-: ", line[i])) return 0;
    return 1;
}

void html_from_markdown(FILE *out, const char *md, int *nsection) {
    int nlines = 0, cap = 64;
    char **lines = xmalloc((size_t)cap * sizeof *lines, "lines");
    size_t *lens = xmalloc((size_t)cap * sizeof *lens, "lines");
    for (const char *p = md; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (nlines == cap) {
            cap *= 2;
            char **l2 = realloc(lines, (size_t)cap * sizeof *lines);
            size_t *n2 = l2 ? realloc(lens, (size_t)cap * sizeof *lens) : NULL;
            if (!l2 || !n2) die_fail("out of memory writing REPORT.html");
            lines = l2, lens = n2;
        }
        lines[nlines] = (char *)p, lens[nlines++] = n;
        p += n + (nl != NULL);
    }
    for (int i = 0; i < nlines;) {
        const char *l = lines[i];
        size_t n = lens[i];
        if (n == 0) {
            i++;
        } else if (l[0] == '#') {
            int level = (int)strspn(l, "#");
            if (level > 6) level = 6;
            size_t skip = strspn(l, "# ");
            fprintf(out, "<h%d id=\"s%d\">", level, ++*nsection);
            inline_md(out, l + skip, n - skip, 0);
            fprintf(out, "</h%d>\n", level);
            i++;
        } else if (l[0] == '|' && i + 1 < nlines && is_separator(lines[i + 1], lens[i + 1])) {
            i += table(out, lines + i, lens + i, nlines - i);
        } else if (n >= 2 && l[0] == '-' && l[1] == ' ') {
            fputs("<ul>\n", out);
            for (; i < nlines && lens[i] >= 2 && lines[i][0] == '-' && lines[i][1] == ' '; i++) {
                fputs("<li>", out), inline_md(out, lines[i] + 2, lens[i] - 2, 0), fputs("</li>\n", out);
            }
            fputs("</ul>\n", out);
        } else {
            fputs("<p>", out);
            // a paragraph: this line (whatever it starts with: a '|' line that is no table is text)
            // and the lines up to a blank one or the start of another block
            for (int first = 1; i < nlines && lens[i] > 0 &&
                                (first || (lines[i][0] != '#' && lines[i][0] != '|' && !(lens[i] >= 2 && lines[i][0] == '-' && lines[i][1] == ' ')));
                 i++, first = 0) {
                if (!first) fputc('\n', out);
                inline_md(out, lines[i], lens[i], 0);
            }
            fputs("</p>\n", out);
        }
    }
    free(lines), free(lens);
}

// The contents list: every "## " heading of md, linking to its id (the numbering of html_from_markdown).
static void contents(FILE *out, const char *md) {
    fputs("<nav><details open><summary>Contents</summary><ul>\n", out);
    int nsection = 0;
    for (const char *p = md; *p;) {
        size_t n = strcspn(p, "\n");
        if (p[0] == '#') {
            nsection++;
            if (n > 3 && !strncmp(p, "## ", 3)) {
                fprintf(out, "<li><a href=\"#s%d\">", nsection), inline_md(out, p + 3, n - 3, 0), fputs("</a></li>\n", out);
            }
        }
        p += n + (p[n] == '\n');
    }
    fputs("<li><a href=\"#figures\">Figures</a></li>\n<li><a href=\"#commands\">Commands and commit</a></li>\n</ul></details></nav>\n", out);
}

// ---- figures ------------------------------------------------------------------------------
static void base64(FILE *out, const unsigned char *data, size_t n) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)data[i] << 16 | (i + 1 < n ? (unsigned)data[i + 1] << 8 : 0) | (i + 2 < n ? data[i + 2] : 0);
        fputc(digits[v >> 18 & 63], out), fputc(digits[v >> 12 & 63], out);
        fputc(i + 1 < n ? digits[v >> 6 & 63] : '=', out), fputc(i + 2 < n ? digits[v & 63] : '=', out);
    }
}

// One figure as an image: <img src="data:image/svg+xml;base64,..."> (a browser runs no script of
// an SVG shown as an image, and the page stays one file). 0, or -1 with a warning naming why.
#define SVG_MAX_BYTES ((long long)16 << 20) // a gnuplot figure is a few hundred KB
static int figure_image(FILE *out, const char *path) {
    char *text, err[4400];
    size_t n;
    // A regular file (never through a link, never blocking), at most SVG_MAX_BYTES: anything else is skipped, named.
    if (safe_read_file(path, SVG_MAX_BYTES, SAFE_NOFOLLOW, &text, &n, NULL, err, sizeof err) != SAFE_OK) {
        warn_msg("REPORT.html: figure left out: %s", err);
        return -1;
    }
    unsigned char *svg = (unsigned char *)text;
    if (!strstr((const char *)svg, "<svg")) {
        warn_msg("REPORT.html: %s is not an SVG file (no <svg element)", path);
        free(svg);
        return -1;
    }
    fputs("<img alt=\"", out), esc(out, path), fputs("\" src=\"data:image/svg+xml;base64,", out);
    base64(out, svg, n);
    fputs("\">", out);
    free(svg);
    return 0;
}

// Did posbench plot draw this figure? Its data file, figures/data/<base>.dat, lies beside it (plot.h:
// plot writes one for every figure and removes a figure's files with it).
static int drawn_by_plot(const char *svg_path) {
    const char *slash = strrchr(svg_path, '/');
    size_t dirlen = (size_t)(slash - svg_path), baselen = strlen(slash + 1) - 4; // without ".svg"
    size_t len = dirlen + baselen + 16;
    char *data = xmalloc(len, "path");
    snprintf(data, len, "%.*s/data/%.*s.dat", (int)dirlen, svg_path, (int)baselen, slash + 1);
    struct stat st;
    int ok = lstat(data, &st) == 0 && S_ISREG(st.st_mode);
    free(data);
    return ok;
}

static void figures(FILE *out, const char *dir) {
    fputs("<h2 id=\"figures\">Figures</h2>\n", out);
    char **paths = NULL, err[1024], group[256] = "";
    int n = 0, shown = 0, open = 0;
    if (rr_find_files(dir, "*.svg", &paths, &n, err, sizeof err) < 0) n = 0;
    for (int i = 0; i < n; i++) {
        const char *slash = strrchr(paths[i], '/');
        int in_figures = slash && slash - paths[i] >= 8 && !strncmp(slash - 8, "/figures", 8);
        if (in_figures && !drawn_by_plot(paths[i])) {
            fputs("posbench: warning: REPORT.html: not showing ", stderr), visible_text(stderr, paths[i], NULL);
            fputs(": posbench plot did not draw it (no data file figures/data/<name>.dat beside it)\n", stderr);
        } else if (in_figures) {
            // a heading per experiment: the names start "<experiment>_" (plot.h)
            char this_group[256];
            snprintf(this_group, sizeof this_group, "%.*s", (int)strcspn(slash + 1, "_."), slash + 1);
            if (strcmp(this_group, group)) {
                snprintf(group, sizeof group, "%s", this_group);
                fputs(open ? "</div>\n<h3>" : "<h3>", out), esc(out, group), fputs("</h3>\n<div class=\"figures\">\n", out);
                open = 1;
            }
            fprintf(out, "<figure id=\"figure-%d\">\n", shown + 1);
            if (figure_image(out, paths[i]) == 0) {
                fputs("\n<figcaption>", out);
                esc(out, paths[i] + strlen(dir) + (paths[i][strlen(dir)] == '/'));
                fputs("</figcaption>\n", out);
                shown++;
            }
            fputs("</figure>\n", out);
        }
        free(paths[i]);
    }
    free(paths);
    if (open) fputs("</div>\n", out);
    if (!shown) {
        fputs("<p>No figures yet: <code>posbench plot ", out), esc(out, dir);
        fputs("</code> draws them (into figures/), then <code>posbench report ", out), esc(out, dir);
        fputs("</code> puts them here.</p>\n", out);
    }
}

// ---- commands and commits -----------------------------------------------------------------
// Distinct values of root attr `name` over the counted runs, each with its count: "a (3 runs), b (1 run)".
static void root_counts(FILE *out, const rr_set *set, const char *name, const char *absent) {
    const char **seen = xcalloc((size_t)set->nruns + 1, sizeof *seen, "values");
    int *count = xcalloc((size_t)set->nruns + 1, sizeof *count, "values"), nseen = 0;
    for (int r = 0; r < set->nruns; r++) {
        const char *v = rr_attr_text(&set->runs[r].root, name, absent);
        int k = 0;
        while (k < nseen && strcmp(seen[k], v)) k++;
        if (k == nseen) seen[nseen++] = v;
        count[k]++;
    }
    for (int k = 0; k < nseen; k++) {
        fputs(k ? ", " : "", out);
        fputs("<code>", out), esc(out, seen[k]), fputs("</code>", out);
        fprintf(out, " (%d run%s)", count[k], count[k] == 1 ? "" : "s");
    }
    free(seen), free(count);
}

static void commands(FILE *out, const char *dir, const rr_set *set, int argc, char **argv) {
    fputs("<h2 id=\"commands\">Commands and commit</h2>\n<p>This report:</p>\n<pre><code>posbench report", out);
    for (int i = 0; i < argc; i++) { // quoted for the shell, then escaped for HTML
        char *w = NULL;
        size_t wn = 0;
        FILE *wf = open_memstream(&w, &wn);
        if (!wf) die_fail("report: cannot open a memory stream: %s", strerror(errno));
        report_shell_word(wf, argv[i]);
        if (fclose(wf) != 0) die_fail("report: cannot build REPORT.html: %s", strerror(errno));
        fputc(' ', out), esc(out, w);
        free(w);
    }
    fputs("</code></pre>\n<p>written by posbench built from commit <code>", out);
    esc(out, posbench_git_commit);
    fputs("</code>.</p>\n", out);
    char *cmds;
    int untracked, listed = report_run_commands(set, dir, &cmds, &untracked); // with the --scale each experiment ran at
    if (listed) {
        fputs("<p>The runs, one <code>posbench run</code> per experiment and scale (the experiment files are the copies "
              "<code>posbench run</code> kept):</p>\n<pre><code>", out);
        esc(out, cmds);
        fputs("</code></pre>\n", out);
    }
    free(cmds);
    if (untracked)
        fprintf(out, "<p>%d run%s without an experiment (<code>posbench train</code>): each file's <code>/config</code> "
                     "holds its settings.</p>\n",
                untracked, untracked == 1 ? "" : "s");
    fputs("<p>Commits the counted runs were trained with: ", out);
    root_counts(out, set, "git_commit", "unknown (not recorded)");
    fputs(".<br>Devices: ", out);
    root_counts(out, set, "device", "cpu");
    fputs(".</p>\n", out);
}

// ---- the page -----------------------------------------------------------------------------
static const char *const style =
    "body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#1a1a1a;line-height:1.45}"
    "code{font-family:ui-monospace,monospace;font-size:0.92em;background:#f2f2f2;padding:0 0.2em}"
    "pre{background:#f2f2f2;padding:0.6em;overflow-x:auto}pre code{background:none}"
    ".scroll{overflow-x:auto}table{border-collapse:collapse;margin:0.5em 0 1em;font-size:0.9em}"
    "th,td{border:1px solid #ccc;padding:0.25em 0.5em;vertical-align:top}th{background:#f5f5f5}"
    "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.num{white-space:nowrap}"
    "tr.verdict-holds td{background:#e3f4e1}tr.verdict-fails td{background:#fbe1df}"
    "tr.verdict-inconclusive td{background:#fdf3d7}tr.verdict-not-measured td{background:#ececec;color:#444}"
    "table.findings td:last-child{font-weight:600}span.ci{white-space:nowrap;text-decoration:underline dotted}"
    ".legend span{display:inline-block;padding:0 0.5em;margin-right:0.5em;border:1px solid #ccc}"
    ".figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:1em}"
    "figure{margin:0;border:1px solid #ddd;padding:0.5em}figure img{width:100%;max-width:900px;height:auto;display:block}"
    "figcaption{font-size:0.85em;color:#555}nav ul{columns:2}";

// The verdict colours' legend above the findings tables.
static const char *const legend =
    "<p class=\"legend\">Findings rows: <span style=\"background:#e3f4e1\">holds</span>"
    "<span style=\"background:#fbe1df\">does not hold</span><span style=\"background:#fdf3d7\">inconclusive</span>"
    "<span style=\"background:#ececec\">not measured</span> (90% CIs <span class=\"ci\">underlined</span>)</p>\n";

// Ends the page being built in the memory stream out (over *html, *n) and writes it to
// DIR/REPORT.html (report_write_file: atomically, by the output-path rule). 0, or the error code.
static int finish_page(FILE *out, char **html, size_t *n, const char *dir) {
    fputs("</body>\n</html>\n", out);
    if (fclose(out) != 0) die_fail("report: cannot build REPORT.html: %s", strerror(errno));
    size_t len = strlen(dir) + 16;
    char *path = xmalloc(len, "path");
    snprintf(path, len, "%s/REPORT.html", dir);
    int rc = report_write_file(path, *html, *n);
    free(path), free(*html);
    return rc;
}

int report_html_write_page(const char *dir, const char *md, const char *title) {
    char *html = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&html, &n);
    if (!out) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", out);
    esc(out, title), fputs(": ", out), esc(out, dir);
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
    fputs(legend, out);
    int nsection = 0;
    html_from_markdown(out, md, &nsection);
    return finish_page(out, &html, &n, dir);
}

int report_html_write(const char *dir, const char *md, const rr_set *set, int argc, char **argv) {
    char *html = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&html, &n);
    if (!out) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>posbench report: ",
          out);
    esc(out, dir);
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
    // the title and the line under it, then the contents, then the rest
    const char *rest = strstr(md, "\n## ");
    size_t head_len = rest ? (size_t)(rest - md) + 1 : strlen(md);
    char *head = xmalloc(head_len + 1, "report");
    memcpy(head, md, head_len), head[head_len] = '\0';
    int nsection = 0;
    html_from_markdown(out, head, &nsection);
    free(head);
    contents(out, md);
    fputs(legend, out);
    html_from_markdown(out, md + head_len, &nsection);
    figures(out, dir);
    commands(out, dir, set, argc, argv);
    return finish_page(out, &html, &n, dir);
}
