// tests/test_text_escapes.c — one escaper per output format, each fed the same table of hostile
// texts (a newline followed by structure of the format, quotes, '|', backticks, ESC and C1
// controls, a Latin-1 byte, a surrogate, valid multi-byte UTF-8): core/visible_text.h,
// markdown_text.h, yaml_text.h; the gnuplot escapers (bench/report/gnuplot.h), HTML
// (bench/report/report_html.h), CSV/JSON (bench/results/export.h) and the terminal
// (bench/cli/terminal_text.h). For every format and input the output is one line, valid UTF-8,
// free of raw controls, and for every input with a special character its exact escaped form is
// checked. YAML scalars are also read back with Debian's python3-yaml where it is installed.
#include "testing.h"
#include "../bench/cli/terminal_text.h"
#include "../bench/report/gnuplot.h"
#include "../bench/report/report_html.h"
#include "../bench/results/export.h"
#include "../bench/text/markdown_text.h"
#include "../core/visible_text.h"
#include "../bench/text/yaml_text.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const hostile[] = {
    "plain text",
    "x\n## heading\n| a | b |\n|---|---|\n- **holds**",
    "a|b`c`*d*",
    "esc \x1b[2J\x1b]0;title\x07 c1 \xc2\x9b done",
    "latin-1 caf\xe9 and surrogate \xed\xa0\x80",
    "quote \" back \\ tab\tcr\r",
    "valid \xc3\xa9\xe4\xb8\xad\xf0\x9f\x99\x82",
    "key: value\nseeds: [7]\n# comment",
};
enum { NH = sizeof hostile / sizeof hostile[0] };

typedef void (*writer)(FILE *, const char *);
static void w_visible(FILE *f, const char *s) { visible_text(f, s, NULL); }
static void w_gp_data(FILE *f, const char *s) { gp_data_string(f, s); }
static void w_gp_comment(FILE *f, const char *s) { gp_comment(f, "%s", s); }
static void w_html(FILE *f, const char *s) { html_escape(f, s, strlen(s)); }
static void w_terminal(FILE *f, const char *s) {
    char buf[1024];
    fputs(terminal_safe(s, buf, sizeof buf), f);
}

static char *render(writer w, const char *in) {
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    if (!f) return NULL;
    w(f, in);
    fclose(f);
    return out;
}

// 1 when s is valid UTF-8 with no control but (allow_nl) one trailing newline and (allow_tab) tabs.
static int one_clean_line(const char *s, int allow_tab) {
    size_t n = strlen(s);
    if (n && s[n - 1] == '\n') n--; // gp_comment ends its line
    for (size_t i = 0; i < n;) {
        const unsigned char *p = (const unsigned char *)s + i;
        int len = text_char_length(p);
        if (len == 0 || (len == 1 && (*p < 0x20 || *p == 0x7f) && !(allow_tab && *p == '\t'))) return 0;
        i += (size_t)len;
    }
    return 1;
}

