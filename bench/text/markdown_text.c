// bench/text/markdown_text.c — one-line Markdown cells, text and code spans (markdown_text.h).
#include "markdown_text.h"
#include "../../core/visible_text.h"
#include "../../core/common.h"
#include <stdlib.h>
#include <string.h>

// Visible text with '|' as "\|" (a table cell's separator in GitHub Markdown and in
// bench/report/report_html.c's reader) and the characters in `also` as \xNN.
static void escaped(FILE *out, const char *in, const char *also) {
    const char *p = in ? in : "";
    while (*p) {
        size_t n = strcspn(p, "|");
        char *part = xmalloc(n + 1, "markdown text");
        memcpy(part, p, n), part[n] = '\0';
        for (char *t = part; *t; t++)
            if (*t == '\t') *t = ' '; // whitespace that starts nothing mid-line: a space, as before
        visible_text(out, part, also);
        free(part);
        p += n;
        if (*p == '|') fputs("\\|", out), p++;
    }
}

void md_cell(FILE *out, const char *in) { escaped(out, in, NULL); }
void md_text(FILE *out, const char *in) { escaped(out, in, "`*"); }
void md_code(FILE *out, const char *in) { visible_text(out, in, "`|"); }

static char *dup_with(void (*fn)(FILE *, const char *), const char *in) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) die_fail("out of memory escaping text");
    fn(f, in);
    if (fclose(f) != 0 || !text) die_fail("out of memory escaping text");
    return text;
}

char *md_text_dup(const char *in) { return dup_with(md_text, in); }
char *md_code_dup(const char *in) { return dup_with(md_code, in); }
