// core/visible_text.c — controls and invalid UTF-8 as visible \xNN (visible_text.h).
#include "visible_text.h"
#include <string.h>

int text_char_length(const unsigned char *s) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    for (int k = 1; k < n; k++)
        if ((s[k] & 0xc0) != 0x80) return 0;
    if (n == 2 && c == 0xc2 && s[1] < 0xa0) return 0;                                   // C1 control
    if (n == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))) return 0; // overlong, surrogate
    if (n == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))) return 0; // overlong, > U+10FFFF
    return n;
}

size_t visible_text(FILE *out, const char *in, const char *also) {
    size_t written = 0;
    for (const unsigned char *s = (const unsigned char *)(in ? in : ""); *s;) {
        int n = text_char_length(s);
        if (n == 0 || (n == 1 && (*s < 0x20 || *s == 0x7f || (also && strchr(also, *s))))) {
            fprintf(out, "\\x%02x", *s);
            written += 4, s++;
        } else {
            fwrite(s, 1, (size_t)n, out);
            written += (size_t)n, s += n;
        }
    }
    return written;
}
