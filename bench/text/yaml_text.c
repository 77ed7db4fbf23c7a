// bench/text/yaml_text.c — YAML double-quoted scalars and comment text (yaml_text.h).
#include "yaml_text.h"
#include "../../core/visible_text.h"

void yaml_quoted(FILE *out, const char *in) {
    fputc('"', out);
    for (const unsigned char *s = (const unsigned char *)(in ? in : ""); *s;) {
        int n = text_char_length(s);
        if (*s == '"' || *s == '\\') fputc('\\', out), fputc(*s, out), s++;
        else if (*s == '\n') fputs("\\n", out), s++;
        else if (*s == '\t') fputs("\\t", out), s++;
        else if (*s == '\r') fputs("\\r", out), s++;
        else if (n == 0 || (n == 1 && (*s < 0x20 || *s == 0x7f))) fprintf(out, "\\x%02x", *s), s++;
        else fwrite(s, 1, (size_t)n, out), s += n;
    }
    fputc('"', out);
}

void yaml_comment(FILE *out, const char *in) { visible_text(out, in, NULL); }