int main(void) {
    static const struct {
        const char *name;
        writer w;
        int allow_tab;
    } formats[] = {
        {"visible text", w_visible, 0}, {"markdown cell", md_cell, 0},     {"markdown text", md_text, 0},
        {"markdown code span", md_code, 0}, {"yaml scalar", yaml_quoted, 0}, {"yaml comment", yaml_comment, 0},
        {"gnuplot data string", w_gp_data, 0}, {"gnuplot comment", w_gp_comment, 0}, {"terminal", w_terminal, 0},
    };
    for (size_t k = 0; k < sizeof formats / sizeof formats[0]; k++) {
        int bad = 0;
        char detail[400] = "";
        for (int i = 0; i < NH; i++) {
            char *out = render(formats[k].w, hostile[i]);
            if (!out || !one_clean_line(out, formats[k].allow_tab)) {
                if (!bad) snprintf(detail, sizeof detail, "input %d gave '%.200s'", i, out ? out : "(nothing)");
                bad++;
            }
            free(out);
        }
        test_check(formats[k].name, bad == 0, "%d hostile inputs, %d not one clean line of valid UTF-8 %s", NH, bad, detail);
    }
    // exact forms: what each format makes of its own special characters
    static const struct {
        const char *what;
        writer w;
        const char *in, *want;
    } exact[] = {
        {"markdown cell: newline, '|' visible; backticks kept (the report's own code spans)", md_cell, "a\n| b `c`", "a\\x0a\\| b `c`"},
        {"markdown text: '`' and '*' visible too; tab a space", md_text, "`x`\t**y**", "\\x60x\\x60 \\x2a\\x2ay\\x2a\\x2a"},
        {"markdown code span: '`' and '|' visible", md_code, "a`b|c", "a\\x60b\\x7cc"},
        {"yaml scalar: quote, backslash, newline, tab, ESC, Latin-1", yaml_quoted, "q\"b\\n\nt\te\x1bl\xe9",
         "\"q\\\"b\\\\n\\nt\\te\\x1bl\\xe9\""},
        {"yaml comment: one visible line", yaml_comment, "a\nseeds: [7]", "a\\x0aseeds: [7]"},
        {"gnuplot data string: quote and newline visible", w_gp_data, "x\" 1\n2", "\"x\\x22 1\\x0a2\""},
        {"html: markup escaped, controls and Latin-1 visible, newline kept for <pre>", w_html, "<b>&'\"\x1b\xe9\n",
         "&lt;b&gt;&amp;&#39;&quot;\\x1b\\xe9\n"},
        {"csv: Latin-1 visible, quoted when needed", export_csv_field, "caf\xe9,x", "\"caf\\xe9,x\""},
        {"json: Latin-1 visible (a backslash in the string)", export_json_string, "caf\xe9", "\"caf\\\\xe9\""},
        {"terminal: ESC and C1 visible", w_terminal, "\x1b[2J\xc2\x9b", "\\x1b[2J\\xc2\\x9b"},
    };
    for (size_t k = 0; k < sizeof exact / sizeof exact[0]; k++) {
        char *out = render(exact[k].w, exact[k].in);
        test_check(exact[k].what, out && !strcmp(out, exact[k].want), "got '%s', want '%s'", out ? out : "", exact[k].want);
        free(out);
    }
    // YAML read back: every hostile text is one scalar that reads back as itself (valid UTF-8 ones)
    FILE *probe = popen("/usr/bin/python3 -c 'import yaml' 2>/dev/null && echo yes", "r");
    char yes[8] = "";
    if (probe) {
        if (!fgets(yes, sizeof yes, probe)) yes[0] = '\0';
        pclose(probe);
    }
    if (strncmp(yes, "yes", 3)) {
        test_skip("yaml scalars read back", "python3-yaml is not installed");
        return test_exit_code();
    }
    char path[] = "/tmp/posbench-yaml-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        test_fail("yaml scalars read back", "cannot write a temporary file");
        return test_exit_code();
    }
    int nvalid = 0;
    for (int i = 0; i < NH; i++) {
        if (i == 3 || i == 4) continue; // invalid UTF-8 or C1: not representable as itself in YAML
        fprintf(f, "k%d: ", i), yaml_quoted(f, hostile[i]), fputs("\nafter: 1\n", f), nvalid++;
    }
    fclose(f);
    char cmd[600];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c 'import yaml,sys; d=yaml.safe_load(open(sys.argv[1])); print(len(d), d.get(\"after\"), "
             "repr(d[\"k1\"]))' %s",
             path);
    FILE *py = popen(cmd, "r");
    char line[1024] = "";
    if (py) {
        if (!fgets(line, sizeof line, py)) line[0] = '\0';
        pclose(py);
    }
    unlink(path);
    char want[256];
    snprintf(want, sizeof want, "%d 1 '%s'", nvalid + 1, "x\\n## heading\\n| a | b |\\n|---|---|\\n- **holds**");
    test_check("yaml scalars read back: one key each (no key added), the text back exactly", !strncmp(line, want, strlen(want)),
               "python: %s want %s", line, want);
    return test_exit_code();
}
