// bench/cli/terminal_text.c — terminal-safe text (terminal_text.h).
#include "terminal_text.h"
#include <stdio.h>
#include <string.h>

// Length of the valid UTF-8 character at s (1..4), 0 when the bytes there are not one; C1
// controls (U+0080..U+009F) count as invalid here: terminals act on them.
static int utf8_char_length(const unsigned char *s) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    for (int k = 1; k < n; k++)
        if ((s[k] & 0xc0) != 0x80) return 0;
    if (n == 2 && c == 0xc2 && s[1] < 0xa0) return 0;                      // C1 control
    if (n == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))) return 0; // overlong, surrogate
    if (n == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))) return 0; // overlong, > U+10FFFF
    return n;
}

char *terminal_safe(const char *in, char *out, size_t len) {
    if (len == 0) return out;
    size_t o = 0;
    const unsigned char *s = (const unsigned char *)(in ? in : "");
    while (*s) {
        int n = utf8_char_length(s);
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
