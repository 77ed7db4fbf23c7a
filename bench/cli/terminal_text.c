// bench/cli/terminal_text.c — terminal-safe text (terminal_text.h) into a caller's buffer; the
// character rule is core/visible_text.h's, the one every format escaper shares.
#include "terminal_text.h"
#include "../../core/visible_text.h"
#include <stdio.h>
#include <string.h>

char *terminal_safe(const char *in, char *out, size_t len) {
    if (len == 0) return out;
    size_t o = 0;
    const unsigned char *s = (const unsigned char *)(in ? in : "");
    while (*s) {
        int n = text_char_length(s);
        int control = n == 1 && (*s < 0x20 || *s == 0x7f);
        if (n == 0 || control) {
            if (o + 4 >= len) break;
            snprintf(out + o, len - o, "\\x%02x", *s);
            o += 4, s++;
        } else {
            if (o + (size_t)n >= len) break;
            memcpy(out + o, s, (size_t)n);
            o += (size_t)n, s += n;
        }
    }
    out[o] = 0;
    return out;
}
